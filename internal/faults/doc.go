// Package faults holds the fault suite of the "never lose work" promise (its
// tests only): real processes (the atlas binary, built once per run, and the
// Studio emulator under Node.js), real files and SIGKILL, each race repeated and
// counted. `make test` runs a short form; `make faults` (ATLAS_FAULT_ROUNDS=50)
// the long one.
package faults
