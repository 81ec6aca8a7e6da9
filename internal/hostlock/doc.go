// Package hostlock keeps one host per project: an exclusive OS lock on a file in
// the project's state folder, held for the host's life and released by the OS
// when the process dies, which names its holder (pid, port) to any host that
// cannot get it.
package hostlock
