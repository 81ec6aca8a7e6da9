package host

import (
	"context"

	"github.com/atlas-rbx/atlas/errcode"
)

// The command names of the journal's reads.
const (
	CommandTransactions = "transactions"
	CommandTransaction  = "transaction"
)

// TransactionRequest names one transaction of the journal.
type TransactionRequest struct {
	TxID string `json:"txId"`
}

// studioRoutes adds the inspection calls and the journal's reads to the local API.
func (h *Host) studioRoutes(handle func(route, command string, call func(ctx context.Context, body []byte) (any, []string, error))) {
	handle(callQuery.route, callQuery.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req QueryRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.Query(ctx, req)
		return d, nil, err
	})
	handle(callLogs.route, callLogs.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req LogsRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.Logs(ctx, req)
		return d, nil, err
	})
	handle(callState.route, callState.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req StateRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		d, err := h.State(ctx, req)
		return d, nil, err
	})
	handle(callTxs.route, callTxs.command, func(ctx context.Context, _ []byte) (any, []string, error) {
		d, err := h.Transactions(ctx)
		return d, nil, err
	})
	handle(callTx.route, callTx.command, func(ctx context.Context, body []byte) (any, []string, error) {
		var req TransactionRequest
		if err := decode(body, &req); err != nil {
			return nil, nil, err
		}
		if req.TxID == "" {
			return nil, nil, errcode.New(errcode.BadRequest, "txId is required").Reason(errcode.ReasonBadRequest, errcode.NextFixRequest)
		}
		d, err := h.Transaction(ctx, req.TxID)
		return d, nil, err
	})
}

func (c *Client) Query(ctx context.Context, req QueryRequest) (*QueryData, error) {
	var d QueryData
	_, err := c.call(ctx, callQuery.route, req, &d)
	return &d, err
}

func (c *Client) Logs(ctx context.Context, req LogsRequest) (*LogsData, error) {
	var d LogsData
	_, err := c.call(ctx, callLogs.route, req, &d)
	return &d, err
}

func (c *Client) State(ctx context.Context, req StateRequest) (*StateData, error) {
	var d StateData
	_, err := c.call(ctx, callState.route, req, &d)
	return &d, err
}

func (c *Client) Transactions(ctx context.Context) (*TransactionsData, error) {
	var d TransactionsData
	_, err := c.call(ctx, callTxs.route, struct{}{}, &d)
	return &d, err
}

func (c *Client) Transaction(ctx context.Context, txID string) (*TransactionData, error) {
	var d TransactionData
	_, err := c.call(ctx, callTx.route, TransactionRequest{TxID: txID}, &d)
	return &d, err
}
