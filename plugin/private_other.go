//go:build !unix

package plugin

// checkPrivate has nothing to check where the temp folder is per user (Windows).
func checkPrivate(dir string) error { return nil }
