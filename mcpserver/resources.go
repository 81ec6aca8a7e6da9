package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atlas-rbx/atlas/envelope"
	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/host"
)

// The resources: what an agent may read without calling a tool. Each reads as the
// JSON envelope its command answers with (application/json), from the host's
// status and its journal of transactions.
const (
	URIStatus       = "atlas://status"
	URITransactions = "atlas://transactions"
	// URITransaction is the template of one transaction's resource.
	URITransaction = "atlas://transactions/{id}"
)

const jsonMIME = "application/json"

func addResources(s *mcp.Server, eng host.Engine) {
	s.AddResource(&mcp.Resource{URI: URIStatus, Name: "status", Title: "Atlas status", MIMEType: jsonMIME,
		Description: "The host, the project, the connected Studio sessions (with their context) and the open transactions: what studio_status returns."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			d, err := eng.Status(ctx)
			return envelopeContents(req.Params.URI, host.CommandStatus, d, err)
		})
	s.AddResource(&mcp.Resource{URI: URITransactions, Name: "transactions", Title: "Sync transactions", MIMEType: jsonMIME,
		Description: "The sync transactions the journal keeps, newest first: txId, createdAt, updatedAt, state (committed, aborted, undone, or open), place, counts of changes, files and Studio ops. Read atlas://transactions/{id} for one in full."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			d, err := eng.Transactions(ctx)
			return envelopeContents(req.Params.URI, host.CommandTransactions, d, err)
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: URITransaction, Name: "transaction", Title: "One sync transaction", MIMEType: jsonMIME,
		Description: "One transaction of the journal: its changes (id, path), files written or deleted, Studio ops (op, changeId, the properties an edit sets), and outcome (state, open, waiting, error)."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id, ok := strings.CutPrefix(req.Params.URI, "atlas://transactions/")
			if !ok || id == "" || strings.Contains(id, "/") {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			d, err := eng.Transaction(ctx, id)
			if errcode.Of(err) == errcode.NotFound {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return envelopeContents(req.Params.URI, host.CommandTransaction, d, err)
		})
}

// envelopeContents is a resource's contents: the envelope of command with data or
// err, as JSON text.
func envelopeContents[T any](uri, command string, data *T, err error) (*mcp.ReadResourceResult, error) {
	var e *envelope.Envelope
	if err != nil {
		e = envelope.Fail(command, err, nil, nil)
	} else {
		e = envelope.OK(command, data, nil)
	}
	addHints(e.Errors)
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: jsonMIME, Text: string(e.Marshal())}}}, nil
}
