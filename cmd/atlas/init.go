package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
	"github.com/atlas-rbx/atlas/project/syncback"
)

type initFile struct {
	Path     string `json:"path"`
	Blob     string `json:"blob"`               // git blob id of the bytes written
	Replaced bool   `json:"replaced,omitempty"` // an existing file was overwritten (--force)
	Backup   string `json:"backup,omitempty"`   // where its old bytes were kept
}

type initData struct {
	From        string              `json:"from"`
	Dir         string              `json:"dir"`
	Instances   int                 `json:"instances"`
	Files       []initFile          `json:"files"`
	Fallbacks   []syncback.Fallback `json:"fallbacks"`
	Skipped     []string            `json:"skipped"`
	DroppedRefs []string            `json:"droppedRefs"`
	// Others are the files already in the folders the project's files are written
	// to that the place did not give (--force into an existing project): the
	// project holds them too. At most maxOthers.
	Others  []string `json:"others"`
	Journal string   `json:"journal"`
}

// maxOthers bounds initData.Others.
const maxOthers = 1000

// initManifest is the journal of one init: written before the first file and
// completed after the last, so a cut-short init can be inspected and undone.
type initManifest struct {
	initData
	Started  time.Time `json:"started"`
	Finished bool      `json:"finished"`
}

func (a *app) initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "write a Rojo project from an existing place file, or the place open in Studio (Rojo's syncback rules)",
		ArgsUsage: "[DIR]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the place or model to extract (.rbxl, .rbxlx, .rbxm, .rbxmx)"},
			&cli.BoolFlag{Name: "from-studio", Usage: "extract the place open in Studio, through a running host (any project's) and its plugin"},
			&cli.StringFlag{Name: "session", Usage: "with --from-studio: the Studio session, when several are connected"},
			&cli.DurationFlag{Name: "wait", Value: 20 * time.Second, Usage: "with --from-studio and no running host with a Studio: listen for Studio on --port this long (0: do not)"},
			&cli.IntFlag{Name: "port", Value: host.DefaultPort, Usage: "with --from-studio: the port to listen for Studio on (0 picks a free one)"},
			&cli.BoolFlag{Name: "emulate", Usage: "with --from-studio: connect the Studio emulator holding --place instead of Roblox Studio"},
			&cli.StringFlag{Name: "place", Usage: "with --emulate: the place file (.rbxl, .rbxlx) the emulator holds"},
			&cli.StringSliceFlag{Name: "services", Usage: "top-level services to extract (default: " + strings.Join(syncback.DefaultServices, ",") + ")"},
			&cli.BoolFlag{Name: "force", Usage: "overwrite files that already exist (their old bytes are kept in the journal)"},
			jsonFlag,
		},
		Action: a.action("init", func(ctx context.Context, c *cli.Command) error {
			from, fromStudio := c.String("from"), c.Bool("from-studio")
			if (from == "") == !fromStudio {
				return errcode.New(errcode.Usage, "init takes one of --from FILE and --from-studio").Reason(errcode.ReasonBadArgs, errcode.NextFixRequest)
			}
			for _, f := range []string{"session", "wait", "port", "emulate", "place"} {
				if c.IsSet(f) && !fromStudio {
					return errcode.New(errcode.Usage, "--%s goes with --from-studio", f).Reason(errcode.ReasonBadArgs, errcode.NextFixRequest)
				}
			}
			if !fromStudio {
				if !filepath.IsAbs(from) {
					from = filepath.Join(a.cwd, from)
				}
				if !host.IsRobloxFile(from) {
					return errcode.New(errcode.Usage, "--from %q must be a .rbxl, .rbxlx, .rbxm or .rbxmx file", c.String("from")).
						Reason(errcode.ReasonBadInput, errcode.NextFixRequest)
				}
			}
			dir := a.cwd
			if c.Args().Len() > 1 {
				return errcode.New(errcode.Usage, "init takes at most one folder").Reason(errcode.ReasonBadArgs, errcode.NextFixRequest)
			}
			if d := c.Args().First(); d != "" {
				dir = d
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(a.cwd, dir)
				}
			}
			if st, err := os.Stat(dir); err == nil && !st.IsDir() {
				return errcode.New(errcode.Usage, "%s is a file, not a folder: name the folder to write the project in", dir).
					Reason(errcode.ReasonBadArgs, errcode.NextFixRequest)
			}
			var services []string
			for _, s := range c.StringSlice("services") {
				for _, p := range strings.Split(s, ",") {
					if p = strings.TrimSpace(p); p != "" {
						services = append(services, p)
					}
				}
			}
			stateDir, err := a.stateDir()
			if err != nil {
				return err
			}
			var res *syncback.Result
			if fromStudio {
				projectFile := ""
				if c.String("project") != "" {
					loc, err := a.locate(c)
					if err != nil {
						return err
					}
					projectFile = loc.File
				}
				// The same extraction as a place file's: only where the tree
				// comes from differs.
				own := ownOptions{port: int(c.Int("port")), wait: c.Duration("wait"), emulate: c.Bool("emulate"), place: c.String("place")}
				root, name, src, err := a.studioPlace(ctx, stateDir, projectFile, c.String("session"), own)
				if err != nil {
					return err
				}
				from = src
				if res, err = syncback.Extract(root, syncback.Options{Name: name, Services: services}); err != nil {
					return errcode.Wrap(errcode.Internal, err, "extract the place of "+from)
				}
			} else {
				file, err := host.ReadRobloxFile(from)
				if err != nil {
					return err
				}
				name := strings.TrimSuffix(filepath.Base(from), filepath.Ext(from))
				opt := syncback.Options{Name: name, Services: services}
				if ext := strings.ToLower(filepath.Ext(from)); ext == ".rbxm" || ext == ".rbxmx" {
					// A model: its top-level instances are the project root's children.
					res, err = syncback.ExtractModel(file.Root.Children, opt)
				} else {
					res, err = syncback.Extract(file.Root, opt)
				}
				if err != nil {
					return errcode.Wrap(errcode.Internal, err, "extract "+from)
				}
			}
			d, err := writeProject(dir, res, c.Bool("force"), stateDir)
			if err != nil {
				return err
			}
			d.From = from
			var warnings []string
			if d.Instances == 0 {
				warnings = append(warnings, fmt.Sprintf("%s held no instance to write (a model file named as a place, or a place with nothing in the services it maps): the project is empty", from))
			}
			if n := len(d.Others); n > 0 {
				warnings = append(warnings, fmt.Sprintf("%d file(s) already in the folders the new project maps are not the place's (e.g. %s): the project holds them too; remove them for a project that is the place alone", n, d.Others[0]))
			}
			a.emit("init", d, warnings, func(w io.Writer) { printInit(w, d) })
			return nil
		}),
	}
}

// writeProject writes the extracted files into dir. Without force it refuses,
// writing nothing, when any of them exists. Each file is written atomically; the
// journal lists every file (with the old bytes of those replaced).
func writeProject(dir string, res *syncback.Result, force bool, stateDir string) (*initData, error) {
	d := &initData{Dir: dir, Instances: res.Instances, Fallbacks: res.Fallbacks, Skipped: res.Skipped, DroppedRefs: res.DroppedRefs,
		Files: []initFile{}}
	if d.Fallbacks == nil {
		d.Fallbacks = []syncback.Fallback{}
	}
	if d.Skipped == nil {
		d.Skipped = []string{}
	}
	if d.DroppedRefs == nil {
		d.DroppedRefs = []string{}
	}
	d.Others = otherFiles(dir, res)
	var existing []string
	for _, f := range res.Files {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.Path))); err == nil {
			existing = append(existing, f.Path)
		}
	}
	if len(existing) > 0 && !force {
		shown := existing
		if len(shown) > 10 {
			shown = shown[:10]
		}
		return nil, errcode.New(errcode.PreconditionFailed, "%d file(s) of the project already exist in %s (e.g. %s); nothing was written", len(existing), dir, strings.Join(shown, ", ")).
			With("files", existing).Reason(errcode.ReasonFilesExist, errcode.NextPassForce)
	}
	var id [6]byte
	_, _ = rand.Read(id[:])
	jdir := filepath.Join(stateDir, "init", time.Now().UTC().Format("20060102T150405Z")+"-"+hex.EncodeToString(id[:]))
	if err := os.MkdirAll(jdir, 0o700); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "create the journal")
	}
	d.Journal = filepath.Join(jdir, "manifest.json")
	m := &initManifest{Started: time.Now().UTC()}
	for _, f := range res.Files {
		rec := initFile{Path: f.Path, Blob: gitblob.Hash(f.Data)}
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		if old, err := os.ReadFile(target); err == nil {
			rec.Replaced = true
			rec.Backup = filepath.Join(jdir, "backup", filepath.FromSlash(f.Path))
			if err := writeDurable(rec.Backup, old); err != nil {
				return nil, errcode.Wrap(errcode.Internal, err, "keep the old "+f.Path)
			}
		}
		d.Files = append(d.Files, rec)
	}
	m.initData = *d
	if err := writeManifest(d.Journal, m); err != nil {
		return nil, err
	}
	if err := writeAll(dir, res.Files, force); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "write the project (the journal "+d.Journal+" lists its files)")
	}
	m.Finished = true
	if err := writeManifest(d.Journal, m); err != nil {
		return nil, err
	}
	return d, nil
}

// writeAll writes the files in two phases: every file's bytes go to a temp file
// beside it and are synced (in parallel: one fsync after another is what makes a
// big extraction slow), and only when all are on disk are they moved into place,
// over existing files only with force (a file created since the check is never
// replaced). A failure in the first phase leaves nothing behind.
func writeAll(dir string, files []syncback.File, force bool) error {
	temps := make([]string, len(files))
	errs := make([]error, len(files))
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, filepath.FromSlash(f.Path))), 0o755); err != nil {
			return err
		}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				temps[i], errs[i] = atomicfile.Temp(filepath.Join(dir, filepath.FromSlash(files[i].Path)), files[i].Data, atomicfile.UmaskMode)
			}
		}()
	}
	for i := range files {
		work <- i
	}
	close(work)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, t := range temps {
			if t != "" {
				os.Remove(t)
			}
		}
		return err
	}
	dirs := map[string]bool{}
	for i, f := range files {
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := atomicfile.Place(temps[i], target, force); err != nil {
			for _, t := range temps[i:] {
				os.Remove(t)
			}
			return err
		}
		dirs[filepath.Dir(target)] = true
	}
	for d := range dirs {
		if err := atomicfile.SyncDir(d); err != nil {
			return err
		}
	}
	return nil
}

func writeManifest(p string, m *initManifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "journal")
	}
	if err := writeDurable(p, append(b, '\n')); err != nil {
		return errcode.Wrap(errcode.Internal, err, "write the journal")
	}
	return nil
}

// writeDurable writes a file of the journal durably, creating its folder.
func writeDurable(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

func printInit(w io.Writer, d *initData) {
	fmt.Fprintf(w, "wrote %d files for %d instances into %s\n", len(d.Files), d.Instances, d.Dir)
	for _, f := range d.Fallbacks {
		fmt.Fprintf(w, "model file: %s -> %s (%s)\n", f.Instance, f.File, f.Reason)
	}
	var notSynced []string
	for _, s := range d.Skipped {
		if name, ok := strings.CutSuffix(s, syncback.NotSynced); ok {
			notSynced = append(notSynced, name)
			continue
		}
		fmt.Fprintf(w, "skipped: %s\n", s)
	}
	if len(notSynced) > 0 {
		fmt.Fprintf(w, "skipped %d top-level instances that are not synced services (--services includes them): %s\n", len(notSynced), strings.Join(notSynced, ", "))
	}
	for _, r := range d.DroppedRefs {
		fmt.Fprintf(w, "ref not kept: %s (a project file cannot point at an instance)\n", r)
	}
	replaced := 0
	for _, f := range d.Files {
		if f.Replaced {
			replaced++
		}
	}
	if replaced > 0 {
		fmt.Fprintf(w, "replaced %d existing file(s); their old bytes are in the journal\n", replaced)
	}
	fmt.Fprintf(w, "journal: %s\n", d.Journal)
}

// otherFiles lists the files under the folders res writes into (below dir, by slash
// path, sorted) that res does not write, and the project files of other projects
// beside its own: what a project written over an existing one holds besides the place.
func otherFiles(dir string, res *syncback.Result) []string {
	ours := map[string]bool{}
	tops := map[string]bool{}
	for _, f := range res.Files {
		ours[f.Path] = true
		if top, _, ok := strings.Cut(f.Path, "/"); ok {
			tops[top] = true
		}
	}
	out := []string{}
	for top := range tops {
		_ = filepath.WalkDir(filepath.Join(dir, top), func(path string, e fs.DirEntry, err error) error {
			if err != nil || len(out) >= maxOthers {
				return filepath.SkipDir
			}
			if e.Type().IsRegular() {
				if rel, err := filepath.Rel(dir, path); err == nil && !ours[filepath.ToSlash(rel)] {
					out = append(out, filepath.ToSlash(rel))
				}
			}
			return nil
		})
	}
	slices.Sort(out)
	return out
}
