package casfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/internal/casfile"
)

const tag = "tx1"

var opts = casfile.Options{Tag: tag}

func hash(s string) string { return gitblob.Hash([]byte(s)) }

func openRoot(t *testing.T, dir string) *casfile.Root {
	t.Helper()
	r, err := casfile.Open(dir)
	if err != nil {
		t.Fatalf("Open(%s) = %v", dir, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree returns every regular file under dir (slash paths) with its content,
// folders as "name/": "", and symbolic links as "name@": target.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			got[rel+"@"] = filepath.ToSlash(target)
		case e.IsDir():
			got[rel+"/"] = ""
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			got[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func aside(name string) string {
	dir, base := path.Split(name)
	return dir + casfile.TempName(base, tag, ".pre")
}

func TestOutcomes(t *testing.T) {
	const (
		planned = "return 'planned'\n" // what the plan saw
		edited  = "return 'edited'\n"  // what the user saved since
		next    = "return 'next'\n"    // what the operation writes
	)
	replace := func(name, expect, data string) func(r *casfile.Root) (casfile.Result, error) {
		return func(r *casfile.Root) (casfile.Result, error) { return r.Replace(name, expect, []byte(data), opts) }
	}
	create := func(name, data string) func(r *casfile.Root) (casfile.Result, error) {
		return func(r *casfile.Root) (casfile.Result, error) { return r.Create(name, []byte(data), opts) }
	}
	del := func(name, expect string) func(r *casfile.Root) (casfile.Result, error) {
		return func(r *casfile.Root) (casfile.Result, error) { return r.Delete(name, expect, opts) }
	}
	tests := []struct {
		name  string
		files map[string]string
		op    func(r *casfile.Root) (casfile.Result, error)
		want  casfile.Result
		after map[string]string
	}{
		{"replace what the plan saw", map[string]string{"src/a.luau": planned}, replace("src/a.luau", hash(planned), next),
			casfile.Result{Outcome: casfile.Written, Aside: aside("src/a.luau")},
			map[string]string{"src/": "", "src/a.luau": next, aside("src/a.luau"): planned}},
		{"replace an edited file", map[string]string{"src/a.luau": edited}, replace("src/a.luau", hash(planned), next),
			casfile.Result{Outcome: casfile.Kept, Reason: casfile.Changed, Found: hash(edited)},
			map[string]string{"src/": "", "src/a.luau": edited}},
		{"replace a deleted file", map[string]string{"src/": ""}, replace("src/a.luau", hash(planned), next),
			casfile.Result{Outcome: casfile.Kept, Reason: casfile.Missing},
			map[string]string{"src/": ""}},
		{"replace in a deleted folder", nil, replace("src/a.luau", hash(planned), next),
			casfile.Result{Outcome: casfile.Kept, Reason: casfile.Missing},
			map[string]string{}},
		{"replace under a file where its folder was", map[string]string{"src": "a file"}, replace("src/a.luau", hash(planned), next),
			casfile.Result{Outcome: casfile.Kept, Reason: casfile.Missing},
			map[string]string{"src": "a file"}},
		{"delete under a file where its folder was", map[string]string{"src": "a file"}, del("src/a.luau", hash(planned)),
			casfile.Result{Outcome: casfile.Unchanged},
			map[string]string{"src": "a file"}},
		{"replace a file that already holds the new bytes", map[string]string{"a.luau": next}, replace("a.luau", hash(planned), next),
			casfile.Result{Outcome: casfile.Unchanged},
			map[string]string{"a.luau": next}},
		{"replace a folder", map[string]string{"a.luau/x": "x"}, replace("a.luau", hash(planned), next),
			casfile.Result{Outcome: casfile.Kept, Reason: casfile.Changed},
			map[string]string{"a.luau/": "", "a.luau/x": "x"}},
		{"replace with empty bytes", map[string]string{"a.txt": planned}, replace("a.txt", hash(planned), ""),
			casfile.Result{Outcome: casfile.Written, Aside: aside("a.txt")},
			map[string]string{"a.txt": "", aside("a.txt"): planned}},
		{"replace expecting no file where one is", map[string]string{"a.luau": edited}, replace("a.luau", "", next),
			casfile.Result{Outcome: casfile.Kept, Reason: casfile.Exists, Found: hash(edited)},
			map[string]string{"a.luau": edited}},
		{"create with its folders", nil, create("src/deep/a.luau", next),
			casfile.Result{Outcome: casfile.Created},
			map[string]string{"src/": "", "src/deep/": "", "src/deep/a.luau": next}},
		{"create where a file is", map[string]string{"a.luau": edited}, create("a.luau", next),
			casfile.Result{Outcome: casfile.Kept, Reason: casfile.Exists, Found: hash(edited)},
			map[string]string{"a.luau": edited}},
		{"create where the same file is", map[string]string{"a.luau": next}, create("a.luau", next),
			casfile.Result{Outcome: casfile.Unchanged},
			map[string]string{"a.luau": next}},
		{"delete what the plan saw", map[string]string{"src/a.luau": planned}, del("src/a.luau", hash(planned)),
			casfile.Result{Outcome: casfile.Deleted, Aside: aside("src/a.luau")},
			map[string]string{"src/": "", aside("src/a.luau"): planned}},
		{"delete an edited file", map[string]string{"a.luau": edited}, del("a.luau", hash(planned)),
			casfile.Result{Outcome: casfile.Kept, Reason: casfile.Changed, Found: hash(edited)},
			map[string]string{"a.luau": edited}},
		{"delete a deleted file", nil, del("a.luau", hash(planned)),
			casfile.Result{Outcome: casfile.Unchanged},
			map[string]string{}},
		{"delete expecting no file where one is", map[string]string{"a.luau": edited}, del("a.luau", ""),
			casfile.Result{Outcome: casfile.Kept, Reason: casfile.Exists, Found: hash(edited)},
			map[string]string{"a.luau": edited}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			got, err := tt.op(openRoot(t, dir))
			if err != nil {
				t.Fatalf("op = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.after, tree(t, dir)); diff != "" {
				t.Errorf("files after (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix file modes")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"run.sh": "old"})
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	r := openRoot(t, dir)
	if _, err := r.Replace("run.sh", hash("old"), []byte("new"), opts); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create("secret.txt", []byte("s"), casfile.Options{Tag: tag, Mode: 0o600}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fs.FileMode{"run.sh": 0o750, "secret.txt": 0o600} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("mode of %s = %v, want %v", name, got, want)
		}
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.luau": "a"})
	r := openRoot(t, dir)
	tests := []struct {
		name, path, tag string
		code            errcode.Code
		reason          string
	}{
		{"empty path", "", tag, errcode.ProjectInvalid, "bad_path"},
		{"the root", ".", tag, errcode.ProjectInvalid, "bad_path"},
		{"parent", "../a.luau", tag, errcode.ProjectInvalid, "bad_path"},
		{"dot dot inside", "src/../a.luau", tag, errcode.ProjectInvalid, "bad_path"},
		{"absolute", "/a.luau", tag, errcode.ProjectInvalid, "bad_path"},
		{"double slash", "src//a.luau", tag, errcode.ProjectInvalid, "bad_path"},
		{"trailing slash", "src/", tag, errcode.ProjectInvalid, "bad_path"},
		{"no tag", "a.luau", "", errcode.Usage, "bad_tag"},
		{"tag with a slash", "a.luau", "a/b", errcode.Usage, "bad_tag"},
		{"long tag", "a.luau", strings.Repeat("x", 41), errcode.Usage, "bad_tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := casfile.Options{Tag: tt.tag}
			for op, call := range map[string]func() error{
				"Replace": func() error { _, err := r.Replace(tt.path, hash("a"), []byte("b"), o); return err },
				"Create":  func() error { _, err := r.Create(tt.path, []byte("b"), o); return err },
				"Delete":  func() error { _, err := r.Delete(tt.path, hash("a"), o); return err },
				"Discard": func() error { _, err := r.Discard(tt.path, tt.tag, hash("a")); return err },
			} {
				checkRefusal(t, op, call(), tt.code, tt.reason)
			}
			if diff := cmp.Diff(map[string]string{"a.luau": "a"}, tree(t, dir)); diff != "" {
				t.Errorf("files changed (-want +got):\n%s", diff)
			}
		})
	}
}

func checkRefusal(t *testing.T, what string, err error, code errcode.Code, reason string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s = nil, want %s (%s)", what, code, reason)
		return
	}
	e := errcode.As(err)
	if e.Code != code || e.Details["reasonCode"] != reason {
		t.Errorf("%s = %s (%v) %q, want %s (%s)", what, e.Code, e.Details["reasonCode"], e.Message, code, reason)
	}
}

func TestSymlinks(t *testing.T) {
	base := t.TempDir()
	proj, out := filepath.Join(base, "proj"), filepath.Join(base, "out")
	writeFiles(t, base, map[string]string{
		"out/secret.luau": "secret", "out/a.luau": "outside",
		"proj/src/a.luau": "a", "proj/src/b.luau": "b", "proj/shared/s.luau": "s",
	})
	links := map[string]string{
		"proj/away":          "../out",
		"proj/awayabs":       out,
		"proj/src/secret":    "../../out/secret.luau",
		"proj/src/link.luau": "b.luau",
		"proj/src/dangling":  "nothing.luau",
		"proj/chain1":        "chain2",
		"proj/chain2":        "../out",
		"proj/lib":           "src",
		"proj/libabs":        filepath.Join(proj, "src"),
		"proj/src/up":        "../shared",
		"proj/loop1":         "loop2",
		"proj/loop2":         "loop1",
		"proj/sneaky":        "src/../../out",
	}
	for name, target := range links {
		if err := os.Symlink(filepath.FromSlash(target), filepath.Join(base, filepath.FromSlash(name))); err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
	before := tree(t, base)
	r := openRoot(t, proj)

	refused := []struct {
		path   string
		reason string
		is     error
	}{
		{"away/a.luau", "symlink_outside_project", casfile.ErrOutsideRoot},
		{"away/new.luau", "symlink_outside_project", casfile.ErrOutsideRoot},
		{"awayabs/a.luau", "symlink_outside_project", casfile.ErrOutsideRoot},
		{"chain1/a.luau", "symlink_outside_project", casfile.ErrOutsideRoot},
		{"sneaky/a.luau", "symlink_outside_project", casfile.ErrOutsideRoot},
		{"src/secret", "symlink_outside_project", casfile.ErrOutsideRoot},
		{"away", "symlink_outside_project", casfile.ErrOutsideRoot},
		{"src/link.luau", "symlink", casfile.ErrSymlink},
		{"src/dangling", "symlink", casfile.ErrSymlink},
		{"lib", "symlink", casfile.ErrSymlink},
		{"loop1/a.luau", "symlink", nil},
	}
	for _, tt := range refused {
		t.Run("refuse "+tt.path, func(t *testing.T) {
			for op, call := range map[string]func() error{
				"Replace": func() error { _, err := r.Replace(tt.path, hash("outside"), []byte("x"), opts); return err },
				"Create":  func() error { _, err := r.Create(tt.path, []byte("x"), opts); return err },
				"Delete":  func() error { _, err := r.Delete(tt.path, hash("outside"), opts); return err },
				"Hash":    func() error { _, err := r.Hash(tt.path); return err },
				"Check":   func() error { return r.Check(tt.path) },
			} {
				err := call()
				checkRefusal(t, op, err, errcode.ProjectInvalid, tt.reason)
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("%s = %v, want errors.Is %v", op, err, tt.is)
				}
			}
			if diff := cmp.Diff(before, tree(t, base)); diff != "" {
				t.Errorf("files changed (-before +after):\n%s", diff)
			}
		})
	}

	// Links that stay inside are followed for folders: the write lands in the
	// folder they point at, and the aside copy is named by its real place.
	followed := []struct {
		path, real string
	}{
		{"lib/a.luau", "src/a.luau"},
		{"libabs/b.luau", "src/b.luau"},
		{"src/up/s.luau", "shared/s.luau"},
	}
	for _, tt := range followed {
		t.Run("follow "+tt.path, func(t *testing.T) {
			old, err := os.ReadFile(filepath.Join(proj, filepath.FromSlash(tt.real)))
			if err != nil {
				t.Fatal(err)
			}
			if h, err := r.Hash(tt.path); err != nil || h != hash(string(old)) {
				t.Fatalf("Hash(%s) = %s, %v; want %s", tt.path, h, err, hash(string(old)))
			}
			res, err := r.Replace(tt.path, hash(string(old)), []byte("new "+tt.path), opts)
			if err != nil {
				t.Fatalf("Replace(%s) = %v", tt.path, err)
			}
			want := casfile.Result{Outcome: casfile.Written, Aside: aside(tt.real)}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("Replace(%s) (-want +got):\n%s", tt.path, diff)
			}
			if b, _ := os.ReadFile(filepath.Join(proj, filepath.FromSlash(tt.real))); string(b) != "new "+tt.path {
				t.Errorf("%s = %q, want %q", tt.real, b, "new "+tt.path)
			}
		})
	}
	if got := tree(t, out); !cmp.Equal(got, map[string]string{"secret.luau": "secret", "a.luau": "outside"}) {
		t.Errorf("the folder outside the project changed: %v", got)
	}
}

func TestLongNames(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("n", 240) + ".luau"
	writeFiles(t, dir, map[string]string{name: "old"})
	r := openRoot(t, dir)
	res, err := r.Replace(name, hash("old"), []byte("new"), opts)
	if err != nil {
		t.Fatalf("Replace = %v", err)
	}
	if res.Outcome != casfile.Written || len(res.Aside) > 255 || !casfile.IsTemp(res.Aside) {
		t.Errorf("Replace = %+v, want Written with a short temp aside name", res)
	}
	if diff := cmp.Diff(map[string]string{name: "new", res.Aside: "old"}, tree(t, dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		casfile.TempName("a.luau", "tx", ".new"): true,
		casfile.TempName("a.luau", "tx", ".pre"): true,
		".atlas-tx-a.luau":                       false,
		"a.luau.pre":                             false,
		"a.luau":                                 false,
		".atlas-emulator":                        false,
	} {
		if got := casfile.IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}

var errCrash = errors.New("simulated crash")

// TestResume stops each operation after each of its steps, as a killed host
// would, and runs it again with the same tag: the second call finishes it (or
// reports what the user did meanwhile), and no temp file but the pre-image is
// left.
func TestResume(t *testing.T) {
	all := []casfile.Step{casfile.StepStaged, casfile.StepAside, casfile.StepVerified, casfile.StepInstalled}
	type op struct {
		name  string
		steps []casfile.Step // the steps it goes through
		files map[string]string
		run   func(r *casfile.Root) (casfile.Result, error)
		want  casfile.Result
		after map[string]string
	}
	ops := []op{
		{"replace", all, map[string]string{"a.luau": "old"},
			func(r *casfile.Root) (casfile.Result, error) {
				return r.Replace("a.luau", hash("old"), []byte("new"), opts)
			},
			casfile.Result{Outcome: casfile.Written, Aside: aside("a.luau")},
			map[string]string{"a.luau": "new", aside("a.luau"): "old"}},
		{"create", []casfile.Step{casfile.StepStaged, casfile.StepInstalled}, nil,
			func(r *casfile.Root) (casfile.Result, error) { return r.Create("a.luau", []byte("new"), opts) },
			casfile.Result{Outcome: casfile.Created},
			map[string]string{"a.luau": "new"}},
		{"delete", []casfile.Step{casfile.StepAside, casfile.StepVerified}, map[string]string{"a.luau": "old"},
			func(r *casfile.Root) (casfile.Result, error) { return r.Delete("a.luau", hash("old"), opts) },
			casfile.Result{Outcome: casfile.Deleted, Aside: aside("a.luau")},
			map[string]string{aside("a.luau"): "old"}},
	}
	for _, o := range ops {
		for _, stop := range o.steps {
			t.Run(o.name+"/"+stepName(stop), func(t *testing.T) {
				dir := t.TempDir()
				writeFiles(t, dir, o.files)
				r := openRoot(t, dir)
				r.SetHook(func(s casfile.Step) error {
					if s == stop {
						return errCrash
					}
					return nil
				})
				if _, err := o.run(r); !errors.Is(err, errCrash) {
					t.Fatalf("first call = %v, want the crash", err)
				}
				r.SetHook(nil)
				res, err := o.run(r)
				if err != nil {
					t.Fatalf("second call = %v", err)
				}
				want := o.want
				if o.name == "create" && stop == casfile.StepInstalled {
					want = casfile.Result{Outcome: casfile.Unchanged} // it was already there
				}
				if diff := cmp.Diff(want, res); diff != "" {
					t.Errorf("second call (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(o.after, tree(t, dir)); diff != "" {
					t.Errorf("files (-want +got):\n%s", diff)
				}
			})
		}
	}

	// A crash with the old file aside, then the user saves a new file at its
	// path: resuming keeps the user's file and the pre-image both.
	t.Run("replace/user saves while stopped", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"a.luau": "old"})
		r := openRoot(t, dir)
		r.SetHook(func(s casfile.Step) error {
			if s == casfile.StepAside {
				return errCrash
			}
			return nil
		})
		if _, err := r.Replace("a.luau", hash("old"), []byte("new"), opts); !errors.Is(err, errCrash) {
			t.Fatalf("first call = %v, want the crash", err)
		}
		r.SetHook(nil)
		writeFiles(t, dir, map[string]string{"a.luau": "user"})
		res, err := r.Replace("a.luau", hash("old"), []byte("new"), opts)
		if err != nil {
			t.Fatal(err)
		}
		want := casfile.Result{Outcome: casfile.Kept, Reason: casfile.Exists, Found: hash("user"), Aside: aside("a.luau")}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("second call (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]string{"a.luau": "user", aside("a.luau"): "old"}, tree(t, dir)); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
	})
}

func stepName(s casfile.Step) string {
	return map[casfile.Step]string{casfile.StepStaged: "staged", casfile.StepAside: "aside",
		casfile.StepVerified: "verified", casfile.StepInstalled: "installed"}[s]
}

func TestDiscard(t *testing.T) {
	t.Run("pre-image", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"a.luau": "old"})
		r := openRoot(t, dir)
		if _, err := r.Replace("a.luau", hash("old"), []byte("new"), opts); err != nil {
			t.Fatal(err)
		}
		dropped, err := r.Discard("a.luau", tag, hash("old"))
		if err != nil || !dropped {
			t.Errorf("Discard = %v, %v; want true, nil", dropped, err)
		}
		if diff := cmp.Diff(map[string]string{"a.luau": "new"}, tree(t, dir)); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
	})
	t.Run("late write into the aside copy", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"a.luau": "old"})
		r := openRoot(t, dir)
		// An editor opened the file before the swap and writes after it.
		f, err := os.OpenFile(filepath.Join(dir, "a.luau"), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		res, err := r.Replace("a.luau", hash("old"), []byte("new"), opts)
		if err != nil || res.Outcome != casfile.Written {
			t.Fatalf("Replace = %+v, %v", res, err)
		}
		if _, err := f.WriteAt([]byte("late"), 0); err != nil {
			t.Fatal(err)
		}
		dropped, err := r.Discard("a.luau", tag, hash("old"))
		if err != nil || dropped {
			t.Errorf("Discard = %v, %v; want false, nil", dropped, err)
		}
		if diff := cmp.Diff(map[string]string{"a.luau": "new", res.Aside: "late"}, tree(t, dir)); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
	})
	t.Run("staged leftover", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"a.luau": "old"})
		r := openRoot(t, dir)
		r.SetHook(func(s casfile.Step) error { return errCrash })
		if _, err := r.Replace("a.luau", hash("old"), []byte("new"), opts); !errors.Is(err, errCrash) {
			t.Fatalf("Replace = %v, want the crash", err)
		}
		dropped, err := r.Discard("a.luau", tag, hash("old"))
		if err != nil || !dropped {
			t.Errorf("Discard = %v, %v; want true, nil", dropped, err)
		}
		if diff := cmp.Diff(map[string]string{"a.luau": "old"}, tree(t, dir)); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
	})
	t.Run("nothing to discard", func(t *testing.T) {
		r := openRoot(t, t.TempDir())
		for _, name := range []string{"a.luau", "gone/a.luau"} {
			if dropped, err := r.Discard(name, tag, hash("old")); err != nil || !dropped {
				t.Errorf("Discard(%s) = %v, %v; want true, nil", name, dropped, err)
			}
		}
	})
}
