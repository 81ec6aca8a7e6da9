// Package project reads a Rojo project (a project file plus the files it points at,
// from any fs.FS) into an instance tree exactly as Rojo 7.7 does, recording for every
// instance the file it came from, and says which files to write for a pulled change.
package project
