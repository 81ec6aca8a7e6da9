package host

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/bridge"
	"github.com/atlas-rbx/atlas/dom"
	"github.com/atlas-rbx/atlas/dom/reflection"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/project"
	"github.com/atlas-rbx/atlas/protocol"
)

// The Studio inspection calls: query (an instance's properties, attributes, tags
// and children, as tagged values), logs (the Output log) and state (the run mode
// and the sessions). They read; a playtest's session may be named (sessions.go).

// The command names of the inspection calls.
const (
	CommandQuery = "studio.query"
	CommandLogs  = "studio.logs"
	CommandState = "studio.state"
)

// Bounds of the inspection calls.
const (
	// MaxQueryDepth is the deepest a query reads below the instance it names.
	MaxQueryDepth = 10
	// MaxQueryNodes bounds the instances one query returns (Truncated says so).
	MaxQueryNodes = 2000
	// MaxLogCount is the most log entries one call returns (the plugin's buffer
	// holds as many).
	MaxLogCount = 1000
	// DefaultLogCount is how many entries a logs call returns when not told.
	DefaultLogCount = 50
)

// AllProperties, in QueryRequest.Properties, reads every property the reflection
// database says a script can read of each instance's class.
const AllProperties = "*"

// QueryRequest names an instance by Path (names from game joined with "/"; "" is
// game) or by ID (an instance id of a plan), and says what to read: Depth levels of
// descendants (0: the instance alone), Properties (names, or "*" for all; nil is
// "*", empty none), Attributes, Tags, Children (each returned instance's children
// listed) and ListServices (game's services).
type QueryRequest struct {
	SessionID    string   `json:"sessionId,omitempty"`
	Context      string   `json:"context,omitempty"`
	Path         string   `json:"path,omitempty"`
	ID           string   `json:"id,omitempty"`
	Depth        int      `json:"depth,omitempty"`
	Properties   []string `json:"properties"`
	Attributes   bool     `json:"attributes,omitempty"`
	Tags         bool     `json:"tags,omitempty"`
	Children     bool     `json:"children,omitempty"`
	ListServices bool     `json:"listServices,omitempty"`
}

// Validate checks that the request names one instance one way, within bounds.
func (r QueryRequest) Validate() error {
	bad := func(format string, args ...any) error {
		return errcode.New(errcode.BadRequest, format, args...).Reason(errcode.ReasonBadRequest, errcode.NextFixRequest)
	}
	if r.ID != "" && r.Path != "" {
		return bad("give path or id, not both")
	}
	if r.Depth < 0 || r.Depth > MaxQueryDepth {
		return bad("depth must be from 0 to %d, not %d", MaxQueryDepth, r.Depth)
	}
	return nil
}

// ChildRef is a child listed by a query: enough to query it next.
type ChildRef struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	ClassName  string `json:"className"`
	ChildCount int    `json:"childCount"`
}

// DuplicateName is a name several siblings share, with their ids in order: a path
// through it names none of them, an id names one.
type DuplicateName struct {
	Name string   `json:"name"`
	IDs  []string `json:"ids"`
}

// QueryNode is one instance a query returns. Depth is its level below the instance
// named (0 for it). Properties and Attributes hold tagged values; Unreadable names
// the properties asked that the instance's class does not have, or that Studio
// would not read.
type QueryNode struct {
	ID       string  `json:"id"`
	ParentID *string `json:"parentId"`
	// Path is the names from game joined with "/"; absent for game itself.
	Path       string                `json:"path,omitempty"`
	Name       string                `json:"name"`
	ClassName  string                `json:"className"`
	Depth      int                   `json:"depth"`
	ChildCount int                   `json:"childCount"`
	Properties map[string]dom.Tagged `json:"properties,omitempty"`
	Unreadable []string              `json:"unreadable,omitempty"`
	Attributes map[string]dom.Tagged `json:"attributes,omitempty"`
	Tags       []string              `json:"tags,omitempty"`
	Duplicates []DuplicateName       `json:"duplicates,omitempty"`
	Children   []ChildRef            `json:"children,omitempty"`
}

// ServiceRef is one of game's services.
type ServiceRef struct {
	Name      string `json:"name"`
	ClassName string `json:"className"`
}

// QueryData is a query's answer: the instance named first, then its descendants
// down to the depth asked, parents before children.
type QueryData struct {
	Session   SessionData  `json:"session"`
	Instances []QueryNode  `json:"instances"`
	Services  []ServiceRef `json:"services,omitempty"`
	Truncated bool         `json:"truncated,omitempty"`
}

// Query reads an instance in Studio.
func (h *Host) Query(ctx context.Context, req QueryRequest) (*QueryData, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	s, err := h.readSession(ctx, req.SessionID, req.Context)
	if err != nil {
		return nil, err
	}
	ctx, cancel := h.studioDeadline(ctx)
	defer cancel()
	names, ords, err := h.queryTarget(ctx, s, req)
	if err != nil {
		return nil, err
	}
	params := protocol.QueryParams{Path: names, Ordinals: ords, Depth: req.Depth, Children: req.Children,
		Attributes: req.Attributes, Tags: req.Tags, Properties: map[string]map[string]string{},
		ListServices: req.ListServices, MaxNodes: MaxQueryNodes}
	res, err := s.Query(ctx, params)
	if err != nil {
		return nil, h.queryRefusal(err, names, ords)
	}
	if req.Properties == nil || len(req.Properties) > 0 {
		// The classes are known now: read their properties with the types the
		// reflection database gives.
		params.Properties = propertyTypes(res.Instance, req.Properties)
		if res, err = s.Query(ctx, params); err != nil {
			return nil, h.queryRefusal(err, names, ords)
		}
	}
	d := &QueryData{Session: sessionData(s), Instances: []QueryNode{}, Truncated: res.Truncated}
	for _, sv := range res.Services {
		d.Services = append(d.Services, ServiceRef(sv))
	}
	if req.ListServices && d.Services == nil {
		d.Services = []ServiceRef{}
	}
	parentID, id := pathIDs(names, ords)
	var parent *string
	if len(names) > 0 {
		parent = &parentID
	}
	at := where{names: names, ords: fullOrdinals(names, ords)}
	flatten(res.Instance, id, parent, at, 0, req, &d.Instances, h.ids.put)
	return d, nil
}

// where is an instance's path and, for each name, its ordinal among same-named
// siblings.
type where struct {
	names []string
	ords  []int
}

func (w where) child(name string, ordinal int) where {
	return where{names: append(slices.Clone(w.names), name), ords: append(slices.Clone(w.ords), ordinal)}
}

func fullOrdinals(names []string, ords []int) []int {
	out := make([]int, len(names))
	copy(out, ords)
	return out
}

// queriedIDs remembers where the instances a query returned are, so that a later
// query can name them by id even when neither disk nor the base has them. It is
// bounded: past maxQueried ids it starts again.
type queriedIDs struct {
	mu sync.Mutex
	m  map[string]where
}

const maxQueried = 50000

func (q *queriedIDs) put(id string, w where) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.m == nil || len(q.m) >= maxQueried {
		q.m = map[string]where{}
	}
	q.m[id] = w
}

func (q *queriedIDs) get(id string) ([]string, []int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	w, ok := q.m[id]
	return w.names, w.ords, ok
}

// queryTarget returns the path and ordinals of the instance a query names.
func (h *Host) queryTarget(ctx context.Context, s *bridge.Session, req QueryRequest) ([]string, []int, error) {
	if req.ID == "" {
		p := strings.Trim(req.Path, "/")
		if p == "" {
			return []string{}, nil, nil
		}
		return strings.Split(p, "/"), nil, nil
	}
	if req.ID == dom.RootID {
		return []string{}, nil, nil
	}
	if names, ords, ok := h.ids.get(req.ID); ok {
		return names, ords, nil
	}
	var names []string
	var ords []int
	found := func(x *dom.Instance) {
		if x != nil {
			names, ords = x.PathNames(), ordinals(x)
		}
	}
	err := h.readDisk(func(disk *project.Project) error {
		found(disk.Root.Index()[req.ID])
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if names == nil {
		err = h.studio.use(ctx, func(snaps *snapshots) error {
			x, err := h.findOffDisk(ctx, snaps, s, req.ID)
			found(x)
			return err
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if names == nil {
		return nil, nil, errcode.New(errcode.NotFound, "no instance with id %s on disk, in the base commit or among what the project manages in Studio; name it by path", req.ID).
			Reason(errcode.ReasonNotFound, errcode.NextFixRequest).With("id", req.ID)
	}
	return names, ords, nil
}

// queryRefusal adds ids and joined paths to the plugin's not-found and
// duplicate-path refusals.
func (h *Host) queryRefusal(err error, names []string, ords []int) error {
	ce := errcode.As(err)
	switch {
	case ce.Code == errcode.NotFound:
		nearest := namesDetail(ce.Details["nearest"])
		_, id := pathIDs(nearest, ords)
		var at any // null: game itself is the nearest
		if len(nearest) > 0 {
			at = strings.Join(nearest, "/")
		}
		ce.Reason(errcode.ReasonNotFound, errcode.NextFixRequest).
			With("path", strings.Join(names, "/")).
			With("nearest", at).With("nearestId", id)
	case ce.Code == errcode.BadRequest && ce.Details["duplicates"] != nil:
		prefix := namesDetail(ce.Details["at"])
		count, _ := ce.Details["duplicates"].(float64)
		if len(prefix) > 0 {
			_, parentID := pathIDs(prefix[:len(prefix)-1], ords)
			dup := DuplicateName{Name: prefix[len(prefix)-1], IDs: []string{}}
			for k := range int(count) {
				dup.IDs = append(dup.IDs, dom.ChildID(parentID, dup.Name, k))
			}
			ce.Details["duplicates"] = []DuplicateName{dup}
		}
		ce.Reason(errcode.ReasonDuplicatePath, errcode.NextFixRequest, errcode.NextRenameInStudio).
			With("path", strings.Join(names, "/")).With("at", strings.Join(prefix, "/"))
	}
	return ce
}

func namesDetail(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// pathIDs returns the ids of the parent of the instance at names (ords picking
// among same-named siblings) and of the instance.
func pathIDs(names []string, ords []int) (parent, id string) {
	id = dom.RootID
	for i, n := range names {
		parent = id
		o := 0
		if i < len(ords) {
			o = ords[i]
		}
		id = dom.ChildID(id, n, o)
	}
	return parent, id
}

// flatten appends n and its descendants to out, parents first, and tells remember
// where each instance returned or listed is.
func flatten(n *protocol.QueryNode, id string, parent *string, at where, depth int, req QueryRequest, out *[]QueryNode, remember func(string, where)) {
	if n == nil {
		return
	}
	remember(id, at)
	q := QueryNode{ID: id, ParentID: parent, Path: strings.Join(at.names, "/"), Name: n.Name, ClassName: n.ClassName, Depth: depth,
		ChildCount: n.ChildCount, Unreadable: n.Unreadable, Tags: n.Tags}
	if req.Properties == nil || len(req.Properties) > 0 {
		q.Properties = map[string]dom.Tagged{}
		for name, raw := range n.Properties {
			var t dom.Tagged
			if json.Unmarshal(raw, &t) != nil {
				q.Unreadable = append(q.Unreadable, name)
				continue
			}
			q.Properties[name] = t
		}
		slices.Sort(q.Unreadable)
	}
	if req.Attributes {
		q.Attributes = map[string]dom.Tagged{}
		for name, raw := range n.Attributes {
			var t dom.Tagged
			if json.Unmarshal(raw, &t) == nil {
				q.Attributes[name] = t
			}
		}
	}
	if req.Tags && q.Tags == nil {
		q.Tags = []string{}
	}
	ids := make([]string, len(n.Children))
	for i, c := range n.Children {
		ids[i] = dom.ChildID(id, c.Name, c.Ordinal)
		remember(ids[i], at.child(c.Name, c.Ordinal))
	}
	for _, d := range n.Duplicates {
		dup := DuplicateName{Name: d.Name, IDs: []string{}}
		for k := range d.Count {
			dup.IDs = append(dup.IDs, dom.ChildID(id, d.Name, k))
		}
		q.Duplicates = append(q.Duplicates, dup)
	}
	if req.Children {
		q.Children = []ChildRef{}
		for i, c := range n.Children {
			q.Children = append(q.Children, ChildRef{ID: ids[i], Name: c.Name, ClassName: c.ClassName, ChildCount: c.ChildCount})
		}
	}
	*out = append(*out, q)
	if depth >= req.Depth {
		return
	}
	for i, c := range n.Children {
		flatten(c, ids[i], &q.ID, at.child(c.Name, c.Ordinal), depth+1, req, out, remember)
	}
}

// propertyTypes maps each class in the tree at n to the properties to read, with
// their types ("Vector3", "Enum:Material"), as the reflection database gives them.
func propertyTypes(n *protocol.QueryNode, asked []string) map[string]map[string]string {
	all := asked == nil || slices.Contains(asked, AllProperties)
	out := map[string]map[string]string{}
	var walk func(n *protocol.QueryNode)
	walk = func(n *protocol.QueryNode) {
		if n == nil {
			return
		}
		if _, done := out[n.ClassName]; !done {
			m := map[string]string{}
			if all {
				for _, p := range classProperties(n.ClassName) {
					if t, ok := readableType(p, true); ok {
						m[p.Name] = t
					}
				}
			}
			for _, name := range asked {
				if p, ok := reflection.LookupProperty(n.ClassName, name); ok {
					if t, ok := readableType(p, false); ok {
						m[name] = t
						continue
					}
				}
				if name != AllProperties {
					m[name] = "?" // the plugin reports it unreadable
				}
			}
			out[n.ClassName] = m
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(n)
	return out
}

// classProperties lists the properties of class and its superclasses.
func classProperties(class string) []*reflection.Property {
	var out []*reflection.Property
	for c, ok := reflection.LookupClass(class); ok; c, ok = reflection.LookupClass(c.Superclass) {
		for _, p := range c.Properties {
			out = append(out, p)
		}
		if c.Superclass == "" {
			break
		}
	}
	return out
}

// encodable are the value types the plugin reads (plugin/src/Values.luau TYPES).
var encodable = map[string]bool{
	"Bool": true, "String": true, "ContentId": true, "Float32": true, "Float64": true, "Int32": true, "Int64": true,
	"Vector2": true, "Vector3": true, "Vector2int16": true, "Vector3int16": true, "Color3": true, "Color3uint8": true,
	"UDim": true, "UDim2": true, "CFrame": true, "BrickColor": true, "NumberRange": true, "NumberSequence": true,
	"ColorSequence": true, "Rect": true, "Font": true, "PhysicalProperties": true,
}

// readableType is the type the plugin reads p with; ok is false for a type it has
// no tagged form for. listed (for "*") also leaves out what a script cannot read
// and what is deprecated, hidden or an alias.
func readableType(p *reflection.Property, listed bool) (string, bool) {
	if listed {
		if p.AliasFor != "" || p.HasTag("Deprecated") || p.HasTag("Hidden") || p.HasTag("NotScriptable") {
			return "", false
		}
		if p.Scriptability != "Read" && p.Scriptability != "ReadWrite" {
			return "", false
		}
	}
	if p.Type.Kind == reflection.EnumKind {
		return "Enum:" + p.Type.Name, true
	}
	return p.Type.Name, encodable[p.Type.Name]
}

// LogsRequest reads Studio's Output log as the plugin saw it (LogService.MessageOut).
type LogsRequest struct {
	SessionID string   `json:"sessionId,omitempty"`
	Context   string   `json:"context,omitempty"`
	Count     int      `json:"count,omitempty"`
	Direction string   `json:"direction,omitempty"`
	Levels    []string `json:"levels,omitempty"`
	Since     int64    `json:"since,omitempty"`
}

// The log levels (Enum.MessageType) and directions.
var (
	LogLevels     = []string{"output", "info", "warning", "error"}
	LogDirections = []string{"newest", "oldest"}
)

// LogLevel is the level of a message in Studio's Output: one of LogLevels, the
// names of Enum.MessageType's items (MessageOutput, MessageInfo, MessageWarning,
// MessageError). Studio's log (Logs) and the output of code run in Studio (Exec)
// both name levels so: print is output, warn is warning.
type LogLevel string

// levelOf names a level the plugin sent in LogLevels' words: exec's output lines
// say print and warn (docs/PROTOCOL.md), its log the MessageType names. A word
// neither knows is output, as the plugin's log counts a MessageType it does not know.
func levelOf(l string) LogLevel {
	switch l {
	case "print":
		return "output"
	case "warn":
		return "warning"
	}
	if slices.Contains(LogLevels, l) {
		return LogLevel(l)
	}
	return "output"
}

// Validate checks the request's bounds and names.
func (r LogsRequest) Validate() error {
	bad := func(format string, args ...any) error {
		return errcode.New(errcode.BadRequest, format, args...).Reason(errcode.ReasonBadRequest, errcode.NextFixRequest)
	}
	if r.Count < 0 || r.Count > MaxLogCount {
		return bad("count must be from 1 to %d, not %d", MaxLogCount, r.Count)
	}
	if r.Direction != "" && !slices.Contains(LogDirections, r.Direction) {
		return bad("direction must be newest or oldest, not %q", r.Direction)
	}
	for _, l := range r.Levels {
		if !slices.Contains(LogLevels, l) {
			return bad("level %q is not one of %s", l, strings.Join(LogLevels, ", "))
		}
	}
	if r.Since < 0 {
		return bad("since must be a sequence number (0 or more)")
	}
	return nil
}

// LogEntry is one Output message: Seq numbers every message the plugin saw since
// it started, from 1 (pass the last one as since to read only newer ones).
type LogEntry struct {
	Seq   int64     `json:"seq"`
	Time  time.Time `json:"time"`
	Level LogLevel  `json:"level"`
	Text  string    `json:"text"`
}

// LogsData are the entries asked for, oldest first; TotalSeen counts every message
// since the plugin started and Capacity is the buffer's size (older ones are gone).
type LogsData struct {
	Session   SessionData `json:"session"`
	Entries   []LogEntry  `json:"entries"`
	TotalSeen int64       `json:"totalSeen"`
	Capacity  int         `json:"capacity"`
	LastSeq   int64       `json:"lastSeq"`
}

// Logs reads the Output log of a Studio session.
func (h *Host) Logs(ctx context.Context, req LogsRequest) (*LogsData, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	s, err := h.readSession(ctx, req.SessionID, req.Context)
	if err != nil {
		return nil, err
	}
	ctx, cancel := h.studioDeadline(ctx)
	defer cancel()
	count := req.Count
	if count == 0 {
		count = DefaultLogCount
	}
	dir := req.Direction
	if dir == "" {
		dir = "newest"
	}
	res, err := s.Logs(ctx, protocol.LogsParams{Count: count, Direction: dir, Levels: req.Levels, Since: req.Since})
	if err != nil {
		return nil, err
	}
	d := &LogsData{Session: sessionData(s), Entries: []LogEntry{}, TotalSeen: res.TotalSeen, Capacity: res.Capacity, LastSeq: res.TotalSeen}
	for _, e := range res.Entries {
		sec, frac := math.Modf(e.Time)
		d.Entries = append(d.Entries, LogEntry{Seq: e.Seq, Time: time.Unix(int64(sec), int64(frac*1e9)).UTC(), Level: levelOf(e.Level), Text: e.Text})
	}
	return d, nil
}

// StateRequest names the session whose state is asked (by default the edit
// session, whose run mode is a playtest's when one of its place is connected).
type StateRequest struct {
	SessionID string `json:"sessionId,omitempty"`
	Context   string `json:"context,omitempty"`
}

// The run modes.
const (
	RunEdit   = "Edit"
	RunPlay   = "Play"
	RunRun    = "Run"
	RunPaused = "Paused"
)

// SessionState is one session with its run mode.
type SessionState struct {
	SessionData
	RunMode string `json:"runMode"`
	GameID  int64  `json:"gameId"`
}

// StateData is what Studio is doing: its run mode (a playtest's, while one runs),
// the place and game, and every Atlas session with its own run mode.
type StateData struct {
	RunMode   string         `json:"runMode"`
	PlaceID   int64          `json:"placeId"`
	PlaceName string         `json:"placeName"`
	GameID    int64          `json:"gameId"`
	Session   SessionData    `json:"session"`
	Sessions  []SessionState `json:"sessions"`
}

// State reports the run mode, the place and the sessions.
func (h *Host) State(ctx context.Context, req StateRequest) (*StateData, error) {
	s, err := h.readSession(ctx, req.SessionID, req.Context)
	if err != nil {
		return nil, err
	}
	ctx, cancel := h.studioDeadline(ctx)
	defer cancel()
	d := &StateData{Session: sessionData(s), Sessions: []SessionState{}}
	var playMode string
	for _, info := range h.bridge.Sessions() {
		st := SessionState{SessionData: h.sessionInfoData(info)}
		other, err := h.bridge.Session(info.ID)
		if err != nil {
			continue // gone meanwhile
		}
		r, err := other.State(ctx)
		if err != nil {
			if info.ID == s.Info().ID {
				return nil, err
			}
			st.RunMode = "unknown"
		} else {
			st.RunMode, st.GameID = r.RunMode, r.GameID
		}
		if info.ID == s.Info().ID {
			d.RunMode, d.PlaceID, d.PlaceName, d.GameID = st.RunMode, info.PlaceID, info.PlaceName, st.GameID
		} else if info.Context != bridge.ContextEdit && info.PlaceID == s.Info().PlaceID && info.PlaceName == s.Info().PlaceName && r != nil {
			// A playtest of the same place: Studio is playing it.
			if playMode == "" || r.RunMode == RunPaused {
				playMode = r.RunMode
			}
		}
		d.Sessions = append(d.Sessions, st)
	}
	if s.Info().Context == bridge.ContextEdit && d.RunMode == RunEdit && playMode != "" {
		d.RunMode = playMode
	}
	return d, nil
}

// sessionInfoData is a session's data, with its place check.
func (h *Host) sessionInfoData(i bridge.SessionInfo) SessionData {
	return SessionData{ID: i.ID, Context: i.Context, ReadOnly: i.ReadOnly, PlaceID: i.PlaceID, PlaceName: i.PlaceName,
		PluginVersion: i.PluginVersion, ConnectedAt: i.ConnectedAt}
}

// TransactionsData lists the transactions the journal keeps, newest first.
type TransactionsData struct {
	Transactions []apply.TxSummary `json:"transactions"`
}

// TransactionData is one transaction in full.
type TransactionData = apply.TxDetail

// Transactions lists the journal's transactions.
func (h *Host) Transactions(context.Context) (*TransactionsData, error) {
	list, err := h.journal.History()
	if err != nil {
		return nil, err
	}
	return &TransactionsData{Transactions: list}, nil
}

// Transaction reads one transaction of the journal.
func (h *Host) Transaction(_ context.Context, txID string) (*TransactionData, error) {
	return h.journal.Detail(txID)
}
