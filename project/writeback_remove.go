package project

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/gitblob"
)

// removeFile deletes the file of an instance stored as one, and its adjacent meta
// files unless a same-named sibling shares them.
func removeFile(fsys fs.FS, disk *dom.Instance) ([]FileOp, error) {
	ops, err := deleteOps(fsys, disk.FsPath)
	if err != nil || sharesMeta(disk) {
		return ops, err
	}
	dir, name := dirOf(disk.FsPath), metaName(disk)
	for _, ext := range metaExts {
		mp := join(dir, name+ext)
		data, err := fs.ReadFile(fsys, mp)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("read %s: %w", mp, err)
		}
		ops = append(ops, FileOp{Path: mp, Delete: true, Expect: gitblob.Hash(data)})
	}
	return ops, nil
}

func deleteOps(fsys fs.FS, p string) ([]FileOp, error) {
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return []FileOp{{Path: p, Delete: true, Expect: gitblob.Hash(data)}}, nil
}

// sharesMeta reports whether a same-named sibling stored in another file picks up
// the same adjacent meta file, which must then stay.
func sharesMeta(disk *dom.Instance) bool {
	if disk.Parent == nil {
		return false
	}
	for _, c := range disk.Parent.Children {
		if c != disk && c.Name == disk.Name && c.FsPath != disk.FsPath && dirOf(c.FsPath) == dirOf(disk.FsPath) {
			return true
		}
	}
	return false
}

// unmanagedShown is how many of the files a folder deletion refuses for are named.
const unmanagedShown = 5

// claimedFiles are the files and folders of disk's subtree: what its instances come
// from (their files, folders, meta files and project files), the init file each init
// folder's instance comes from (the first that exists, as the loader picks it), and
// the init meta files of its folders, which the loader reads with them.
func claimedFiles(fsys fs.FS, disk *dom.Instance) (files map[string]bool, dirs map[string]bool) {
	files, dirs = map[string]bool{}, map[string]bool{}
	disk.Walk(func(x *dom.Instance) bool {
		for _, p := range []string{x.FsPath, x.MetaPath(), x.ProjectFile()} {
			if p != "" {
				files[p] = true
			}
		}
		if x.Kind == dom.KindDir || x.Kind == dom.KindInit {
			dirs[x.FsPath] = true
		}
		if x.Kind == dom.KindInit {
			for _, f := range initFiles {
				if st, err := fs.Stat(fsys, join(x.FsPath, f.name)); err == nil && !st.IsDir() {
					files[join(x.FsPath, f.name)] = true
					break
				}
			}
		}
		return true
	})
	return files, dirs
}

// claimed reports whether the file p, found under a folder being deleted, belongs to
// the subtree (see claimedFiles).
func claimed(p string, files, dirs map[string]bool) bool {
	if files[p] {
		return true
	}
	name := path.Base(p)
	return dirs[dirOf(p)] && (name == "init.meta.json" || name == "init.meta.jsonc")
}

// osMetadata are files the operating system writes into folders on its own (Finder's,
// Explorer's): they hold nothing of a person's, and go with a deleted folder.
var osMetadata = map[string]bool{".ds_store": true, "thumbs.db": true, "desktop.ini": true}

// removeFolder deletes every file under the instance's folder, then the folders,
// deepest first. A file no instance of the subtree comes from (notes, images, a file
// the project's rules ignore, one saved there since the plan) is refused
// (ReasonUnmanagedFiles): no plan showed it, so the deletion is left to a person. An
// empty one (a .gitkeep) holds nothing to lose, and goes with the folder, as do the
// files the operating system keeps there (osMetadata).
func removeFolder(fsys fs.FS, disk *dom.Instance) ([]FileOp, error) {
	root := disk.FsPath
	if root == "" || root == "." || strings.HasPrefix(root, "../") {
		return nil, refuse(disk, ReasonProjectNode, "the instance is the project's own folder; change the project file by hand")
	}
	if st, err := fs.Lstat(fsys, root); err != nil {
		return nil, fmt.Errorf("stat %s: %w", root, err)
	} else if st.Mode()&fs.ModeSymlink != 0 {
		return nil, refuse(disk, ReasonSymlink, "%s is a symbolic link; remove it by hand", root)
	}
	var files []FileOp
	var dirs, unmanaged []string
	ownFiles, ownDirs := claimedFiles(fsys, disk)
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return refuse(disk, ReasonSymlink, "%s is a symbolic link; remove the folder %s by hand", p, root)
		case d.IsDir():
			dirs = append(dirs, p)
		default:
			own := claimed(p, ownFiles, ownDirs) || osMetadata[strings.ToLower(path.Base(p))]
			if !own {
				// Refused unless empty: a file of someone's is not read to be refused.
				if info, err := d.Info(); err == nil && info.Size() > 0 {
					unmanaged = append(unmanaged, p)
					return nil
				}
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			if len(data) > 0 && !own {
				unmanaged = append(unmanaged, p)
				return nil
			}
			// (the delete expects these bytes: a file written since is kept)
			files = append(files, FileOp{Path: p, Delete: true, Expect: gitblob.Hash(data)})
		}
		return nil
	})
	if err != nil {
		var r *Refusal
		if errors.As(err, &r) {
			return nil, r
		}
		return nil, fmt.Errorf("read folder %s: %w", root, err)
	}
	if len(unmanaged) > 0 {
		shown := unmanaged[:min(len(unmanaged), unmanagedShown)]
		more := ""
		if len(unmanaged) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(unmanaged)-len(shown))
		}
		return nil, refuse(disk, ReasonUnmanagedFiles, "the folder %s holds %d file(s) no instance comes from (%s%s); move them out, or delete the folder by hand",
			root, len(unmanaged), strings.Join(shown, ", "), more)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		files = append(files, FileOp{Path: dirs[i], Delete: true, Dir: true})
	}
	return files, nil
}
