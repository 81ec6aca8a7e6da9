package host

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/internal/hostlock"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/token"
)

// DefaultPort is where the plugin looks for a host unless told otherwise.
const DefaultPort = 34873

// Options configures a host.
type Options struct {
	Location *project.Location
	StateDir string
	// Port to listen on (127.0.0.1); 0 picks a free one.
	Port    int
	Version string
	Kind    string // "serve" or "mcp"
	Logger  *slog.Logger
	// Prewarm makes the host plan in the background when a Studio connects, so the
	// first plan someone asks for finds warm caches.
	Prewarm bool
	// StudioTimeout bounds how long a command waits for Studio (the Studio lock
	// and every request of it); 0 is bridge.DefaultRequestTimeout (60 s).
	StudioTimeout time.Duration
	// FoldsCase, when set, says whether the project's file system compares names
	// ignoring case, instead of probing it (tests simulate one).
	FoldsCase *bool
	// FrameLimit is the largest frame read from a plugin; 0 is
	// bridge.DefaultReadLimit (64 MiB). It bounds the largest script that syncs.
	FrameLimit int64
}

// Host is the engine for one project. Each lock belongs to the part it guards,
// whose type says what may be locked inside it: the turn (one mutating command at a
// time), then the Studio lock (studioCache), then the leaf locks of the base loader,
// the plan cache and the disk cache.
type Host struct {
	// giveBack is the memory a big plan gives back after its answer (giveBack.soon).
	giveBack giveBack

	opts    Options
	loc     *project.Location
	dir     string // the project's state folder
	key     string
	log     *slog.Logger
	bridge  *bridge.Server
	tokens  *token.Store
	journal *apply.Journal
	// coming is closed once the Studios the host was told to expect (ExpectStudio,
	// comingN of them) have connected or will not; nil when none is expected.
	comingMu sync.Mutex
	coming   chan struct{}
	comingN  int

	// lock is the project's host lock, held from Start to Close: one host per
	// project, and only it recovers transactions.
	lock   *hostlock.Lock
	ln     net.Listener
	srv    *http.Server
	secret string
	port   int

	turn   turn
	studio *studioCache
	bases  *baseLoader
	plans  *planCache
	disk   *diskCache
	// memo carries each plan's comparisons of unchanged subtrees to the next.
	memo   *plan.Memo
	places *places
	// trim gives back the memory plans, applies and drift checks freed, once the host
	// is idle.
	trim  *trimmer
	fold  caseFolding
	execs execTurns
	ids   queriedIDs

	// ctx is the host's lifetime, set by Start and cancelled by Close: the work the
	// host does on its own (recovery, prewarm) runs under it.
	ctx       context.Context
	cancel    context.CancelFunc
	closeOnce sync.Once
	wg        sync.WaitGroup // every goroutine the host starts; Close waits for them
	// untidy makes the first recovery look for committed transactions whose
	// temporary files a killed host left in the project.
	untidy atomic.Bool
	// textIndexes counts the times a read-back indexed every script by hash (texts.go).
	textIndexes atomic.Int64
}

// New prepares a host; Start makes it listen.
func New(opts Options) (*Host, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Kind == "" {
		opts.Kind = "serve"
	}
	h := &Host{opts: opts, loc: opts.Location, log: opts.Logger, turn: newTurn(),
		studio: newStudioCache(), bases: &baseLoader{loc: opts.Location}, plans: &planCache{},
		memo: &plan.Memo{}}
	h.trim = newTrimmer(opts.Logger, h.idle)
	h.key = ProjectKey(h.loc.File)
	h.dir = ProjectStateDir(opts.StateDir, h.loc.File)
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "create state folder").
			Reason(errcode.ReasonStateDir, errcode.NextSetStateDir, errcode.NextFixPermissions)
	}
	tokens, err := token.Open(h.dir, h.key)
	if err != nil {
		return nil, err
	}
	h.tokens = tokens
	h.journal = &apply.Journal{Dir: h.dir + string(os.PathSeparator) + "journal"}
	if opts.StudioTimeout <= 0 {
		opts.StudioTimeout = bridge.DefaultRequestTimeout
		h.opts.StudioTimeout = opts.StudioTimeout
	}
	h.bridge = bridge.NewServer(bridge.Options{HostVersion: opts.Version, Project: h.loc.File, Logger: opts.Logger, RequestTimeout: opts.StudioTimeout,
		ReadLimit: opts.FrameLimit})
	h.places, h.fold.fixed = newPlaces(h.dir), opts.FoldsCase
	h.disk = newDiskCache(h.loc, h.dir, opts.Logger)
	h.bases.build = h.disk.base
	return h, nil
}

// Start takes the project's host lock (a second host gets E_BUSY host_running,
// naming the first's pid and port), listens on 127.0.0.1, registers the host in
// the state dir, and starts finishing open transactions as soon as Studio can show
// what it holds. ctx bounds starting; the host then runs until Close.
func (h *Host) Start(ctx context.Context) (err error) {
	lock, err := hostlock.Acquire(h.dir, hostlock.Holder{PID: os.Getpid(), StartedAt: time.Now().UTC()})
	if err != nil {
		return err
	}
	h.lock = lock
	defer func() {
		if err != nil {
			h.lock.Close()
		}
	}()
	h.restoreStudio()
	h.checkInStepAgainstJournal()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(h.opts.Port)))
	if err != nil {
		return errcode.Wrap(errcode.Busy, err, "listen on port "+strconv.Itoa(h.opts.Port)).
			Reason(errcode.ReasonPortInUse, errcode.NextPickPort)
	}
	h.ln = ln
	h.port = ln.Addr().(*net.TCPAddr).Port
	if err := h.lock.SetPort(h.port); err != nil {
		ln.Close()
		return errcode.Wrap(errcode.Internal, err, "record the host's port")
	}
	mux := http.NewServeMux()
	mux.Handle("/plugin", h.bridge)
	h.routes(mux)
	h.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	h.secret, err = register(h.dir, Registration{PID: os.Getpid(), Port: h.port, URL: h.URL(), ProjectFile: h.loc.File,
		Version: h.opts.Version, StartedAt: time.Now().UTC(), Kind: h.opts.Kind})
	if err != nil {
		ln.Close()
		return errcode.Wrap(errcode.Internal, err, "register host")
	}
	h.untidy.Store(true)
	h.ctx, h.cancel = context.WithCancel(context.WithoutCancel(ctx))
	h.wg.Add(2)
	go func() {
		defer h.wg.Done()
		if err := h.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			h.log.Error("local API stopped", "err", err)
		}
	}()
	go func() {
		defer h.wg.Done()
		h.recoverLoop()
	}()
	if h.studio.restored || exists(inStepFile(h.dir)) || exists(inStepLog(h.dir)) {
		// A Studio was connected to the previous host (it kept its snapshot as it
		// stopped, or its in-step state, killed or not): it may come back.
		h.expectReconnect()
	}
	return nil
}

// checkInStepAgainstJournal lets the kept in-step state go when the journal holds a
// committed transaction made after the state's files were last written: a host killed
// between an apply's commit and its log entry left a state from before that apply.
func (h *Host) checkInStepAgainstJournal() {
	hist, err := h.journal.History()
	if err != nil {
		return
	}
	var newest time.Time
	for _, t := range hist {
		if t.State == "committed" && t.CreatedAt.After(newest) {
			newest = t.CreatedAt
		}
	}
	var written time.Time
	for _, path := range []string{inStepFile(h.dir), inStepLog(h.dir)} {
		if st, err := os.Stat(path); err == nil && st.ModTime().After(written) {
			written = st.ModTime()
		}
	}
	if !written.IsZero() && newest.After(written) {
		h.log.Debug("the kept in-step state is older than the newest transaction: let go", "tx", newest, "state", written)
		h.places.recovered()
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// reconnectGrace is how long a restarted host waits for the Studio its predecessor
// had: the plugin retries with a backoff that grows to 10 s.
const reconnectGrace = 12 * time.Second

// expectReconnect makes commands that find no Studio wait, for reconnectGrace after
// the start, for the Studio the previous host had: the plugin reconnects by itself,
// within its backoff, and a command sent meanwhile would otherwise fail with
// E_STUDIO_NOT_CONNECTED.
func (h *Host) expectReconnect() {
	done := h.ExpectStudio()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer done()
		timer := time.NewTimer(reconnectGrace)
		defer timer.Stop()
		for {
			changed, unsubscribe := h.bridge.Subscribe()
			if len(h.bridge.Sessions()) > 0 {
				unsubscribe()
				return
			}
			select {
			case <-changed:
			case <-timer.C:
				unsubscribe()
				return
			case <-h.ctx.Done():
				unsubscribe()
				return
			}
			unsubscribe()
		}
	}()
}

// idle is the work left for when the host has been idle a moment (the trimmer runs
// it): the disk index after the first load, and the base tree a plan built from a
// commit, go to the state dir, for a restarted host; the trees let go of the script
// texts that can be read again (texts.go); git's object cache is emptied. It reports
// whether it let go of anything, for the trimmer to give back. Not when a command
// holds the Studio lock or waits for it; one that comes meanwhile waits for the
// writes (0.7 s for the base tree at 50,000 scripts).
func (h *Host) idle() (freed bool) {
	if h.ctx == nil {
		return false
	}
	_ = h.studio.useInBackground(h.ctx, func(_ context.Context, snaps *snapshots) error {
		h.disk.writeDueIndex()
		h.disk.saveBase()
		h.saveInStep()
		freed = h.dropTexts(snaps) > 0
		if repo := h.bases.openedRepo(); repo != nil && repo.DropObjectCache() {
			freed = true
		}
		return nil
	})
	return freed
}

// saveBase writes the base tree not yet kept, as the host stops, once the commands
// under way (if any still is, after wait) are done with it.
func (h *Host) saveBase(wait time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_ = h.studio.use(ctx, func(*snapshots) error {
		h.disk.saveBase()
		return nil
	})
}

// URL is the host's base URL.
func (h *Host) URL() string { return "http://127.0.0.1:" + strconv.Itoa(h.port) }

// PluginURL is where the plugin connects.
func (h *Host) PluginURL() string { return "ws://127.0.0.1:" + strconv.Itoa(h.port) + "/plugin" }

// Port is the port the host listens on.
func (h *Host) Port() int { return h.port }

// Bridge is the plugin endpoint (for tests and the emulator).
func (h *Host) Bridge() *bridge.Server { return h.bridge }

// Close stops the host, waits for every goroutine it started, and removes its
// registration.
func (h *Host) Close() error {
	h.closeOnce.Do(func() {
		if h.cancel != nil {
			h.cancel()
		}
		h.trim.close()
		h.disk.close()
		h.bridge.Close()
		if h.srv != nil {
			// Requests under way get a moment to finish; the lifetime is over.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(h.ctx), 2*time.Second)
			h.srv.Shutdown(ctx)
			cancel()
		}
		h.wg.Wait()
		h.saveBase(time.Second)
		if h.lock != nil {
			h.saveStudio()
		}
		unregister(h.dir, os.Getpid())
		if h.lock != nil {
			h.lock.Close()
		}
	})
	return nil
}

// Status reports the project, the host and the connected sessions.
func (h *Host) Status(ctx context.Context) (*StatusData, error) {
	d := &StatusData{
		Project:  ProjectData{Name: h.projectName(), File: h.loc.File, Dir: h.loc.Dir},
		Host:     HostData{PID: os.Getpid(), Port: h.port, URL: h.URL(), Version: h.opts.Version, Kind: h.opts.Kind},
		Sessions: []SessionData{},
	}
	for _, s := range h.bridge.Sessions() {
		d.Sessions = append(d.Sessions, SessionData{ID: s.ID, Context: s.Context, ReadOnly: s.ReadOnly, PlaceID: s.PlaceID, PlaceName: s.PlaceName, PluginVersion: s.PluginVersion, ConnectedAt: s.ConnectedAt,
			PlaceCheck: h.places.check(s)})
	}
	if len(d.Sessions) == 1 {
		d.PlaceCheck = d.Sessions[0].PlaceCheck
	}
	pending, err := h.journal.Pending()
	if err != nil {
		return nil, err
	}
	d.Pending = pending
	return d, nil
}

func (h *Host) projectName() string {
	name := h.loc.DirName()
	_ = h.readDisk(func(p *project.Project) error {
		name = p.Name
		return nil
	})
	return name
}

// loadDisk returns the project as it is on disk, updating the disk cache by what
// changed; sync needs a place project. The caller holds the Studio lock: every
// plan and apply does (readers outside it use readDisk).
func (h *Host) loadDisk() (*project.Project, error) {
	p, err := h.disk.load()
	if err != nil {
		return nil, project.AsCoded(err)
	}
	return p, placeProject(p)
}

// readDisk calls fn with the project as it is on disk, for a caller that does not
// hold the Studio lock; fn must not take it (no update of the cache may wait for
// fn, see diskCache).
func (h *Host) readDisk(fn func(*project.Project) error) error {
	return h.disk.read(func(p *project.Project) error {
		if err := placeProject(p); err != nil {
			return err
		}
		return fn(p)
	})
}

func placeProject(p *project.Project) error {
	if !p.IsPlace() {
		return errcode.New(errcode.ProjectInvalid, "the project's root is a %s, not a DataModel: Atlas syncs place projects", p.Root.ClassName).
			Reason(errcode.ReasonNotAPlace, errcode.NextFixProject)
	}
	return nil
}
