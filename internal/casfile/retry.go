package casfile

import (
	"errors"
	"syscall"
	"time"
)

// retryBudget bounds how long an operation waits out transient refusals
// (Windows: a file held open by an editor or a virus scanner).
const retryBudget = 2 * time.Second

// retry runs op until it succeeds, fails for a reason that is not transient, or
// the budget is spent, backing off between tries.
func retry(op func() error) error {
	delay := 2 * time.Millisecond
	deadline := time.Now().Add(retryBudget)
	for {
		err := op()
		if err == nil || !transient(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
		delay = min(2*delay, 250*time.Millisecond)
	}
}

// isNotDir reports a path whose folder element is a file.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
