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
// link, and a token id is spent by exclusively creating "<dir>/spent/<jti>".
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

// Spend records c's token id as spent, so that Verify refuses the token from now on
// in every process that opens this Store's directory. Spending an id twice is
// E_CONFIRM_TOKEN_REPLAYED: of several concurrent Spends of one token, exactly one
// succeeds. The record is kept until c.ExpiresAt + Leeway, after which Verify refuses
// the token as expired anyway; Spend prunes records past that time.
func (s *Store) Spend(c Claims) error {
	if !validID(c.ID) {
		return errcode.New(errcode.Usage, "spend confirm token: id %q is not 32 hex digits", c.ID).
			Reason(errcode.ReasonMalformed, errcode.NextFixRequest)
	}
	if c.ProjectID != s.projectID {
		return errWrongProject(c.ProjectID, s.projectID)
	}
	dir := filepath.Join(s.dir, ledgerDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return errLedger(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, c.ID), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return errReplayed()
	}
	if err != nil {
		return errLedger(err)
	}
	// The token is spent as soon as the file exists. Its content only tells pruning
	// when the record may go, and pruning falls back on the file's mtime when the
	// content is missing, so write errors past this point do not unspend it.
	_, _ = f.WriteString(strconv.FormatInt(c.ExpiresAt.Add(Leeway).Unix(), 10))
	_ = f.Sync()
	_ = f.Close()
	// Pruning is housekeeping: a failure leaves extra records, never a wrong answer.
	_ = prune(dir, c.ID, time.Now())
	return nil
}

// spent reports whether id is in the ledger.
func (s *Store) spent(id string) (bool, error) {
	_, err := os.Lstat(filepath.Join(s.dir, ledgerDir, id))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, errLedger(err)
	}
}

// prune removes the ledger records in dir whose time is past now, except keep's.
func prune(dir, keep string, now time.Time) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if name == keep || !validID(name) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, name)
		until, ok := recordUntil(path)
		if !ok || !now.After(until) {
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
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
