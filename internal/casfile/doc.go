// Package casfile replaces, creates and deletes project files by compare-and-swap:
// a file changes only if it still holds exactly the bytes (git blob id) the caller
// saw, a concurrent edit is never destroyed, and no path leaves the project root
// through a symbolic link. Apply and undo commit disk through it.
package casfile
