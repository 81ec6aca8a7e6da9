// Package syncback turns an instance tree (a place read from a file, or later a
// live Studio session) into the files of a new Rojo project: a default.project.json
// whose nodes are the services, and under src/ one file or folder per instance by
// Rojo's syncback rules (scripts as .luau with .server/.client suffixes, folders,
// init files, .meta.json for properties, .model.json for value objects and the
// like, and a binary .rbxm for whatever has no file form). It does no I/O: the
// caller writes the files it returns.
package syncback
