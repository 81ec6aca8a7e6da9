//go:build unix && !linux && !darwin

package casfile

// renameNoReplace renames from to to in d. Other Unix systems have no portable
// no-replace rename; link+unlink refuses an existing target.
func renameNoReplace(d *folder, from, to string) error { return linkUnlink(d, from, to) }
