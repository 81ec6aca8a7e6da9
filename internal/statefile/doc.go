// Package statefile writes and reads the cache files Atlas keeps in its state dir:
// a header naming the kind, version and build, a payload, and a checksum. Files are
// replaced atomically, and one that does not match in every respect is reported
// stale, so callers rebuild its content instead of trusting it.
package statefile
