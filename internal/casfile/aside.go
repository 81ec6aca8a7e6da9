package casfile

import (
	"errors"
	"fmt"
	"io/fs"
)

// AsideHash reports whether operations on name with tag left an aside copy, and
// the blob id of its bytes ("" when it is not a regular file). A caller rolling
// back an interrupted transaction uses it to tell a path that is empty because
// its file waits aside (put it back) from one the user emptied (leave it).
func (r *Root) AsideHash(name, tag string) (hash string, found bool, err error) {
	if err := validTag(tag); err != nil {
		return "", false, err
	}
	d, base, err := r.folder(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer d.close()
	h, _, err := d.hash(tempName(base, tag, asideSuffix))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("look at the aside copy of %s: %w", name, err)
	}
	return h, true, nil
}

// ReadAside returns the bytes of the aside copy operations on name with tag
// left (fs.ErrNotExist when there is none), read through the folder's handle.
func (r *Root) ReadAside(name, tag string) ([]byte, error) {
	if err := validTag(tag); err != nil {
		return nil, err
	}
	d, base, err := r.folder(name, false)
	if err != nil {
		return nil, err
	}
	defer d.close()
	return d.root.ReadFile(tempName(base, tag, asideSuffix))
}
