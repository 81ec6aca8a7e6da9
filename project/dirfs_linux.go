//go:build linux

package project

import (
	"io/fs"
	"syscall"
)

// readStat opens the file, takes its stat data on the open file, and reads it.
// It reads regular files only (ok false otherwise).
func (f *osFS) readStat(name string) ([]byte, fileStat, bool, error) {
	if f.dir == "" || !fs.ValidPath(name) {
		return nil, fileStat{}, false, nil
	}
	full := f.dir + "/" + name
	if name == "." {
		full = f.dir
	}
	fail := func(err error) ([]byte, fileStat, bool, error) {
		return nil, fileStat{}, true, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var fd int
	err := retry(func() (err error) {
		// O_NONBLOCK: a named pipe in a regular file's place does not block the
		// open (it is then not read); a regular file reads as without it.
		fd, err = syscall.Open(full, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		return err
	})
	if err != nil {
		return fail(err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := retry(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		return fail(err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fileStat{}, false, nil
	}
	fst := fileStat{size: st.Size, mtime: int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec), mode: uint32(regularMode(uint32(st.Mode))), ino: uint64(st.Ino)}
	// One byte more than the size: a read that stops short of it at the size
	// has met the end.
	buf := make([]byte, st.Size+1)
	n := 0
	for {
		var m int
		err := retry(func() (err error) {
			m, err = syscall.Read(fd, buf[n:])
			return err
		})
		if err != nil {
			return nil, fileStat{}, true, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		n += m
		if m == 0 || (n == int(st.Size) && n < len(buf)) {
			break
		}
		if n == len(buf) { // the file grew: read on
			buf = append(buf, 0)
			buf = buf[:cap(buf)]
		}
	}
	return buf[:n:n], fst, true, nil
}

// retry runs a system call again while a signal interrupts it.
func retry(call func() error) error {
	for {
		if err := call(); err != syscall.EINTR {
			return err
		}
	}
}

// regularMode is the fs.FileMode os.Stat gives a regular file of this st_mode.
func regularMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
