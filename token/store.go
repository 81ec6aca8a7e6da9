package token

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/internal/atomicfile"
)

const (
	keyFile   = "token.key"
	ledgerDir = "spent"
	keySize   = 32
)

// Store holds one project's signing key and its ledger of spent token ids, both
// under one directory. It is safe for concurrent use by goroutines and by several
// processes opened on the same directory: the key is created once with an atomic
// link, and a token id is spent by exclusively creating its record in the ledger
// ("<dir>/spent/<bucket>/<jti>", see bucketSpan).
type Store struct {
	dir       string
	projectID string // never empty; the aud of every token this Store issues
	key       []byte // keySize bytes, never changed after Open
}

// Open returns the Store of project projectID kept in dir. It creates dir (0700)
// and the key file "<dir>/token.key" (32 random bytes, 0600) on first use and reads
// the key on later ones. A key file whose mode is wider than 0600 is tightened; one
// that cannot be read or is not 32 bytes long is refused.
func Open(dir, projectID string) (*Store, error) {
	if projectID == "" {
		return nil, errcode.New(errcode.Usage, "open token store: project id is empty").
			Reason(errcode.ReasonMissingProject, errcode.NextFixRequest)
	}
	if dir == "" {
		return nil, errcode.New(errcode.Usage, "open token store: directory is empty").
			Reason(errcode.ReasonMissingDir, errcode.NextFixRequest)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "open token store").
			Reason(errcode.ReasonStateDir, errcode.NextFixPermissions)
	}
	key, err := loadKey(filepath.Join(dir, keyFile))
	if err != nil {
		return nil, err
	}
	// Records of the flat layout move into buckets now, before this Store
	// checks any token against the ledger.
	_ = prune(filepath.Join(dir, ledgerDir), time.Now())
	return &Store{dir: dir, projectID: projectID, key: key}, nil
}

// ProjectID returns the project id the Store issues and accepts tokens for.
func (s *Store) ProjectID() string { return s.projectID }

// loadKey reads the key at path, creating it first if there is none.
func loadKey(path string) ([]byte, error) {
	key, err := readKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := createKey(path); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "create token key").
			Reason(errcode.ReasonKeyWrite, errcode.NextFixPermissions)
	}
	// Read back rather than use the bytes we generated: another process may have
	// created the key first, and then its key is the project's key.
	return readKey(path)
}

// readKey reads and checks the key file at path. A missing file is returned as is
// (fs.ErrNotExist); every other failure is an *errcode.Error.
func readKey(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, badKey(err, "read token key")
	}
	if !fi.Mode().IsRegular() {
		return nil, badKey(nil, fmt.Sprintf("token key %s is not a regular file", path))
	}
	// File modes mean little on Windows; the state dir's ACL protects the key there.
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, badKey(err, fmt.Sprintf("tighten mode %v of token key %s to 0600", fi.Mode().Perm(), path))
		}
	}
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, badKey(err, "read token key")
	}
	if len(key) != keySize {
		return nil, badKey(nil, fmt.Sprintf("token key %s has %d bytes, want %d", path, len(key), keySize))
	}
	return key, nil
}

func badKey(err error, msg string) *errcode.Error {
	e := errcode.New(errcode.Internal, "%s", msg)
	if err != nil {
		e = errcode.Wrap(errcode.Internal, err, msg)
	}
	return e.Reason(errcode.ReasonKeyInvalid, errcode.NextResetTokenKey, errcode.NextReplan)
}

// createKey writes a new random key into place unless a key is there already, so
// that no reader ever sees a partial key and a key another process created first
// wins.
func createKey(path string) error {
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("generate key: %w", err)
	}
	if err := atomicfile.Create(path, key, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// The ledger of spent token ids is "<dir>/spent/<end>/<jti>": records are
// bucketed by when they may go, end being the unix second that closes the
// minute in which the token's exp + Leeway falls. Spending is an exclusive
// create in one bucket, checking is one stat, and pruning removes whole buckets
// whose end has passed, listing only the few buckets (one per minute of MaxTTL)
// and never the records: every operation costs the same however many tokens
// were spent. Records of the older flat layout ("<dir>/spent/<jti>") are moved
// into their buckets by the first prune that sees them.
const (
	// bucketSpan is the time a ledger bucket covers.
	bucketSpan = time.Minute
	// pruneGrace keeps a bucket this long past its end, so that a Spend racing
	// the expiry of its token never finds its bucket removed under it.
	pruneGrace = time.Minute
)

// bucketEnd is the end of the bucket that holds a record to keep until until.
func bucketEnd(until time.Time) time.Time {
	end := until.Truncate(bucketSpan)
	if end.Before(until) {
		end = end.Add(bucketSpan)
	}
	return end
}

// bucket is the folder of c's record.
func (s *Store) bucket(c Claims) string {
	end := bucketEnd(c.ExpiresAt.Add(Leeway))
	return filepath.Join(s.dir, ledgerDir, strconv.FormatInt(end.Unix(), 10))
}

// Spend records c's token id as spent, so that Verify refuses the token from now on
// in every process that opens this Store's directory. Spending an id twice is
// E_CONFIRM_TOKEN_REPLAYED: of several concurrent Spends of one token, exactly one
// succeeds. The record is kept until c.ExpiresAt + Leeway (rounded up to the
// minute), after which Verify refuses the token as expired anyway; Spend prunes
// records past that time.
func (s *Store) Spend(c Claims) error {
	if !validID(c.ID) {
		return errcode.New(errcode.Usage, "spend confirm token: id %q is not 32 hex digits", c.ID).
			Reason(errcode.ReasonMalformed, errcode.NextFixRequest)
	}
	if c.ProjectID != s.projectID {
		return errWrongProject(c.ProjectID, s.projectID)
	}
	bucket := s.bucket(c)
	var f *os.File
	for attempt := 0; ; attempt++ {
		if err := os.MkdirAll(bucket, 0o700); err != nil {
			return errLedger(err)
		}
		var err error
		f, err = os.OpenFile(filepath.Join(bucket, c.ID), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return errReplayed()
		}
		// A bucket long expired may be pruned by another process between the
		// two calls: make it again.
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue
		}
		if err != nil {
			return errLedger(err)
		}
		break
	}
	// The token is spent as soon as the file exists; its bucket says when the
	// record may go. The content (that time) is for people reading the ledger,
	// so write errors past this point do not unspend it. No fsync: a record lost
	// with the page cache in a power cut leaves a token whose plan no longer
	// matches anything (its apply changed what the plan hashed), and an fsync
	// per apply costs more than the rest of the ledger's work together.
	_, _ = f.WriteString(strconv.FormatInt(c.ExpiresAt.Add(Leeway).Unix(), 10))
	_ = f.Close()
	// Pruning is housekeeping: a failure leaves extra records, never a wrong answer.
	_ = prune(filepath.Join(s.dir, ledgerDir), time.Now())
	return nil
}

// spent reports whether c's id is in the ledger.
func (s *Store) spent(c Claims) (bool, error) {
	_, err := os.Lstat(filepath.Join(s.bucket(c), c.ID))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, errLedger(err)
	}
}

// prune removes the buckets of the ledger dir whose end (plus pruneGrace) is
// before now, and moves records of the flat layout into their buckets (or
// removes them when they are past their time).
func prune(dir string, now time.Time) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case e.IsDir():
			sec, err := strconv.ParseInt(name, 10, 64)
			if err != nil || !now.After(time.Unix(sec, 0).Add(pruneGrace)) {
				continue
			}
			if err := os.RemoveAll(path); err != nil {
				errs = append(errs, err)
			}
		case e.Type().IsRegular() && validID(name):
			until, ok := recordUntil(path)
			if !ok {
				continue
			}
			if now.After(until.Add(pruneGrace)) {
				if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
				}
				continue
			}
			bucket := filepath.Join(dir, strconv.FormatInt(bucketEnd(until).Unix(), 10))
			if err := os.MkdirAll(bucket, 0o700); err != nil {
				errs = append(errs, err)
				continue
			}
			// Recorded in the bucket before removed from the flat layout, so the id
			// is in the ledger at every moment.
			if err := os.WriteFile(filepath.Join(bucket, name), []byte(strconv.FormatInt(until.Unix(), 10)), 0o600); err != nil {
				errs = append(errs, err)
				continue
			}
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// recordUntil returns the time until which the record at path must be kept: the
// unix seconds it holds, or, if it holds none, the latest expiry a token spent when
// the file was written could have.
func recordUntil(path string) (time.Time, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, false
	}
	if sec, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
		return time.Unix(sec, 0), true
	}
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime().Add(MaxTTL + Leeway), true
}

func errLedger(err error) *errcode.Error {
	return errcode.Wrap(errcode.Internal, err, "confirm token ledger").
		Reason(errcode.ReasonLedgerIO, errcode.NextFixPermissions)
}
