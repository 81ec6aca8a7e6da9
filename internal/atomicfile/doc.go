// Package atomicfile writes files so that a reader, or the disk after a crash, has
// either the old bytes or the new ones, never part of them: a temp file in the same
// folder, synced, renamed (or linked) into place, and the folder synced.
package atomicfile
