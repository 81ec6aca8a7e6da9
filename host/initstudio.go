package host

import (
	"context"
	"path/filepath"
	"sort"

	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/reflection"
	"github.com/atlas-rbx/atlas/protocol"
)

// CommandPlaceSnapshot names the place snapshot in the envelope.
const CommandPlaceSnapshot = "studio.snapshot"

var callPlaceSnapshot = apiCall{"place-snapshot", CommandPlaceSnapshot}

// PlaceSnapshotRequest asks for the whole place a Studio session holds.
type PlaceSnapshotRequest struct {
	SessionID string `json:"sessionId,omitempty"`
}

// PlaceSnapshotData is the whole place of a session, every instance with every
// property the plugin can read that Roblox saves in place files, in the
// emulator's place format (its enums included).
type PlaceSnapshotData struct {
	Session   SessionData `json:"session"`
	Instances int         `json:"instances"`
	Place     *PlaceFile  `json:"place"`
}

// PlaceSnapshot reads the whole place of a Studio session, as `atlas init
// --from-studio` turns it into a project by the same code as a place file. It
// uses the plugin's snapshot as a plan does: a first one names the classes in
// the place, a second reads, for each of them, every property a place file would
// hold and scripts can read (the plugin leaves out those it cannot read).
func (h *Host) PlaceSnapshot(ctx context.Context, req PlaceSnapshotRequest) (*PlaceSnapshotData, error) {
	s, err := h.session(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	var tree *dom.Instance
	err = h.studio.use(ctx, func(snaps *snapshots) error {
		whole := [][]string{{}} // the empty path is game itself, sent with everything below it
		shape, err := snaps.take(ctx, s, protocol.SnapshotParams{Roots: whole, Nodes: [][]string{}, Properties: map[string]map[string]string{}})
		if err != nil {
			return err
		}
		classes := map[string]bool{}
		shape.Walk(func(x *dom.Instance) bool {
			classes[x.ClassName] = true
			return true
		})
		tree, err = snaps.take(ctx, s, protocol.SnapshotParams{Roots: whole, Nodes: [][]string{}, Properties: placeProperties(classes)})
		return err
	})
	if err != nil {
		return nil, err
	}
	n := 0
	tree.Walk(func(x *dom.Instance) bool {
		n++
		dropDefaults(x)
		return true
	})
	info := sessionData(s)
	return &PlaceSnapshotData{Session: info, Instances: n, Place: PlaceFromTree(tree, info.PlaceName)}, nil
}

// placeProperties are, for each class, the properties place files hold (the
// reflection database's serialized ones, under their scripting names) that
// scripts can read, with their wire types; and Attributes and Tags, which the
// plugin reads its own way. Source is always sent for scripts, and Name is the
// instance's own.
func placeProperties(classes map[string]bool) map[string]map[string]string {
	out := map[string]map[string]string{}
	for class := range classes {
		props := map[string]string{"Attributes": "Attributes", "Tags": "Tags"}
		for c, depth := class, 0; c != "" && depth < 64; depth++ {
			rc, ok := reflection.LookupClass(c)
			if !ok {
				break
			}
			for name, p := range rc.Properties {
				if _, seen := props[name]; seen || name == "Source" || name == "Name" || !p.Serializes || p.AliasFor != "" {
					continue
				}
				if p.Scriptability != "ReadWrite" && p.Scriptability != "Read" {
					continue
				}
				if p.Type.Kind == reflection.EnumKind {
					props[name] = "Enum:" + p.Type.Name
				} else {
					props[name] = p.Type.Name
				}
			}
			c = rc.Superclass
		}
		out[class] = props
	}
	return out
}

// dropDefaults leaves out the properties Studio reports at their default: Studio
// reads every property, set or not, where a place file need not hold those at
// their default, and a project is the same without them (a built instance starts
// at its defaults). A value read as Color3 matches a Color3uint8 default as a
// file would hold it.
func dropDefaults(x *dom.Instance) {
	for name, v := range x.Properties.All() {
		switch name {
		case "Source", "Attributes", "Tags":
			continue
		}
		raw, ok := reflection.Default(x.ClassName, name)
		if !ok {
			continue
		}
		d, err := dom.Unmarshal(raw)
		if err != nil {
			continue
		}
		if c, ok := v.(dom.Color3); ok {
			if _, want := d.(dom.Color3uint8); want {
				v = dom.Color3uint8{toByte(c[0]), toByte(c[1]), toByte(c[2])}
			}
		}
		if dom.Equal(d, v) {
			x.Properties.Delete(name)
		}
	}
}

func toByte(c float32) uint8 {
	switch {
	case c <= 0 || c != c:
		return 0
	case c >= 1:
		return 255
	}
	return uint8(c*255 + 0.5)
}

// Tree is the place as an instance tree, ids assigned.
func (pf *PlaceFile) Tree() *dom.Instance {
	var conv func(n *PlaceNode) *dom.Instance
	conv = func(n *PlaceNode) *dom.Instance {
		i := dom.New(n.Name, n.ClassName)
		props := make([]dom.Property, 0, len(n.Properties))
		for k, v := range n.Properties {
			if v != nil {
				props = append(props, dom.Property{Name: k, Value: v})
			}
		}
		i.Properties = dom.MakeProps(props)
		for _, c := range n.Children {
			i.AddChild(conv(c))
		}
		return i
	}
	root := dom.New("Game", "DataModel")
	if pf.Root != nil {
		root = conv(pf.Root)
	}
	root.AssignIDs()
	return root
}

// PlaceSnapshot asks the host for the whole place of a Studio session.
func (c *Client) PlaceSnapshot(ctx context.Context, req PlaceSnapshotRequest) (*PlaceSnapshotData, error) {
	var d PlaceSnapshotData
	_, err := c.call(ctx, callPlaceSnapshot.route, req, &d)
	return &d, err
}

// placeSnapshotCall serves the place snapshot on the local API.
func (h *Host) placeSnapshotCall(ctx context.Context, body []byte) (any, []string, error) {
	var req PlaceSnapshotRequest
	if err := decode(body, &req); err != nil {
		return nil, nil, err
	}
	d, err := h.PlaceSnapshot(ctx, req)
	return d, nil, err
}

// RunningHosts are clients of every host registered in the state dir whose
// process is alive, in the order of their project files: a command that has no
// project yet (`atlas init --from-studio`) looks for a Studio among them.
func RunningHosts(stateDir string) []*Client {
	regs, _ := filepath.Glob(filepath.Join(stateDir, "projects", "*", "host.json"))
	var out []*Client
	for _, p := range regs {
		reg, err := readRegistration(filepath.Dir(p))
		if err != nil || reg.ProjectFile == "" {
			continue
		}
		cl, err := Dial(stateDir, reg.ProjectFile)
		if err != nil {
			continue
		}
		out = append(out, cl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].reg.ProjectFile < out[j].reg.ProjectFile })
	return out
}
