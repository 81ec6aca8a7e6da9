package bridge

import (
	"context"

	"github.com/atlas-rbx/atlas/protocol"
)

// The methods of the plugin protocol, typed. Each is Call with the method's params
// and result types.

// Snapshot asks for the instances p names (PROTOCOL.md "snapshot").
func (s *Session) Snapshot(ctx context.Context, p protocol.SnapshotParams) (*protocol.SnapshotResult, error) {
	var res protocol.SnapshotResult
	if err := s.Call(ctx, protocol.MethodSnapshot, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Apply sends ops: the plugin applies all of them or none.
func (s *Session) Apply(ctx context.Context, p protocol.ApplyParams) (*protocol.ApplyResult, error) {
	var res protocol.ApplyResult
	if err := s.Call(ctx, protocol.MethodApply, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Stage hands the plugin an apply's ops ahead of the apply (p.Staged unset), which
// then names them by p.TxID with Staged: the plugin keeps them, and checks and
// writes nothing. Only for a session that Can(protocol.CapabilityStage).
func (s *Session) Stage(ctx context.Context, p protocol.ApplyParams) (*protocol.StageResult, error) {
	var res protocol.StageResult
	if err := s.Call(ctx, protocol.MethodStage, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Transactions lists the transactions the plugin applied recently, newest last.
func (s *Session) Transactions(ctx context.Context) (*protocol.TransactionsResult, error) {
	var res protocol.TransactionsResult
	if err := s.Call(ctx, protocol.MethodTransactions, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// GetScript reads a script's text as Studio has it.
func (s *Session) GetScript(ctx context.Context, p protocol.GetScriptParams) (*protocol.GetScriptResult, error) {
	var res protocol.GetScriptResult
	if err := s.Call(ctx, protocol.MethodGetScript, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Exec runs Luau code in Studio.
func (s *Session) Exec(ctx context.Context, p protocol.ExecParams) (*protocol.ExecResult, error) {
	var res protocol.ExecResult
	if err := s.Call(ctx, protocol.MethodExec, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Review shows changes in the plugin's review panel and waits for the person;
// give ctx a deadline that allows for one.
func (s *Session) Review(ctx context.Context, p protocol.ReviewParams) (*protocol.ReviewResult, error) {
	var res protocol.ReviewResult
	if err := s.Call(ctx, protocol.MethodReview, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Ping asks the plugin for its clock: a liveness probe above WebSocket pings.
func (s *Session) Ping(ctx context.Context) (*protocol.PingResult, error) {
	var res protocol.PingResult
	if err := s.Call(ctx, protocol.MethodPing, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// MarkPlace asks the plugin to mark the place with marker unless it has a marker
// already, and returns the marker the place holds.
func (s *Session) MarkPlace(ctx context.Context, marker string) (*protocol.MarkPlaceResult, error) {
	var res protocol.MarkPlaceResult
	if err := s.Call(ctx, protocol.MethodMarkPlace, protocol.MarkPlaceParams{Marker: marker}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Query reads one instance (and what it was asked of its descendants).
func (s *Session) Query(ctx context.Context, p protocol.QueryParams) (*protocol.QueryResult, error) {
	var res protocol.QueryResult
	if err := s.Call(ctx, protocol.MethodQuery, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Logs reads the plugin's buffer of Output messages.
func (s *Session) Logs(ctx context.Context, p protocol.LogsParams) (*protocol.LogsResult, error) {
	var res protocol.LogsResult
	if err := s.Call(ctx, protocol.MethodLogs, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// State asks Studio's run mode and place.
func (s *Session) State(ctx context.Context) (*protocol.StateResult, error) {
	var res protocol.StateResult
	if err := s.Call(ctx, protocol.MethodState, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
