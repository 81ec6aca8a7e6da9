package mcpserver

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/atlas-rbx/atlas/apply"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

const descRecover = `Show the open sync transactions and resolve one. A transaction stays open when Studio stopped answering after its patch was sent and, on reconnecting, holds only part of it (or when its files could not be written): sync_apply then refuses with E_BUSY transaction_pending.
Without action: lists each open transaction (txId, state, waiting), where Studio stands at each instance it changes (before, after, other) and where each of its files stands.
action "finish" (with yes: true) writes its files, each only if it still holds what the plan saw; action "abort" (with yes: true) drops it: puts back the files it wrote and leaves Studio as it is, listing where Studio still holds the patch (the person can take it back with Ctrl+Z in Studio). The pre-images stay in the journal either way. Pass txId when several are open.`

// RecoverIn is sync_recover's input.
type RecoverIn struct {
	TxID   string `json:"txId,omitempty" jsonschema:"the open transaction to show or resolve; omit when only one is open"`
	Action string `json:"action,omitempty" jsonschema:"finish (write its files) or abort (drop it and put back its files); omit to only show"`
	Yes    bool   `json:"yes,omitempty" jsonschema:"must be true with an action: you confirm it after looking at the transaction"`
}

func (t *tools) syncRecover(ctx context.Context, in RecoverIn) result[apply.RecoverResult] {
	if in.Action != "" && !in.Yes {
		err := errcode.New(errcode.ConfirmRequired, "sync_recover with an action writes disk: call it with yes: true after looking at the transaction").
			Reason(errcode.ReasonConfirmRequired, errcode.NextConfirm).With("tool", "sync_recover")
		return result[apply.RecoverResult]{err: err}
	}
	d, err := t.eng.Recover(ctx, host.RecoverRequest{TxID: in.TxID, Action: in.Action})
	if err != nil {
		return result[apply.RecoverResult]{err: err}
	}
	r := result[apply.RecoverResult]{data: d, summary: fmt.Sprintf("%d open transaction(s).", len(d.Transactions))}
	if d.Resolved != nil {
		r.warnings = d.Resolved.Warnings
		r.summary = fmt.Sprintf("Transaction %s: %s; %d open transaction(s) left.", d.Resolved.TxID, d.Resolved.State, len(d.Transactions))
	}
	return r
}

// recoverActions lists the actions sync_recover takes.
func recoverActions(s *jsonschema.Schema) {
	s.Properties["action"].Enum = []any{apply.ActionFinish, apply.ActionAbort}
}
