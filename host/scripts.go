package host

import (
	"context"
	"slices"
	"time"

	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/gitblob"
	"github.com/atlas-rbx/atlas/plan"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

// The engine calls that look into Studio or run code there.

// Script reads a script as Studio has it, found by id or by its file.
func (h *Host) Script(ctx context.Context, req ScriptRequest) (*ScriptData, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	s, err := h.session(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	ctx, cancel := h.studioDeadline(ctx)
	defer cancel()
	// What the request names, read from the disk tree (or, for an instance only
	// Studio or the base has, from those under the Studio lock).
	var target struct {
		id, fsPath, path, class string
		names                   []string
		ords                    []int
	}
	describe := func(x *dom.Instance) error {
		if !dom.IsScriptClass(x.ClassName) {
			return errcode.New(errcode.NotAScript, "%s is a %s, not a script", x.Path(), x.ClassName).
				Reason(errcode.ReasonNotAScript, errcode.NextPassScript)
		}
		target.id, target.fsPath, target.path, target.class = x.ID, x.FsPath, x.Path(), x.ClassName
		target.names, target.ords = x.PathNames(), ordinals(x)
		return nil
	}
	offDisk := false
	err = h.readDisk(func(disk *project.Project) error {
		if req.ID != "" {
			if x := disk.Root.Index()[req.ID]; x != nil {
				return describe(x)
			}
			offDisk = true
			return nil
		}
		rel, err := h.relPath(req.FsPath)
		if err != nil {
			return err
		}
		var x *dom.Instance
		disk.Root.Walk(func(i *dom.Instance) bool {
			if x == nil && i.FsPath == rel {
				x = i
			}
			return x == nil
		})
		if x == nil {
			return errcode.New(errcode.NotFound, "no instance comes from %s", rel).
				Reason(errcode.ReasonNotFound, errcode.NextPassScript)
		}
		return describe(x)
	})
	if err != nil {
		return nil, err
	}
	if offDisk {
		err = h.studio.use(ctx, func(snaps *snapshots) error {
			x, err := h.findOffDisk(ctx, snaps, s, req.ID)
			if err != nil {
				return err
			}
			if x == nil {
				return errcode.New(errcode.NotFound, "no instance with id %s", req.ID).
					Reason(errcode.ReasonNotFound, errcode.NextPassScript)
			}
			return describe(x)
		})
		if err != nil {
			return nil, err
		}
	}
	// The id names the n-th of same-named siblings at each step: so does the request.
	res, err := s.GetScript(ctx, protocol.GetScriptParams{Path: target.names, Ordinals: target.ords, Draft: req.Draft})
	if err != nil && errcode.Of(err) == errcode.NotFound && len(errcode.As(err).NextActions()) == 0 {
		// Gone from Studio (deleted, renamed or moved there since): a plan shows it.
		return nil, errcode.New(errcode.NotFound, "%s is not in Studio: it was deleted, renamed or moved there (the next plan shows it)", target.path).
			Reason(errcode.ReasonNotFound, errcode.NextReplan).With("path", target.path)
	}
	if err != nil {
		return nil, err
	}
	return &ScriptData{ID: target.id, FsPath: target.fsPath, InstancePath: target.path, ClassName: res.ClassName,
		Source: res.Source, StudioHash: gitblob.HashString(res.Source), IsDraft: res.IsDraft}, nil
}

// findOffDisk finds an instance that is not on disk by id: in the base tree, or in
// a snapshot of what the project manages (an instance only Studio has). The caller
// holds the Studio lock (snaps).
func (h *Host) findOffDisk(ctx context.Context, snaps *snapshots, s *bridge.Session, id string) (*dom.Instance, error) {
	disk, err := h.loadDisk()
	if err != nil {
		return nil, err
	}
	var baseRoot *dom.Instance
	if b, _ := h.loadBase(""); b != nil {
		baseRoot = b.proj.Root
		if x := baseRoot.Index()[id]; x != nil {
			return x, nil
		}
	}
	studio, err := snaps.take(ctx, s, scope(disk.Root, baseRoot))
	if err != nil {
		return nil, err
	}
	return studio.Index()[id], nil
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
			Reason(errcode.ReasonOutsideProject, errcode.NextPassScript)
	}
	return rel, nil
}

// Exec runs Luau code in Studio. Calls on one session take turns (execTurns).
func (h *Host) Exec(ctx context.Context, req ExecRequest) (*ExecData, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	s, err := h.readSession(ctx, req.SessionID, req.Context)
	if err != nil {
		return nil, err
	}
	give, err := h.execs.take(ctx, s.Info().ID)
	if err != nil {
		return nil, err
	}
	defer give()
	r, err := s.Exec(ctx, protocol.ExecParams{Code: req.Code})
	if errcode.Of(err) == errcode.StudioTimeout {
		// Unlike a read, the code may be running still, or have run: running it
		// again could do its work twice.
		ce := errcode.As(err)
		return nil, errcode.New(errcode.StudioTimeout, "Studio did not answer in time: the code may still be running there, or have run, with its effects in the place; check them (a run that only reads) before running it again").
			Reason(errcode.ReasonStudioTimeout, errcode.NextShowStatus).With("method", ce.Details["method"])
	}
	if err != nil {
		return nil, err
	}
	res := &ExecData{Success: r.Success, Output: []OutputLine{}, Returns: r.Returns, Values: []dom.Tagged{}, Error: r.Error, Session: sessionData(s)}
	for _, l := range r.Output {
		res.Output = append(res.Output, OutputLine{Level: levelOf(l.Level), Text: l.Text})
	}
	if res.Returns == nil {
		res.Returns = []string{}
	}
	for i := range res.Returns {
		// A plugin without values, or a value the host cannot read: null.
		var t dom.Tagged
		if i < len(r.Values) {
			_ = t.UnmarshalJSON(r.Values[i])
		}
		res.Values = append(res.Values, t)
	}
	return res, nil
}

// Review sends changes to the plugin's review panel and waits for the person.
func (h *Host) Review(ctx context.Context, req ReviewRequest) (*ReviewData, error) {
	s, err := h.session(ctx, req.SessionID)
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

// ordinals gives, for each instance from the root (excluded) down to x, its index
// among its parent's children of the same name: what its id is derived from. It is
// nil when every index is 0 (the first of each name), as a plain path says.
func ordinals(x *dom.Instance) []int {
	var out []int
	any := false
	for i := x; i != nil && i.Parent != nil; i = i.Parent {
		n := 0
		for _, c := range i.Parent.Children {
			if c == i {
				break
			}
			if c.Name == i.Name {
				n++
			}
		}
		any = any || n > 0
		out = append(out, n)
	}
	if !any {
		return nil
	}
	slices.Reverse(out)
	return out
}
