package token_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/atlas-rbx/atlas/errcode"
	"github.com/atlas-rbx/atlas/token"
)

const (
	projectA = "proj-a"
	projectB = "proj-b"
	planHash = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	session  = "studio-session-1"
	jti      = "00112233445566778899aabbccddeeff"
)

// open opens the Store of project in dir or fails the test.
func open(t testing.TB, dir, project string) *token.Store {
	t.Helper()
	s, err := token.Open(dir, project)
	if err != nil {
		t.Fatalf("Open(%q, %q) = %v", dir, project, err)
	}
	return s
}

// issue issues a token for planHash and session or fails the test.
func issue(t testing.TB, s *token.Store, ttl time.Duration, now time.Time) (string, token.Claims) {
	t.Helper()
	tok, c, err := s.Issue(planHash, session, ttl, now)
	if err != nil {
		t.Fatalf("Issue(%q, %q, %v, %v) = %v", planHash, session, ttl, now, err)
	}
	return tok, c
}

// keyOf reads the key a Store keeps in dir, as an attacker with the key would.
func keyOf(t testing.TB, dir string) []byte {
	t.Helper()
	key, err := os.ReadFile(filepath.Join(dir, "token.key"))
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// claimsAt returns the wire claims of a valid token of projectA issued at now.
func claimsAt(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss": "atlas",
		"aud": projectA,
		"sub": planHash,
		"sid": session,
		"iat": now.Unix(),
		"exp": now.Add(token.DefaultTTL).Unix(),
		"jti": jti,
	}
}

// with returns a copy of c with the given claims set, or deleted when nil.
func with(c jwt.MapClaims, kv ...any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		if kv[i+1] == nil {
			delete(out, k)
		} else {
			out[k] = kv[i+1]
		}
	}
	return out
}

// sign signs claims with method and key or fails the test.
func sign(t testing.TB, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatalf("sign %s: %v", method.Alg(), err)
	}
	return tok
}

// handMade builds a token from a header and claims by hand, with signature sig.
func handMade(t testing.TB, header map[string]any, claims jwt.MapClaims, sig string) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(header) + "." + enc(claims) + "." + sig
}

// checkRefusal fails the test unless err is an *errcode.Error with code and
// reasonCode and some next action.
func checkRefusal(t testing.TB, call string, err error, code errcode.Code, reason string) {
	t.Helper()
	var e *errcode.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s = %v (%T), want *errcode.Error %s", call, err, err, code)
	}
	got := []any{e.Code, e.Details["reasonCode"]}
	if diff := cmp.Diff([]any{code, reason}, got); diff != "" {
		t.Errorf("%s = %v; code, reasonCode (-want +got):\n%s", call, err, diff)
	}
	if next, _ := e.Details["nextActions"].([]string); len(next) == 0 {
		t.Errorf("%s: details.nextActions = %v, want some", call, e.Details["nextActions"])
	}
	if e.Message == "" || e.Message != strings.ToLower(e.Message[:1])+e.Message[1:] {
		t.Errorf("%s: message %q, want lowercase first letter", call, e.Message)
	}
}

func TestRoundTrip(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	iat := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name      string
		ttl       time.Duration
		sessionID string        // given to Verify
		after     time.Duration // from now to the Verify
		want      time.Time     // exp
	}{
		{"default ttl", 0, session, time.Minute, iat.Add(token.DefaultTTL)},
		{"one minute", time.Minute, session, 30 * time.Second, iat.Add(time.Minute)},
		{"max ttl", token.MaxTTL, session, 9 * time.Minute, iat.Add(token.MaxTTL)},
		{"any session", 0, "", time.Minute, iat.Add(token.DefaultTTL)},
		{"just issued", 0, session, 0, iat.Add(token.DefaultTTL)},
		// now + ttl is 03:05:05.6, exp is 03:05:05, and exp + 1 s is within Leeway.
		{"within leeway", time.Minute, session, time.Minute + 400*time.Millisecond, iat.Add(time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, t.TempDir(), projectA)
			tok, issued := issue(t, s, tt.ttl, now)
			want := token.Claims{
				ProjectID: projectA, PlanHash: planHash, SessionID: session, ID: issued.ID,
				IssuedAt: iat, ExpiresAt: tt.want,
			}
			if diff := cmp.Diff(want, issued); diff != "" {
				t.Errorf("Issue claims (-want +got):\n%s", diff)
			}
			if !validHex(issued.ID) {
				t.Errorf("Issue: jti %q, want 32 hex digits", issued.ID)
			}
			got, err := s.Verify(tok, tt.sessionID, now.Add(tt.after))
			if err != nil {
				t.Fatalf("Verify(%q) = %v", tok, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Verify claims (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIssueIDsDiffer(t *testing.T) {
	s := open(t, t.TempDir(), projectA)
	now := time.Now()
	seen := map[string]bool{}
	for range 100 {
		_, c := issue(t, s, 0, now)
		if seen[c.ID] {
			t.Fatalf("Issue gave jti %s twice", c.ID)
		}
		seen[c.ID] = true
	}
}

func TestIssueRefusals(t *testing.T) {
	s := open(t, t.TempDir(), projectA)
	tests := []struct {
		name                string
		planHash, sessionID string
		ttl                 time.Duration
		reason              string
	}{
		{"ttl over max", planHash, session, token.MaxTTL + time.Second, "bad_ttl"},
		{"ttl an hour", planHash, session, time.Hour, "bad_ttl"},
		{"negative ttl", planHash, session, -time.Second, "bad_ttl"},
		{"ttl under a second", planHash, session, time.Millisecond, "bad_ttl"},
		{"no plan hash", "", session, 0, "missing_plan_hash"},
		{"no session", planHash, "", 0, "missing_session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, _, err := s.Issue(tt.planHash, tt.sessionID, tt.ttl, time.Now())
			if tok != "" {
				t.Errorf("Issue gave token %q with its error", tok)
			}
			checkRefusal(t, "Issue", err, errcode.Usage, tt.reason)
		})
	}
}

func TestVerifyRefusals(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	dir := t.TempDir()
	s := open(t, dir, projectA)
	key := keyOf(t, dir)
	good, c := issue(t, s, time.Minute, now)
	parts := strings.Split(good, ".")

	other := open(t, t.TempDir(), projectA) // same project, another key
	fromOther, _ := issue(t, other, time.Minute, now)
	fromB, _ := issue(t, open(t, dir, projectB), time.Minute, now) // same key, another project

	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	wire := claimsAt(now)
	tampered := with(wire, "sub", "sha256:forged")

	tests := []struct {
		name      string
		tok       string
		sessionID string
		at        time.Time
		code      errcode.Code
		reason    string
	}{
		{"empty", "", session, now, errcode.ConfirmTokenRequired, "missing"},
		{"blank", " \n", session, now, errcode.ConfirmTokenRequired, "missing"},
		{"garbage", "not a token", session, now, errcode.ConfirmTokenInvalid, "malformed"},
		{"three garbage parts", "a.b.c", session, now, errcode.ConfirmTokenInvalid, "malformed"},
		{"truncated", good[:len(good)-20] + "." + parts[2], session, now, errcode.ConfirmTokenInvalid, "malformed"},
		{"huge", good + strings.Repeat("A", 5000), session, now, errcode.ConfirmTokenInvalid, "malformed"},
		{"another key", fromOther, session, now, errcode.ConfirmTokenInvalid, "signature"},
		{"tampered claims", handMade(t, map[string]any{"alg": "HS256", "typ": "JWT"}, tampered, parts[2]), session, now,
			errcode.ConfirmTokenInvalid, "signature"},
		{"no signature", parts[0] + "." + parts[1] + ".", session, now, errcode.ConfirmTokenInvalid, "signature"},
		{"alg none", handMade(t, map[string]any{"alg": "none"}, wire, ""), session, now,
			errcode.ConfirmTokenInvalid, "algorithm"},
		{"alg none with a good signature", handMade(t, map[string]any{"alg": "none", "typ": "JWT"}, wire, parts[2]), session, now,
			errcode.ConfirmTokenInvalid, "algorithm"},
		{"alg unknown", handMade(t, map[string]any{"alg": "HS999"}, wire, parts[2]), session, now,
			errcode.ConfirmTokenInvalid, "algorithm"},
		{"no alg", handMade(t, map[string]any{"typ": "JWT"}, wire, parts[2]), session, now,
			errcode.ConfirmTokenInvalid, "malformed"},
		{"HS512 with the right key", sign(t, jwt.SigningMethodHS512, key, wire), session, now,
			errcode.ConfirmTokenInvalid, "algorithm"},
		{"HS384 with the right key", sign(t, jwt.SigningMethodHS384, key, wire), session, now,
			errcode.ConfirmTokenInvalid, "algorithm"},
		{"RS256", sign(t, jwt.SigningMethodRS256, rsaKey, wire), session, now,
			errcode.ConfirmTokenInvalid, "algorithm"},
		{"wrong issuer", sign(t, jwt.SigningMethodHS256, key, with(wire, "iss", "rojo")), session, now,
			errcode.ConfirmTokenInvalid, "issuer"},
		{"no issuer", sign(t, jwt.SigningMethodHS256, key, with(wire, "iss", nil)), session, now,
			errcode.ConfirmTokenInvalid, "malformed"},
		{"no sub", sign(t, jwt.SigningMethodHS256, key, with(wire, "sub", nil)), session, now,
			errcode.ConfirmTokenInvalid, "malformed"},
		{"no jti", sign(t, jwt.SigningMethodHS256, key, with(wire, "jti", nil)), session, now,
			errcode.ConfirmTokenInvalid, "malformed"},
		{"jti a path", sign(t, jwt.SigningMethodHS256, key, with(wire, "jti", "../../token.key")), session, now,
			errcode.ConfirmTokenInvalid, "malformed"},
		{"no exp", sign(t, jwt.SigningMethodHS256, key, with(wire, "exp", nil)), session, now,
			errcode.ConfirmTokenInvalid, "malformed"},
		{"exp a string", sign(t, jwt.SigningMethodHS256, key, with(wire, "exp", "soon")), session, now,
			errcode.ConfirmTokenInvalid, "malformed"},
		{"no aud", sign(t, jwt.SigningMethodHS256, key, with(wire, "aud", nil)), session, now,
			errcode.ConfirmTokenInvalid, "malformed"},
		{"no sid", sign(t, jwt.SigningMethodHS256, key, with(wire, "sid", nil)), "", now,
			errcode.ConfirmTokenInvalid, "malformed"},
		{"two audiences", sign(t, jwt.SigningMethodHS256, key, with(wire, "aud", []string{projectA, projectB})), session, now,
			errcode.ConfirmTokenInvalid, "malformed"},
		{"not valid yet", sign(t, jwt.SigningMethodHS256, key, with(wire, "nbf", now.Add(time.Minute).Unix())), session, now,
			errcode.ConfirmTokenInvalid, "not_yet_valid"},
		{"expired by 3s", good, session, c.ExpiresAt.Add(3 * time.Second), errcode.ConfirmTokenExpired, "expired"},
		{"expired at exp + leeway", good, session, c.ExpiresAt.Add(token.Leeway), errcode.ConfirmTokenExpired, "expired"},
		{"expired long ago", good, session, now.Add(24 * time.Hour), errcode.ConfirmTokenExpired, "expired"},
		{"wrong project", fromB, session, now, errcode.ConfirmTokenInvalid, "wrong_project"},
		{"expired before wrong project", fromB, session, now.Add(time.Hour), errcode.ConfirmTokenExpired, "expired"},
		{"wrong session", good, "studio-session-2", now, errcode.ConfirmTokenInvalid, "wrong_session"},
		{"wrong project before wrong session", fromB, "studio-session-2", now, errcode.ConfirmTokenInvalid, "wrong_project"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Verify(tt.tok, tt.sessionID, tt.at)
			if diff := cmp.Diff(token.Claims{}, got); diff != "" {
				t.Errorf("Verify gave claims with its error (-want +got):\n%s", diff)
			}
			checkRefusal(t, "Verify", err, tt.code, tt.reason)
		})
	}
}

func TestVerifyIgnoresUnknownClaims(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	dir := t.TempDir()
	s := open(t, dir, projectA)
	tok := sign(t, jwt.SigningMethodHS256, keyOf(t, dir), with(claimsAt(now), "color", "blue", "n", 42))
	got, err := s.Verify(tok, session, now)
	if err != nil {
		t.Fatalf("Verify = %v", err)
	}
	want := token.Claims{
		ProjectID: projectA, PlanHash: planHash, SessionID: session, ID: jti,
		IssuedAt: now, ExpiresAt: now.Add(token.DefaultTTL),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Verify (-want +got):\n%s", diff)
	}
}

func validHex(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

func BenchmarkIssue(b *testing.B) {
	s := open(b, b.TempDir(), projectA)
	now := time.Now()
	for b.Loop() {
		if _, _, err := s.Issue(planHash, session, 0, now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	s := open(b, b.TempDir(), projectA)
	now := time.Now()
	tok, _ := issue(b, s, 0, now)
	for b.Loop() {
		if _, err := s.Verify(tok, session, now); err != nil {
			b.Fatal(err)
		}
	}
}
