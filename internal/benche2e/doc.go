// Command benche2e measures Atlas end to end, as a person or an agent sees it: it
// generates projects of 1,000, 10,000 and 50,000 scripts (internal/benchgen), starts
// `atlas serve --emulate` (the real plugin in the Studio emulator) on each, and times
// the CLI: serve to first plan (each run a new host and emulator with an empty state
// dir), a plan with nothing changed, after one disk edit, after one Studio edit, an
// apply of up to 1,000 pushed edits, and a restarted host's first plan, both with the
// emulator restarted too and with Studio left open (the emulator run on its own by
// `atlas studio emulate`, which reconnects). It reads the host's RSS after the first
// plan and after a number of plan and apply cycles. In the same loop it runs
// `git status --porcelain` and `git hash-object --stdin-paths` of every file, and
// prints medians and the ratios to them.
//
//	go run ./internal/benche2e -sizes 1k,10k      (make bench-e2e SIZES=1k,10k)
//
// It is not part of `make test`: it takes minutes and its numbers are for reading.
package main
