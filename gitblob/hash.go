package gitblob

import (
	"crypto"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"unsafe"

	githash "github.com/go-git/go-git/v5/plumbing/hash"
)

// go-git hashes with sha1cd (collision detecting SHA-1), which is about half as
// fast as crypto/sha1. Atlas only reads repositories the user already trusts on
// local disk, so collision detection buys nothing while index checksums and
// object ids are computed on every sync.
func init() {
	if err := githash.RegisterHash(crypto.SHA1, sha1.New); err != nil {
		panic(err)
	}
}

// blobHeader appends git's object header ("blob <size>\x00") to dst.
func blobHeader(dst []byte, size int64) []byte {
	dst = append(dst, "blob "...)
	dst = strconv.AppendInt(dst, size, 10)
	return append(dst, 0)
}

// Hash returns the git blob id (40 lowercase hex digits) of data, the value
// `git hash-object --no-filters` prints for a file holding data.
func Hash(data []byte) string {
	var buf [32]byte
	h := sha1.New()
	h.Write(blobHeader(buf[:0], int64(len(data))))
	h.Write(data)
	var sum [sha1.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// HashString is Hash of a string's bytes, without copying them: sources are
// strings of kilobytes, hashed by the ten thousand.
func HashString(s string) string {
	if s == "" {
		return Hash(nil)
	}
	// Hash only reads data, and keeps none of it.
	return Hash(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// HashReader returns the git blob id of the next size bytes of r, reading them
// in a stream so big files need not fit in memory. It fails if r ends early.
func HashReader(r io.Reader, size int64) (string, error) {
	if size < 0 {
		return "", fmt.Errorf("hash blob: negative size %d", size)
	}
	var buf [32]byte
	h := sha1.New()
	h.Write(blobHeader(buf[:0], size))
	n, err := io.CopyN(h, r, size)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return "", fmt.Errorf("hash blob: read %d of %d bytes: %w", n, size, err)
	}
	var sum [sha1.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])), nil
}
