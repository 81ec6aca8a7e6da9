package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/reflection"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/plugin"
)

// PlaceNode is an instance in the emulator's place file.
type PlaceNode struct {
	Name       string         `json:"name"`
	ClassName  string         `json:"className"`
	Properties dom.Properties `json:"properties"`
	Children   []*PlaceNode   `json:"children"`
}

// Find follows names from n, taking the first child with each name; nil when a name
// is missing.
func (n *PlaceNode) Find(names ...string) *PlaceNode {
	for _, name := range names {
		var next *PlaceNode
		for _, c := range n.Children {
			if c.Name == name {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// PlaceFile is the emulator's place format (plugin/README.md).
type PlaceFile struct {
	PlaceID   int64                        `json:"placeId"`
	PlaceName string                       `json:"placeName"`
	Root      *PlaceNode                   `json:"root"`
	Drafts    map[string]string            `json:"drafts,omitempty"`
	Enums     map[string]map[string]uint32 `json:"enums,omitempty"`
	// Context makes the emulator a playtest's "server" or "client" DataModel
	// (read-only; "" is edit); RunMode and Paused are Studio's Run mode and a
	// paused simulation; GameID is game.GameId.
	Context string `json:"context,omitempty"`
	RunMode bool   `json:"runMode,omitempty"`
	Paused  bool   `json:"paused,omitempty"`
	GameID  int64  `json:"gameId,omitempty"`
}

// PlaceFromTree turns an instance tree into a place file; enums used by its
// properties are included so the emulator can build EnumItems.
func PlaceFromTree(root *dom.Instance, name string) *PlaceFile {
	pf, _ := placeFromTree(root, name, nil)
	return pf
}

// placeFromTree is PlaceFromTree taking each script's Source from source, where
// given, when the tree has only the script's hash. A Source source cannot read
// fails it: the place would hold an empty script, which a plan would take for an
// edit made in Studio.
func placeFromTree(root *dom.Instance, name string, source func(*dom.Instance) (dom.Value, error)) (*PlaceFile, error) {
	var failed error
	pf := &PlaceFile{PlaceName: name, Enums: map[string]map[string]uint32{}}
	var conv func(i *dom.Instance) *PlaceNode
	conv = func(i *dom.Instance) *PlaceNode {
		n := &PlaceNode{Name: i.Name, ClassName: i.ClassName, Properties: make(dom.Properties, len(i.Properties)+1), Children: make([]*PlaceNode, 0, len(i.Children))}
		for k, v := range i.Properties.All() {
			n.Properties[k] = v
			if v.Type() == "Enum" {
				if _, enum, ok := dom.PropertyType(i.ClassName, k); ok && enum != "" {
					if e, ok := reflection.LookupEnum(enum); ok {
						pf.Enums[enum] = e.Items
					}
				}
			}
		}
		if _, ok := i.Properties.Lookup("Source"); !ok && source != nil && i.IsScript() && i.RawHash != "" {
			if v, err := source(i); err == nil {
				n.Properties["Source"] = v
			} else if failed == nil {
				failed = fmt.Errorf("read the Source of %s: %w", i.Path(), err)
			}
		}
		for _, c := range i.Children {
			n.Children = append(n.Children, conv(c))
		}
		return n
	}
	pf.Root = conv(root)
	pf.Root.Name = "Game"
	pf.Root.ClassName = "DataModel"
	return pf, failed
}

// InitialPlace is the place the emulator starts with: the project built at the base
// commit (Studio in sync with HEAD), or the disk project when there is no base. The
// disk and base trees it reads are the ones the first plan uses: it loads them
// through the host's caches, holding the Studio lock as a plan does.
func (h *Host) InitialPlace() (*PlaceFile, error) {
	var pf *PlaceFile
	err := h.studio.use(context.Background(), func(*snapshots) error {
		disk, err := h.loadDisk()
		if err != nil {
			return err
		}
		// A disk script whose text the tree let go (texts.go) is read from its file.
		fromFile := func(x *dom.Instance) (dom.Value, error) {
			text, err := h.disk.readText(x)
			return dom.String(text), err
		}
		b, err := h.loadBase("")
		if err != nil || b == nil {
			pf, err = placeFromTree(disk.Root, disk.Name, fromFile)
			return err
		}
		// A base script has only its file's blob id: its text is the disk's when
		// the disk script has that hash, else the commit's file.
		diskIndex := disk.Index()
		pf, err = placeFromTree(b.proj.Root, disk.Name, func(x *dom.Instance) (dom.Value, error) {
			if d := diskIndex[x.ID]; d != nil && d.SourceHash == x.RawHash {
				if v, ok := d.Properties.Lookup("Source"); ok {
					return v, nil
				}
				if v, err := fromFile(d); err == nil {
					return v, nil
				}
			}
			src, err := b.proj.ReadSource(b.fsys, x)
			return dom.String(src), err
		})
		return err
	})
	return pf, err
}

// FindPluginDir finds the folder to run the emulator from: $ATLAS_PLUGIN_DIR (a plugin/
// checkout after 'npm ci', for plugin development), else the emulator this binary
// carries, unpacked into the user's cache folder on first use.
func FindPluginDir(getenv func(string) string) (string, error) {
	if d := getenv("ATLAS_PLUGIN_DIR"); d != "" {
		_, e1 := os.Stat(filepath.Join(d, "emulator", "run.mjs"))
		_, e2 := os.Stat(filepath.Join(d, "node_modules", "luau-web"))
		if e1 == nil && e2 == nil {
			return d, nil
		}
		return "", errcode.New(errcode.NotFound, "ATLAS_PLUGIN_DIR=%s has no emulator/run.mjs with node_modules", d).
			Reason(errcode.ReasonNoEmulator, errcode.NextInstallEmulator)
	}
	return plugin.EmulatorDir(getenv)
}

// Emulator is a running Studio emulator: the real plugin on a mock DataModel.
type Emulator struct {
	cmd *exec.Cmd
	// stdin is the emulator's stdin, held open while it runs (--watch-stdin): when
	// this process ends, even by SIGKILL, the pipe closes and the emulator stops, so
	// it never outlives its parent as a Studio connected to later hosts.
	stdin     io.WriteCloser
	done      chan error
	afterStop func() error
	stopOnce  sync.Once
	stopErr   error
}

// EmulatorOptions start an emulator.
type EmulatorOptions struct {
	PluginDir string
	URL       string
	// Place is the place file to load; Save, if set, is where the place is written on exit.
	Place, Save string
	// MakePlace, when set instead of Place, makes the place file while the emulator
	// starts (Node and its VM take most of a second): the emulator waits for its path
	// on stdin. An error stops the emulator and is StartEmulator's.
	MakePlace func() (string, error)
	Review    string // accept, abort or none
	SessionID string
	// Keep keeps the emulator running when the host shuts down: its plugin reconnects,
	// as Studio's does, to the next host on the URL.
	Keep bool
	// ConnectTimeout bounds the wait for the first connection: 0 is 60 s, below 0 only
	// the context bounds it.
	ConnectTimeout time.Duration
	Logger         *slog.Logger
	// AfterStop, if set, runs once when Stop has seen the emulator exit (e.g. to
	// turn the saved place JSON into a Roblox place file).
	AfterStop func() error
}

// StartEmulator runs `node emulator/run.mjs` and waits until it has connected.
func StartEmulator(ctx context.Context, o EmulatorOptions) (*Emulator, error) {
	node, err := plugin.Node(ctx)
	if err != nil {
		return nil, err
	}
	place := o.Place
	if o.MakePlace != nil {
		place = "-"
	}
	// V8's pool of background threads sized to the machine (Node's default is four):
	// the emulator starts while the host loads the project, and on two cores four
	// threads compiling WebAssembly made that load take a third longer.
	args := []string{"--v8-pool-size=0", filepath.Join(o.PluginDir, "emulator", "run.mjs"), "--url", o.URL, "--place", place}
	if o.Save != "" {
		args = append(args, "--save", o.Save)
	}
	if o.Review != "" {
		args = append(args, "--review", o.Review)
	}
	if o.SessionID != "" {
		args = append(args, "--session-id", o.SessionID)
	}
	if o.Keep {
		args = append(args, "--keep")
	}
	args = append(args, "--watch-stdin")
	cmd := exec.Command(node, args...)
	cmd.Dir = o.PluginDir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = nil
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "start the emulator")
	}
	e := &Emulator{cmd: cmd, stdin: stdin, done: make(chan error, 1), afterStop: o.AfterStop}
	connected := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		once := false
		for sc.Scan() {
			line := sc.Text()
			if o.Logger != nil {
				o.Logger.Info("emulator", "line", line)
			}
			if !once && len(line) >= 19 && line[:19] == "emulator: connected" {
				once = true
				close(connected)
			}
		}
		e.done <- cmd.Wait()
	}()
	if o.MakePlace != nil {
		path, err := o.MakePlace()
		if err != nil {
			stdin.Close() // without a path, the emulator exits
			e.Stop()
			return nil, err
		}
		// The pipe stays open after the path: its end stops the emulator.
		if _, err = io.WriteString(stdin, path+"\n"); err != nil {
			// The pipe closes when the emulator exits: say why it did.
			select {
			case werr := <-e.done:
				return nil, errcode.New(errcode.Internal, "the emulator exited before connecting: %v", werr)
			case <-time.After(5 * time.Second):
				e.Stop()
				return nil, errcode.Wrap(errcode.Internal, err, "give the emulator its place")
			}
		}
	}
	wait := o.ConnectTimeout
	if wait == 0 {
		wait = 60 * time.Second
	}
	var timeout <-chan time.Time
	if wait > 0 {
		timeout = time.After(wait)
	}
	select {
	case <-connected:
		return e, nil
	case err := <-e.done:
		return nil, errcode.New(errcode.Internal, "the emulator exited before connecting: %v", err)
	case <-timeout:
		e.Stop()
		return nil, errcode.New(errcode.StudioTimeout, "the emulator did not connect within %s", wait)
	case <-ctx.Done():
		e.Stop()
		return nil, ctx.Err()
	}
}

// Stop asks the emulator to save and exit, waits for it, then runs AfterStop.
func (e *Emulator) Stop() error {
	e.stopOnce.Do(func() {
		e.stopErr = e.stop()
		if e.afterStop != nil {
			if err := e.afterStop(); err != nil && e.stopErr == nil {
				e.stopErr = err
			}
		}
	})
	return e.stopErr
}

func (e *Emulator) stop() error {
	if e.cmd.Process == nil || e.cmd.ProcessState != nil {
		return nil // never started, or already exited (and waited for)
	}
	defer e.stdin.Close()
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-e.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("emulator exited: %w", err)
		}
		return err
	case <-time.After(10 * time.Second):
		_ = e.cmd.Process.Kill()
		return errors.New("emulator did not stop in 10 s; killed")
	}
}

// Done reports the emulator's exit.
func (e *Emulator) Done() <-chan error { return e.done }

// WritePlace writes a place file as JSON.
func WritePlace(path string, pf *PlaceFile) error {
	b, err := json.Marshal(pf)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
