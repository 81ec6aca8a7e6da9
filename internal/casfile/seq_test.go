package casfile_test

import (
	"io"
	"os"
	"strconv"
	"strings"
)

// nextSeq reads the counter in f, runs fn, and writes the counter back one
// higher; the caller holds f's lock.
func nextSeq(f *os.File, fn func()) int {
	b, err := io.ReadAll(f)
	if err != nil {
		panic(err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	fn()
	if _, err := f.WriteAt([]byte(strconv.Itoa(n)+"\n"), 0); err != nil {
		panic(err)
	}
	return n
}
