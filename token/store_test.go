package token_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/token"
)

func TestKeyCreatedAndReused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "proj") // Open makes missing dirs
	first := open(t, dir, projectA)
	path := filepath.Join(dir, "token.key")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("key file: %v", err)
	}
	if fi.Size() != 32 {
		t.Errorf("key file size = %d, want 32", fi.Size())
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode = %v, want 0600", fi.Mode().Perm())
	}
	key := keyOf(t, dir)

	// A second Open, as another process would do, reads the same key: tokens
	// cross over in both directions.
	second := open(t, dir, projectA)
	if diff := cmp.Diff(key, keyOf(t, dir)); diff != "" {
		t.Errorf("key file changed on second Open (-first +second):\n%s", diff)
	}
	now := time.Now()
	for _, tt := range []struct {
		name     string
		from, to *token.Store
	}{
		{"first to second", first, second},
		{"second to first", second, first},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tok, want := issue(t, tt.from, 0, now)
			got, err := tt.to.Verify(tok, session, now)
			if err != nil {
				t.Fatalf("Verify = %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Verify (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKeyCreatedOnceUnderConcurrentOpen(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	stores := make([]*token.Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = token.Open(dir, projectA) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open #%d = %v", i, err)
		}
	}
	now := time.Now()
	tok, _ := issue(t, stores[0], 0, now)
	for i, s := range stores {
		if _, err := s.Verify(tok, session, now); err != nil {
			t.Errorf("store #%d: Verify(token of store #0) = %v", i, err)
		}
	}
	left, err := filepath.Glob(filepath.Join(dir, ".token.key-*"))
	if err != nil || len(left) > 0 {
		t.Errorf("temp key files left behind: %v, %v", left, err)
	}
}

func TestKeyModeTightened(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix file modes")
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o666, 0o604} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "token.key")
			key := []byte("0123456789abcdef0123456789abcdef")
			if err := os.WriteFile(path, key, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
			open(t, dir, projectA)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("key file mode after Open = %v, want 0600", fi.Mode().Perm())
			}
			if diff := cmp.Diff(key, keyOf(t, dir)); diff != "" {
				t.Errorf("key file changed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenRefusals(t *testing.T) {
	tests := []struct {
		name    string
		project string
		setup   func(t *testing.T, dir string)
		code    errcode.Code
		reason  string
	}{
		{"empty project", "", nil, errcode.Usage, "missing_project"},
		{"empty key", projectA, writeKey(nil), errcode.Internal, "key_invalid"},
		{"short key", projectA, writeKey(make([]byte, 31)), errcode.Internal, "key_invalid"},
		{"long key", projectA, writeKey(make([]byte, 33)), errcode.Internal, "key_invalid"},
		{"hex key", projectA, writeKey([]byte("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")), errcode.Internal, "key_invalid"},
		{"key a directory", projectA, func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "token.key"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, errcode.Internal, "key_invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			s, err := token.Open(dir, tt.project)
			if s != nil {
				t.Errorf("Open gave a Store with its error")
			}
			checkRefusal(t, "Open", err, tt.code, tt.reason)
		})
	}
	if runtime.GOOS != "windows" && os.Geteuid() != 0 {
		t.Run("unreadable key", func(t *testing.T) {
			dir := t.TempDir()
			writeKey(make([]byte, 32))(t, dir)
			if err := os.Chmod(filepath.Join(dir, "token.key"), 0o000); err != nil {
				t.Fatal(err)
			}
			_, err := token.Open(dir, projectA)
			checkRefusal(t, "Open", err, errcode.Internal, "key_invalid")
		})
	}
}

func writeKey(key []byte) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "token.key"), key, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSpend(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name string
		// run spends or verifies tok (with claims c) in a Store on dir after a
		// first Spend of it and returns the error to check.
		run    func(t *testing.T, dir, tok string, c token.Claims) error
		code   errcode.Code
		reason string
	}{
		{"verify after spend", func(t *testing.T, dir, tok string, c token.Claims) error {
			_, err := open(t, dir, projectA).Verify(tok, session, now)
			return err
		}, errcode.ConfirmTokenReplayed, "spent"},
		{"verify with any session after spend", func(t *testing.T, dir, tok string, c token.Claims) error {
			_, err := open(t, dir, projectA).Verify(tok, "", now)
			return err
		}, errcode.ConfirmTokenReplayed, "spent"},
		{"spend twice", func(t *testing.T, dir, tok string, c token.Claims) error {
			return open(t, dir, projectA).Spend(c)
		}, errcode.ConfirmTokenReplayed, "spent"},
		{"spend under another project", func(t *testing.T, dir, tok string, c token.Claims) error {
			return open(t, dir, projectB).Spend(c)
		}, errcode.ConfirmTokenInvalid, "wrong_project"},
		{"spend claims without an id", func(t *testing.T, dir, tok string, c token.Claims) error {
			c.ID = ""
			return open(t, dir, projectA).Spend(c)
		}, errcode.Usage, "malformed"},
		{"spend claims with a path for an id", func(t *testing.T, dir, tok string, c token.Claims) error {
			c.ID = "../token.key"
			return open(t, dir, projectA).Spend(c)
		}, errcode.Usage, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir, projectA)
			tok, _ := issue(t, s, 0, now)
			c, err := s.Verify(tok, session, now)
			if err != nil {
				t.Fatalf("Verify = %v", err)
			}
			if err := s.Spend(c); err != nil {
				t.Fatalf("Spend = %v", err)
			}
			checkRefusal(t, tt.name, tt.run(t, dir, tok, c), tt.code, tt.reason)
		})
	}
}

func TestSpendLeavesOtherTokens(t *testing.T) {
	s := open(t, t.TempDir(), projectA)
	now := time.Now()
	_, spent := issue(t, s, 0, now)
	tok, want := issue(t, s, 0, now)
	if err := s.Spend(spent); err != nil {
		t.Fatalf("Spend = %v", err)
	}
	got, err := s.Verify(tok, session, now)
	if err != nil {
		t.Fatalf("Verify(unspent token) = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Verify (-want +got):\n%s", diff)
	}
}

func TestLedgerSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	s := open(t, dir, projectA)
	tok, c := issue(t, s, 0, now)
	if err := s.Spend(c); err != nil {
		t.Fatalf("Spend = %v", err)
	}

	reopened := open(t, dir, projectA)
	_, err := reopened.Verify(tok, session, now)
	checkRefusal(t, "Verify after reopen", err, errcode.ConfirmTokenReplayed, "spent")
	checkRefusal(t, "Spend after reopen", reopened.Spend(c), errcode.ConfirmTokenReplayed, "spent")
}

func TestConcurrentSpend(t *testing.T) {
	for _, tt := range []struct {
		name      string
		perWorker bool // each goroutine opens its own Store, as separate processes do
	}{
		{"one store", false},
		{"a store each", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir, projectA)
			now := time.Now()
			tok, _ := issue(t, s, 0, now)
			c, err := s.Verify(tok, session, now)
			if err != nil {
				t.Fatalf("Verify = %v", err)
			}
			const n = 8
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					st := s
					if tt.perWorker {
						if st, errs[i] = token.Open(dir, projectA); errs[i] != nil {
							return
						}
					}
					errs[i] = st.Spend(c)
				})
			}
			wg.Wait()
			got := map[errcode.Code]int{}
			for _, err := range errs {
				if err == nil {
					got["ok"]++
				} else {
					got[errcode.Of(err)]++
				}
			}
			want := map[errcode.Code]int{"ok": 1, errcode.ConfirmTokenReplayed: n - 1}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%d concurrent Spends (-want +got):\n%s", n, diff)
			}
		})
	}
}

func TestSpendPrunesExpiredRecords(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, projectA)
	ledger := filepath.Join(dir, "spent")
	now := time.Now()

	_, old := issue(t, s, time.Minute, now.Add(-time.Hour))       // expired long ago
	_, live := issue(t, s, token.MaxTTL, now.Add(-5*time.Minute)) // still valid
	for _, c := range []token.Claims{old, live} {
		if err := s.Spend(c); err != nil {
			t.Fatalf("Spend(%s) = %v", c.ID, err)
		}
	}
	// A record whose content was lost: kept for MaxTTL + Leeway after its mtime.
	const lost = "ffffffffffffffffffffffffffffffff"
	if err := os.WriteFile(filepath.Join(ledger, lost), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, trigger := issue(t, s, 0, now)
	if err := s.Spend(trigger); err != nil {
		t.Fatalf("Spend = %v", err)
	}

	want := map[string]bool{live.ID: true, lost: true, trigger.ID: true}
	if diff := cmp.Diff(want, records(t, ledger)); diff != "" {
		t.Errorf("ledger after pruning (-want +got):\n%s", diff)
	}
	// It is kept, moved into the bucket of the time a token spent when it was
	// written could live until.
	if _, err := os.Stat(filepath.Join(ledger, lost)); err == nil {
		t.Errorf("flat record %s was not moved into a bucket", lost)
	}
}

// records returns the token ids recorded in the ledger folder, whatever its layout.
func records(t *testing.T, ledger string) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	err := filepath.WalkDir(ledger, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			got[e.Name()] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestLedgerBuckets checks the layout that keeps Spend, Verify and pruning O(1):
// a record lives in the bucket of the minute its token's time runs out, and a
// bucket past its end is removed whole.
func TestLedgerBuckets(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, projectA)
	ledger := filepath.Join(dir, "spent")
	now := time.Now()
	tok, c := issue(t, s, 0, now)
	if err := s.Spend(c); err != nil {
		t.Fatalf("Spend = %v", err)
	}
	until := c.ExpiresAt.Add(token.Leeway)
	end := until.Truncate(time.Minute)
	if end.Before(until) {
		end = end.Add(time.Minute)
	}
	path := filepath.Join(ledger, strconv.FormatInt(end.Unix(), 10), c.ID)
	if _, err := os.Stat(path); err != nil {
		t.Errorf("record of a token expiring at %v: %v", c.ExpiresAt, err)
	}
	_, err := s.Verify(tok, session, now)
	checkRefusal(t, "Verify after Spend", err, errcode.ConfirmTokenReplayed, "spent")

	// Buckets ended long ago, with many records, go whole on the next Spend.
	for i := range 3 {
		old := filepath.Join(ledger, strconv.FormatInt(now.Add(-time.Duration(i+10)*time.Minute).Truncate(time.Minute).Unix(), 10))
		if err := os.MkdirAll(old, 0o700); err != nil {
			t.Fatal(err)
		}
		for j := range 50 {
			if err := os.WriteFile(filepath.Join(old, fmt.Sprintf("%032x", i*100+j)), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, c2 := issue(t, s, 0, now)
	if err := s.Spend(c2); err != nil {
		t.Fatalf("Spend = %v", err)
	}
	if diff := cmp.Diff(map[string]bool{c.ID: true, c2.ID: true}, records(t, ledger)); diff != "" {
		t.Errorf("ledger after pruning (-want +got):\n%s", diff)
	}
}

// TestFlatLedgerMigrates: records of the flat layout written before an upgrade
// still refuse their tokens after it, and expired ones go.
func TestFlatLedgerMigrates(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, projectA)
	now := time.Now()
	tok, c := issue(t, s, 0, now)
	ledger := filepath.Join(dir, "spent")
	if err := os.MkdirAll(ledger, 0o700); err != nil {
		t.Fatal(err)
	}
	flat := map[string]time.Time{
		c.ID:                               c.ExpiresAt.Add(token.Leeway),
		"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee": now.Add(-time.Hour),
	}
	for id, until := range flat {
		if err := os.WriteFile(filepath.Join(ledger, id), []byte(strconv.FormatInt(until.Unix(), 10)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	reopened := open(t, dir, projectA)
	_, err := reopened.Verify(tok, session, now)
	checkRefusal(t, "Verify of a token spent in the flat layout", err, errcode.ConfirmTokenReplayed, "spent")
	checkRefusal(t, "Spend of a token spent in the flat layout", reopened.Spend(c), errcode.ConfirmTokenReplayed, "spent")
	entries, err := os.ReadDir(ledger)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			t.Errorf("flat record %s left after Open", e.Name())
		}
	}
	if diff := cmp.Diff(map[string]bool{c.ID: true}, records(t, ledger)); diff != "" {
		t.Errorf("ledger after migration (-want +got):\n%s", diff)
	}
}

// BenchmarkSpendVerify is one apply's ledger work (Verify, Spend, and the Verify
// of a replay) with 0 to 10,000 tokens already spent: the cost must not grow.
func BenchmarkSpendVerify(b *testing.B) {
	for _, spent := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprintf("spent=%d", spent), func(b *testing.B) {
			s, err := token.Open(b.TempDir(), projectA)
			if err != nil {
				b.Fatal(err)
			}
			now := time.Now()
			for i := range spent {
				// All still live (the worst case: nothing to prune), spread over
				// the buckets of the last few minutes.
				at := now.Add(-time.Duration(i%4) * time.Minute)
				_, c, err := s.Issue("sha256:x", session, 0, at)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Spend(c); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				tok, _, err := s.Issue("sha256:x", session, 0, now)
				if err != nil {
					b.Fatal(err)
				}
				c, err := s.Verify(tok, session, now)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Spend(c); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Verify(tok, session, now); errcode.Of(err) != errcode.ConfirmTokenReplayed {
					b.Fatalf("Verify after Spend = %v", err)
				}
			}
		})
	}
}
