// Package gitblob is the project's only door to git: blob ids, repository discovery,
// a commit's tree as a read-only fs.FS, and the index (staging area). Everything
// else works with plain strings, paths and fs.FS values, so go-git stays an internal
// detail that could be swapped for another implementation.
package gitblob
