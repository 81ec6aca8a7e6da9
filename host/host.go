package host

import (
	"context"
	"errors"
	"io/fs"
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
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
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
}

// Host is the engine for one project.
type Host struct {
	opts    Options
	loc     *project.Location
	dir     string // the project's state folder
	key     string
	log     *slog.Logger
	bridge  *bridge.Server
	tokens  *token.Store
	journal *apply.Journal

	ln     net.Listener
	srv    *http.Server
	secret string
	port   int

	// turn serializes mutating commands (apply, undo, recovery): a token in it is the
	// turn. A command waits briefly for it, then gets E_BUSY.
	turn chan struct{}

	cacheMu sync.Mutex
	plans   []*cachedPlan // recent plans, newest last
	base    *baseCache
	// baseMu guards the cached base tree while a plan resolves and reads it, and last.
	baseMu sync.Mutex
	last   *lastPlan

	disk *diskCache
	// srcMu serializes snapshots, and is held by whoever uses a snapshot's handles
	// (apply, undo) until done; sources are the latest plan snapshot's scripts.
	srcMu   sync.Mutex
	sources sourceCache

	closed chan struct{}
	wg     sync.WaitGroup
}

type cachedPlan struct {
	plan *plan.Plan
	base string
}

type baseCache struct {
	commit string
	ref    string
	fsys   fs.FS
	proj   *project.Project
	// resolved is set once every base script has its Source hash.
	resolved *atomic.Bool
}

// New prepares a host; Start makes it listen.
func New(opts Options) (*Host, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Kind == "" {
		opts.Kind = "serve"
	}
	h := &Host{opts: opts, loc: opts.Location, log: opts.Logger, closed: make(chan struct{}), turn: make(chan struct{}, 1)}
	h.key = ProjectKey(h.loc.File)
	h.dir = ProjectStateDir(opts.StateDir, h.loc.File)
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "create state folder")
	}
	tokens, err := token.Open(h.dir, h.key)
	if err != nil {
		return nil, err
	}
	h.tokens = tokens
	h.journal = &apply.Journal{Dir: h.dir + string(os.PathSeparator) + "journal"}
	h.bridge = bridge.NewServer(bridge.Options{HostVersion: opts.Version, Project: h.loc.File, Logger: opts.Logger})
	h.disk = newDiskCache(h.loc.Dir, h.dir, opts.Logger)
	return h, nil
}

// Start listens on 127.0.0.1, registers the host in the state dir, and starts
// finishing open transactions as soon as Studio can say what it applied.
func (h *Host) Start(ctx context.Context) error {
	if reg, err := readRegistration(h.dir); err == nil && reg.PID != os.Getpid() && processAlive(reg.PID) {
		if c, err := Dial(h.opts.StateDir, h.loc.File); err == nil {
			if _, err := c.Status(ctx); err == nil {
				return errcode.New(errcode.Busy, "a host for this project is already running (pid %d, port %d)", reg.PID, reg.Port).
					Reason("host_running", "use the running host, or stop it first")
			}
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(h.opts.Port)))
	if err != nil {
		return errcode.Wrap(errcode.Busy, err, "listen on port "+strconv.Itoa(h.opts.Port)).
			Reason("port_in_use", "pass --port 0 to pick a free port, or stop what uses the port")
	}
	h.ln = ln
	h.port = ln.Addr().(*net.TCPAddr).Port
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
	return nil
}

// URL is the host's base URL.
func (h *Host) URL() string { return "http://127.0.0.1:" + strconv.Itoa(h.port) }

// PluginURL is where the plugin connects.
func (h *Host) PluginURL() string { return "ws://127.0.0.1:" + strconv.Itoa(h.port) + "/plugin" }

// Port is the port the host listens on.
func (h *Host) Port() int { return h.port }

// Bridge is the plugin endpoint (for tests and the emulator).
func (h *Host) Bridge() *bridge.Server { return h.bridge }

// Close stops the host and removes its registration.
func (h *Host) Close() error {
	select {
	case <-h.closed:
		return nil
	default:
	}
	close(h.closed)
	h.disk.close()
	h.bridge.Close()
	if h.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		h.srv.Shutdown(ctx)
	}
	h.wg.Wait()
	unregister(h.dir, os.Getpid())
	return nil
}

// recoverLoop finishes or rolls back open transactions whenever a Studio session
// (re)connects.
func (h *Host) recoverLoop() {
	ch, stop := h.bridge.Subscribe()
	defer stop()
	h.recoverPending()
	for {
		select {
		case <-h.closed:
			return
		case <-ch:
			h.recoverPending()
			h.prewarm()
		}
	}
}

// prewarm computes a plan in the background when a Studio connects, so the disk,
// base and Studio caches are warm by the time someone asks. It writes nothing, and
// a plan asked meanwhile simply waits for the snapshot under way and reuses it.
func (h *Host) prewarm() {
	if !h.opts.Prewarm || len(h.bridge.Sessions()) != 1 {
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		go func() {
			select {
			case <-h.closed:
				cancel()
			case <-ctx.Done():
			}
		}()
		if _, err := h.compute(ctx, "", ""); err != nil {
			h.log.Debug("prewarm", "err", err)
		}
	}()
}

func (h *Host) recoverPending() {
	// Never alongside an apply: its own record is open while it runs.
	select {
	case h.turn <- struct{}{}:
	default:
		return
	}
	defer func() { <-h.turn }()
	h.recoverLocked()
}

// recoverLocked finishes open transactions; the caller has the turn.
func (h *Host) recoverLocked() {
	pending, err := h.journal.Pending()
	if err != nil || len(pending) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done, err := h.journal.Recover(ctx, func(id string) apply.Studio {
		if s, err := h.bridge.Session(id); err == nil && id != "" {
			return &sessionStudio{s: s}
		}
		return nil
	})
	if err != nil {
		h.log.Warn("could not finish open transactions yet", "err", err)
	}
	for _, d := range done {
		h.log.Info("finished open transaction", "txId", d.TxID, "state", d.State)
	}
}

// sessionStudio adapts a bridge session to apply.Studio.
type sessionStudio struct{ s *bridge.Session }

func (a *sessionStudio) Apply(ctx context.Context, txID string, ops []protocol.Op) error {
	_, err := a.s.Apply(ctx, protocol.ApplyParams{TxID: txID, Ops: ops})
	if err != nil {
		ce := errcode.As(err)
		if _, ok := ce.Details["reasonCode"]; !ok {
			switch ce.Code {
			case errcode.PreconditionFailed:
				ce.Reason("studio_moved", "something changed in Studio: run 'atlas sync plan' again")
			case errcode.NotFound:
				ce.Reason("studio_moved", "an instance left Studio: run 'atlas sync plan' again")
			case errcode.ApplyFailed:
				ce.Reason("studio_apply_failed", "Studio rolled the change back; see details and plan again")
			}
		}
		return ce
	}
	return nil
}

func (a *sessionStudio) Transactions(ctx context.Context) ([]string, error) {
	res, err := a.s.Transactions(ctx)
	if err != nil {
		return nil, err
	}
	return res.TxIDs, nil
}

func sessionData(s *bridge.Session) SessionData {
	i := s.Info()
	return SessionData{ID: i.ID, PlaceID: i.PlaceID, PlaceName: i.PlaceName, PluginVersion: i.PluginVersion, ConnectedAt: i.ConnectedAt}
}

// takeTurn waits up to a second for the turn: long enough for a short recovery to
// finish, short enough that a second apply is told at once that one is running.
func (h *Host) takeTurn(ctx context.Context) bool {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case h.turn <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// Status reports the project, the host and the connected sessions.
func (h *Host) Status(ctx context.Context) (*StatusData, error) {
	d := &StatusData{
		Project:  ProjectData{Name: h.projectName(), File: h.loc.File, Dir: h.loc.Dir},
		Host:     HostData{PID: os.Getpid(), Port: h.port, URL: h.URL(), Version: h.opts.Version, Kind: h.opts.Kind},
		Sessions: []SessionData{},
	}
	for _, s := range h.bridge.Sessions() {
		d.Sessions = append(d.Sessions, SessionData{ID: s.ID, PlaceID: s.PlaceID, PlaceName: s.PlaceName, PluginVersion: s.PluginVersion, ConnectedAt: s.ConnectedAt})
	}
	pending, err := h.journal.Pending()
	if err != nil {
		return nil, err
	}
	d.Pending = pending
	return d, nil
}

func (h *Host) projectName() string {
	p, err := h.loadDisk()
	if err != nil {
		return h.loc.DirName()
	}
	return p.Name
}

// loadDisk loads the project from disk, or reuses the last load while nothing under
// the project folder changed; sync needs a place project.
func (h *Host) loadDisk() (*project.Project, error) {
	p, gen := h.disk.get()
	if p == nil {
		var err error
		if p, err = project.LoadDisk(h.loc); err != nil {
			return nil, project.AsCoded(err)
		}
		h.disk.put(p, gen)
	}
	if !p.IsPlace() {
		return nil, errcode.New(errcode.ProjectInvalid, "the project's root is a %s, not a DataModel: Atlas syncs place projects", p.Root.ClassName).
			Reason("not_a_place", `set "$className": "DataModel" on the project's tree`)
	}
	return p, nil
}

// loadBase builds the project at rev (default HEAD). No repository, an unborn HEAD,
// or a commit without the project file is "no base": (nil, nil).
func (h *Host) loadBase(rev string) (*baseCache, error) {
	repo, err := gitblob.Discover(h.loc.Dir)
	if errors.Is(err, gitblob.ErrNoRepo) {
		return nil, nil
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "open git repository")
	}
	commit, err := repo.Resolve(rev)
	if errors.Is(err, gitblob.ErrNoBase) {
		return nil, nil
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.NotFound, err, "resolve base revision "+strconv.Quote(rev)).
			Reason("bad_revision", "pass --base with a branch, tag or commit that exists")
	}
	ref := rev
	if rev == "" || rev == "HEAD" {
		if r, err := repo.HeadRef(); err == nil && r != "" {
			ref = r
		} else {
			ref = "HEAD"
		}
	}
	h.cacheMu.Lock()
	if h.base != nil && h.base.commit == commit {
		b := *h.base
		h.cacheMu.Unlock()
		b.ref = ref
		return &b, nil
	}
	h.cacheMu.Unlock()
	fsys, err := repo.CommitFS(commit)
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "read commit "+commit)
	}
	if _, err := fs.Stat(fsys, h.loc.FileInFS); err != nil {
		return nil, nil // the project file is not committed yet
	}
	p, err := project.Load(fsys, h.loc.FileInFS, project.Options{DirName: h.loc.DirName(), HashOnly: true})
	if err != nil {
		return nil, errcode.Wrap(errcode.ProjectInvalid, err, "load the project at base commit "+commit[:12]).
			Reason("base_invalid", "pass --base with a commit whose project loads")
	}
	b := &baseCache{commit: commit, ref: ref, fsys: fsys, proj: p, resolved: new(atomic.Bool)}
	h.cacheMu.Lock()
	h.base = b
	h.cacheMu.Unlock()
	return b, nil
}

// resolveBaseHashes gives base scripts their Source hash. The commit's tree holds
// the hash of each file's bytes; that equals the Source hash unless the file has
// CRLF line endings, so a blob is read only when neither side matches it.
func resolveBaseHashes(b *baseCache, disk, studio *dom.Instance) {
	if b == nil || b.resolved.Load() {
		return // every base script got its hash on an earlier plan
	}
	defer b.resolved.Store(true)
	d, s := disk.Index(), map[string]*dom.Instance{}
	if studio != nil {
		s = studio.Index()
	}
	b.proj.Root.Walk(func(x *dom.Instance) bool {
		if !x.IsScript() || x.SourceHash != "" || x.RawHash == "" {
			return true
		}
		if di := d[x.ID]; di != nil && di.SourceHash == x.RawHash {
			x.SourceHash = x.RawHash
			return true
		}
		if si := s[x.ID]; si != nil && si.SourceHash == x.RawHash {
			x.SourceHash = x.RawHash
			return true
		}
		data, err := fs.ReadFile(b.fsys, joinFS(b.proj.Dir, x.FsPath))
		if err != nil {
			x.SourceHash = x.RawHash
			return true
		}
		src := project.NormalizeSource(string(data))
		x.Properties["Source"] = dom.String(src)
		x.SourceHash = gitblob.Hash([]byte(src))
		return true
	})
}

func joinFS(dir, rel string) string {
	if dir == "" {
		return rel
	}
	return dir + "/" + rel
}

func (h *Host) session(id string) (*bridge.Session, error) {
	s, err := h.bridge.Session(id)
	if err != nil {
		ce := errcode.As(err)
		if ce.Code == errcode.StudioNotConnected {
			ce.Reason("no_studio", "open the place in Roblox Studio with the Atlas plugin, or run 'atlas serve --emulate'")
		} else if ce.Code == errcode.StudioAmbiguous {
			ce.Reason("several_studios", "pass --session ID (see 'atlas status')")
		}
		return nil, ce
	}
	return s, nil
}

// computed is a fresh plan with everything it was computed from.
type computed struct {
	plan    *plan.Plan
	disk    *project.Project
	studio  *dom.Instance
	base    *baseCache
	session *bridge.Session
}

// lastPlan is the latest computed plan with what it was computed from: the same
// disk project, Studio tree and base give the same plan without computing it again.
type lastPlan struct {
	disk    *project.Project
	studio  *dom.Instance
	commit  string
	ref     string
	session string
	plan    *plan.Plan
}

// compute reads disk, base and Studio, and computes the plan.
func (h *Host) compute(ctx context.Context, sessionID, baseRev string) (*computed, error) {
	h.srcMu.Lock()
	defer h.srcMu.Unlock()
	return h.computeLocked(ctx, sessionID, baseRev)
}

// computeLocked is compute for a caller that holds srcMu: a snapshot replaces the
// plugin's handles, so whoever will use a snapshot's handles (apply) holds srcMu
// until it is done with them.
func (h *Host) computeLocked(ctx context.Context, sessionID, baseRev string) (*computed, error) {
	s, err := h.session(sessionID)
	if err != nil {
		return nil, err
	}
	// Disk and base are independent: read them side by side.
	var base *baseCache
	var baseErr error
	baseDone := make(chan struct{})
	go func() {
		defer close(baseDone)
		base, baseErr = h.loadBase(baseRev)
	}()
	disk, err := h.loadDisk()
	<-baseDone
	if err != nil {
		return nil, err
	}
	if baseErr != nil {
		return nil, baseErr
	}
	var baseRoot *dom.Instance
	if base != nil {
		baseRoot = base.proj.Root
	}
	studio, err := snapshotWith(ctx, s, scope(disk.Root, baseRoot), &h.sources, disk.Index(), true)
	if err != nil {
		return nil, err
	}
	in := plan.Input{Disk: disk.Root, Studio: studio, Base: baseRoot, SessionID: s.Info().ID}
	if base != nil {
		in.BaseCommit, in.BaseRef = base.commit, base.ref
	}
	// The base tree is shared by every plan and resolving its hashes writes to it.
	h.baseMu.Lock()
	defer h.baseMu.Unlock()
	if lp := h.last; lp != nil && lp.disk == disk && lp.studio == studio && lp.commit == in.BaseCommit &&
		lp.ref == in.BaseRef && lp.session == in.SessionID {
		return &computed{plan: lp.plan, disk: disk, studio: studio, base: base, session: s}, nil
	}
	resolveBaseHashes(base, disk.Root, studio)
	p := plan.Compute(in)
	h.last = &lastPlan{disk: disk, studio: studio, commit: in.BaseCommit, ref: in.BaseRef, session: in.SessionID, plan: p}
	return &computed{plan: p, disk: disk, studio: studio, base: base, session: s}, nil
}

func (h *Host) remember(p *plan.Plan, base string) {
	h.cacheMu.Lock()
	defer h.cacheMu.Unlock()
	h.plans = append(h.plans, &cachedPlan{plan: p, base: base})
	if len(h.plans) > 16 {
		h.plans = h.plans[len(h.plans)-16:]
	}
}

func (h *Host) recall(hash string) *cachedPlan {
	h.cacheMu.Lock()
	defer h.cacheMu.Unlock()
	for i := len(h.plans) - 1; i >= 0; i-- {
		if h.plans[i].plan.Hash == hash {
			return h.plans[i]
		}
	}
	return nil
}

// Plan computes a plan and issues its confirm token.
func (h *Host) Plan(ctx context.Context, req PlanRequest) (*PlanData, error) {
	c, err := h.compute(ctx, req.SessionID, req.Base)
	if err != nil {
		return nil, err
	}
	h.remember(c.plan, req.Base)
	tok, claims, err := h.tokens.Issue(c.plan.Hash, c.plan.SessionID, req.TTL, time.Now())
	if err != nil {
		return nil, err
	}
	d := &PlanData{
		PlanHash: c.plan.Hash, ConfirmToken: tok, ExpiresAt: claims.ExpiresAt.UTC(),
		Base:    BaseData{Commit: c.plan.BaseCommit, Ref: c.plan.BaseRef},
		Session: sessionData(c.session), Summary: c.plan.Summary(), Changes: c.plan.Changes,
		Warnings: c.disk.Warnings,
	}
	if c.base == nil {
		d.Warnings = append(d.Warnings, "no base commit (no git repository, no commit yet, or the project file is not committed): every difference is unresolved")
	}
	if req.Sources {
		d.Sources = sourcesOf(c)
	}
	return d, nil
}

func sourcesOf(c *computed) map[string]ChangeSources {
	out := map[string]ChangeSources{}
	for _, ch := range c.plan.Changes {
		var cs ChangeSources
		any := false
		for _, side := range []struct {
			i   *dom.Instance
			dst **string
		}{{ch.Disk, &cs.Disk}, {ch.Studio, &cs.Studio}, {ch.Base, &cs.Base}} {
			if side.i == nil {
				continue
			}
			if src, ok := side.i.Source(); ok {
				s := src
				*side.dst = &s
				any = true
			}
		}
		if any {
			out[ch.ID] = cs
		}
	}
	return out
}

// Apply runs the apply transaction.
func (h *Host) Apply(ctx context.Context, req ApplyRequest) (*ApplyData, error) {
	if !h.takeTurn(ctx) {
		return nil, errcode.New(errcode.Busy, "another apply is running for this project").
			Reason("busy", "wait for it to finish and plan again")
	}
	defer func() { <-h.turn }()
	if req.Token == "" {
		return nil, errcode.New(errcode.ConfirmTokenRequired, "a confirm token is required").
			Reason("token_required", "run 'atlas sync plan' and pass its confirmToken with --token")
	}
	if pending, err := h.journal.Pending(); err == nil && len(pending) > 0 {
		h.recoverLocked()
		if pending, _ = h.journal.Pending(); len(pending) > 0 {
			return nil, errcode.New(errcode.Busy, "transaction %s is still open: Studio has not said whether it applied it", pending[0].TxID).
				Reason("transaction_pending", "reconnect Studio so Atlas can finish or roll it back", "run 'atlas status'").
				With("pending", pending)
		}
	}
	s, err := h.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	baseRev := ""
	t := &apply.Txn{
		Tokens:    h.tokens,
		Studio:    &sessionStudio{s: s},
		Journal:   h.journal,
		SessionID: s.Info().ID,
		PreviousPlan: func(hash string) *plan.Plan {
			if cp := h.recall(hash); cp != nil {
				return cp.plan
			}
			return nil
		},
	}
	t.Recompute = func(ctx context.Context) (*apply.State, error) {
		// The disk cache is safe here: its barrier makes every change made before
		// this call visible, and every file apply writes is checked against the
		// hash the plan saw before it is replaced.
		// Studio may answer "unchanged" here too: every Studio op still carries the
		// Source hash and values it overwrites, and every file write the hash the plan
		// saw, so an edit the plugin failed to report is refused, never overwritten.
		c, err := h.computeLocked(ctx, s.Info().ID, baseRev)
		if err != nil {
			return nil, err
		}
		return &apply.State{Plan: c.plan, Project: c.disk, FS: os.DirFS(h.loc.Dir), Dir: h.loc.Dir, Studio: c.studio}, nil
	}
	// The token names the plan; the plan names its base. Recompute against the same base.
	if claims, err := h.tokens.Peek(req.Token); err == nil {
		if cp := h.recall(claims.PlanHash); cp != nil {
			baseRev = cp.base
		}
	}
	// No other snapshot may replace the handles between the recompute and the patch.
	h.srcMu.Lock()
	res, err := t.Run(ctx, apply.Request{Token: req.Token, Overrides: req.Overrides, SkipUnresolved: req.SkipUnresolved})
	h.srcMu.Unlock()
	if err != nil {
		return nil, err
	}
	return &ApplyData{Result: *res, Session: sessionData(s)}, nil
}

// Script reads a script as Studio has it, found by id or by its file.
func (h *Host) Script(ctx context.Context, req ScriptRequest) (*ScriptData, error) {
	if (req.ID == "") == (req.FsPath == "") {
		return nil, errcode.New(errcode.BadRequest, "give exactly one of id or fsPath").Reason("bad_request", "pass --id ID or --fs-path PATH")
	}
	s, err := h.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	disk, err := h.loadDisk()
	if err != nil {
		return nil, err
	}
	var target *dom.Instance
	if req.ID != "" {
		target = disk.Root.Index()[req.ID]
		if target == nil {
			if base, _ := h.loadBase(""); base != nil {
				target = base.proj.Root.Index()[req.ID]
			}
		}
		if target == nil {
			// Maybe a Studio-only instance: look it up in a snapshot of what the project manages.
			var baseRoot *dom.Instance
			if base, _ := h.loadBase(""); base != nil {
				baseRoot = base.proj.Root
			}
			h.srcMu.Lock()
			studio, err := snapshot(ctx, s, scope(disk.Root, baseRoot))
			h.srcMu.Unlock()
			if err != nil {
				return nil, err
			}
			target = studio.Index()[req.ID]
		}
		if target == nil {
			return nil, errcode.New(errcode.NotFound, "no instance with id %s", req.ID).
				Reason("not_found", "use an id from 'atlas sync plan' or 'atlas tree --json'")
		}
	} else {
		rel, err := h.relPath(req.FsPath)
		if err != nil {
			return nil, err
		}
		disk.Root.Walk(func(x *dom.Instance) bool {
			if target == nil && x.FsPath == rel {
				target = x
			}
			return target == nil
		})
		if target == nil {
			return nil, errcode.New(errcode.NotFound, "no instance comes from %s", rel).
				Reason("not_found", "pass the path of a script file in the project")
		}
	}
	if !dom.IsScriptClass(target.ClassName) {
		return nil, errcode.New(errcode.NotAScript, "%s is a %s, not a script", target.Path(), target.ClassName).
			Reason("not_a_script", "pass the id or file of a Script, LocalScript or ModuleScript")
	}
	res, err := s.GetScript(ctx, protocol.GetScriptParams{Path: target.PathNames(), Draft: req.Draft})
	if err != nil {
		return nil, err
	}
	return &ScriptData{ID: target.ID, FsPath: target.FsPath, InstancePath: target.Path(), ClassName: res.ClassName,
		Source: res.Source, StudioHash: gitblob.Hash([]byte(res.Source)), IsDraft: res.IsDraft}, nil
}

// relPath turns a user's path (absolute, or relative to the project folder) into a
// project-relative path, refusing anything outside the project.
func (h *Host) relPath(p string) (string, error) {
	abs := p
	if !isAbs(p) {
		abs = h.loc.Abs(p)
	}
	rel, ok := within(h.loc.Dir, abs)
	if !ok {
		return "", errcode.New(errcode.NotFound, "%s is outside the project folder %s", p, h.loc.Dir).
			Reason("outside_project", "pass a path inside the project")
	}
	return rel, nil
}

// Exec runs Luau code in Studio.
func (h *Host) Exec(ctx context.Context, req ExecRequest) (*ExecData, error) {
	s, err := h.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	r, err := s.Exec(ctx, protocol.ExecParams{Code: req.Code})
	if err != nil {
		return nil, err
	}
	res := &ExecData{Success: r.Success, Output: []OutputLine{}, Returns: r.Returns, Error: r.Error}
	for _, l := range r.Output {
		res.Output = append(res.Output, OutputLine{Level: l.Level, Text: l.Text})
	}
	if res.Returns == nil {
		res.Returns = []string{}
	}
	return res, nil
}

// Review sends changes to the plugin's review panel and waits for the person.
func (h *Host) Review(ctx context.Context, req ReviewRequest) (*ReviewData, error) {
	s, err := h.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	// A person answers a review: allow them time, past the usual request timeout.
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	r, err := s.Review(ctx, protocol.ReviewParams{PlanHash: req.PlanHash, Changes: req.Changes, Mode: protocol.ReviewMode(req.Mode)})
	if err != nil {
		return nil, err
	}
	res := &ReviewData{Decision: string(r.Decision), Selections: r.Selections}
	if res.Selections == nil {
		res.Selections = map[string]plan.Direction{}
	}
	return res, nil
}

var _ Engine = (*Host)(nil)

// Undo puts back what a committed transaction overwrote, on disk and in Studio.
func (h *Host) Undo(ctx context.Context, req UndoRequest) (*apply.UndoResult, error) {
	if !h.takeTurn(ctx) {
		return nil, errcode.New(errcode.Busy, "another apply is running for this project").Reason("busy", "wait for it to finish")
	}
	defer func() { <-h.turn }()
	var studio apply.Studio
	var loc apply.Locator = noStudio{}
	if s, err := h.session(req.SessionID); err == nil {
		studio = &sessionStudio{s: s}
		loc = &pathLocator{s: s}
	}
	h.srcMu.Lock()
	defer h.srcMu.Unlock()
	return h.journal.Undo(ctx, req.TxID, studio, loc)
}

// pathLocator finds an instance's handle with a snapshot of its path.
type pathLocator struct{ s *bridge.Session }

func (p *pathLocator) Locate(ctx context.Context, paths [][]string) ([]*dom.Instance, error) {
	t, err := snapshot(ctx, p.s, protocol.SnapshotParams{Roots: [][]string{}, Nodes: paths, Properties: map[string]map[string]string{}})
	if err != nil {
		return nil, err
	}
	out := make([]*dom.Instance, len(paths))
	for i, path := range paths {
		out[i] = t.Find(path...)
	}
	return out, nil
}

type noStudio struct{}

func (noStudio) Locate(context.Context, [][]string) ([]*dom.Instance, error) {
	return nil, errcode.New(errcode.StudioNotConnected, "Studio is not connected").
		Reason("no_studio", "connect Studio and try again")
}
