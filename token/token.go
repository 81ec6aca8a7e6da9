package token

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/atlas-rbx/atlas/errcode"
)

const (
	// DefaultTTL is how long a token lives when Issue is given no ttl.
	DefaultTTL = 5 * time.Minute
	// MaxTTL is the longest ttl Issue accepts.
	MaxTTL = 10 * time.Minute
	// Leeway is how far past its exp a token is still accepted, for clock skew
	// between the process that issued it and the one that verifies it.
	Leeway = 2 * time.Second

	issuer = "atlas"
	// maxLen bounds the tokens Verify parses; real ones are about 400 bytes.
	maxLen = 4096
)

// Claims are the claims of a confirm token. On the wire: iss "atlas", aud the
// project id, sub the plan hash, sid the Studio session id, iat, exp and jti.
type Claims struct {
	ProjectID string // aud; never empty in a verified token
	PlanHash  string // sub; never empty in a verified token
	SessionID string // sid; never empty in a verified token
	ID        string // jti: 128 random bits as 32 lowercase hex digits
	IssuedAt  time.Time
	ExpiresAt time.Time // whole seconds, UTC, like IssuedAt
}

// wireClaims is the JSON form of Claims. Claims not listed are ignored.
type wireClaims struct {
	jwt.RegisteredClaims
	SessionID string `json:"sid,omitempty"`
}

// Issue returns a confirm token for the plan with hash planHash, made against the
// Studio session sessionID, valid from now for ttl (0 means DefaultTTL, at most
// MaxTTL), and its claims. Times are truncated to whole seconds, as in the token.
func (s *Store) Issue(planHash, sessionID string, ttl time.Duration, now time.Time) (string, Claims, error) {
	switch {
	case planHash == "":
		return "", Claims{}, errcode.New(errcode.Usage, "issue confirm token: plan hash is empty").
			Reason(errcode.ReasonMissingPlanHash, errcode.NextFixRequest)
	case sessionID == "":
		return "", Claims{}, errcode.New(errcode.Usage, "issue confirm token: Studio session id is empty").
			Reason(errcode.ReasonMissingSession, errcode.NextFixRequest)
	case ttl < 0 || ttl > MaxTTL:
		return "", Claims{}, errcode.New(errcode.Usage, "issue confirm token: ttl %v is not between 0 and %v", ttl, MaxTTL).
			Reason(errcode.ReasonBadTTL, errcode.NextFixRequest)
	case ttl > 0 && ttl < time.Second:
		// A token counts whole seconds: it would be expired as it is issued.
		return "", Claims{}, errcode.New(errcode.Usage, "issue confirm token: ttl %v is shorter than a second, the least a token counts", ttl).
			Reason(errcode.ReasonBadTTL, errcode.NextFixRequest)
	case ttl == 0:
		ttl = DefaultTTL
	}
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", Claims{}, errcode.Wrap(errcode.Internal, err, "issue confirm token").
			Reason(errcode.ReasonRandom, errcode.NextReplan)
	}
	c := Claims{
		ProjectID: s.projectID,
		PlanHash:  planHash,
		SessionID: sessionID,
		ID:        hex.EncodeToString(id[:]),
		IssuedAt:  time.Unix(now.Unix(), 0).UTC(),
		ExpiresAt: time.Unix(now.Add(ttl).Unix(), 0).UTC(),
	}
	w := wireClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    issuer,
			Subject:   c.PlanHash,
			Audience:  jwt.ClaimStrings{c.ProjectID},
			ExpiresAt: jwt.NewNumericDate(c.ExpiresAt),
			IssuedAt:  jwt.NewNumericDate(c.IssuedAt),
			ID:        c.ID,
		},
		SessionID: c.SessionID,
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, w).SignedString(s.key)
	if err != nil {
		return "", Claims{}, errcode.Wrap(errcode.Internal, err, "sign confirm token").
			Reason(errcode.ReasonSign, errcode.NextReplan)
	}
	return tok, c, nil
}

// Verify checks tok at time now and returns its claims. The checks, in order, and
// the code of the first that fails:
//   - tok is not empty: E_CONFIRM_TOKEN_REQUIRED;
//   - it parses, is HS256 and is signed with this Store's key, and has every
//     required claim: E_CONFIRM_TOKEN_INVALID, reasonCode "malformed", "algorithm"
//     or "signature";
//   - iss is "atlas": E_CONFIRM_TOKEN_INVALID, "issuer";
//   - now is before exp + Leeway: E_CONFIRM_TOKEN_EXPIRED;
//   - aud is this Store's project: E_CONFIRM_TOKEN_INVALID, "wrong_project";
//   - sid is sessionID, unless sessionID is empty: E_CONFIRM_TOKEN_INVALID, "wrong_session";
//   - jti has not been spent: E_CONFIRM_TOKEN_REPLAYED.
//
// Verify does not spend the token; Spend does, once the apply succeeded.
func (s *Store) Verify(tok, sessionID string, now time.Time) (Claims, error) {
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return Claims{}, errcode.New(errcode.ConfirmTokenRequired, "a confirm token is required").
			Reason(errcode.ReasonMissing, errcode.NextPassToken)
	}
	if len(tok) > maxLen {
		return Claims{}, errInvalid(errcode.ReasonMalformed, fmt.Sprintf("confirm token is %d bytes long, more than a token can be", len(tok)), nil)
	}
	var w wireClaims
	p := jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithTimeFunc(func() time.Time { return now }),
		jwt.WithLeeway(Leeway),
		jwt.WithIssuer(issuer),
		jwt.WithAudience(s.projectID),
		jwt.WithExpirationRequired(),
	)
	t, err := p.ParseWithClaims(tok, &w, func(t *jwt.Token) (any, error) {
		if t.Method != jwt.SigningMethodHS256 {
			return nil, fmt.Errorf("unexpected signing method %v", t.Header["alg"])
		}
		return s.key, nil
	})
	if err != nil && !errors.Is(err, jwt.ErrTokenInvalidClaims) {
		return Claims{}, parseError(t, err)
	}
	// The signature is good from here on: the claims are ours, however old.
	c := Claims{
		PlanHash:  w.Subject,
		SessionID: w.SessionID,
		ID:        w.ID,
	}
	if len(w.Audience) == 1 {
		c.ProjectID = w.Audience[0]
	}
	if w.IssuedAt != nil {
		c.IssuedAt = w.IssuedAt.UTC()
	}
	if w.ExpiresAt != nil {
		c.ExpiresAt = w.ExpiresAt.UTC()
	}
	if missing := missingClaims(w); len(missing) > 0 {
		return Claims{}, errInvalid(errcode.ReasonMalformed, "confirm token lacks required claims "+strings.Join(missing, ", "), nil)
	}
	if len(w.Audience) != 1 {
		return Claims{}, errInvalid(errcode.ReasonMalformed, fmt.Sprintf("confirm token has %d audiences, want 1", len(w.Audience)), nil)
	}
	if !validID(c.ID) {
		return Claims{}, errInvalid(errcode.ReasonMalformed, fmt.Sprintf("confirm token id %q is not 32 hex digits", c.ID), nil)
	}
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return Claims{}, errInvalid(errcode.ReasonMalformed, "confirm token lacks a required claim", err)
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return Claims{}, errInvalid(errcode.ReasonIssuer, fmt.Sprintf("confirm token was issued by %q, not %q", w.Issuer, issuer), nil)
	case errors.Is(err, jwt.ErrTokenExpired):
		return Claims{}, errcode.New(errcode.ConfirmTokenExpired, "confirm token expired at %s", c.ExpiresAt.Format(time.RFC3339)).
			With("expiresAt", c.ExpiresAt.Format(time.RFC3339)).
			Reason(errcode.ReasonExpired, errcode.NextReplan)
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return Claims{}, errWrongProject(c.ProjectID, s.projectID)
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return Claims{}, errInvalid(errcode.ReasonNotYetValid, "confirm token is not valid yet", nil)
	default:
		return Claims{}, errInvalid(errcode.ReasonMalformed, "check confirm token claims", err)
	}
	if sessionID != "" && c.SessionID != sessionID {
		return Claims{}, errcode.New(errcode.ConfirmTokenInvalid,
			"confirm token is for Studio session %q, not %q", c.SessionID, sessionID).
			Reason(errcode.ReasonWrongSession, errcode.NextSelectSession, errcode.NextReplan)
	}
	spent, serr := s.spent(c)
	if serr != nil {
		return Claims{}, serr
	}
	if spent {
		return Claims{}, errReplayed()
	}
	return c, nil
}

// parseError classifies an error of parsing or checking the signature of t.
func parseError(t *jwt.Token, err error) *errcode.Error {
	if errors.Is(err, jwt.ErrTokenMalformed) || t == nil {
		return errInvalid(errcode.ReasonMalformed, "parse confirm token", err)
	}
	alg, ok := t.Header["alg"].(string)
	switch {
	case !ok:
		return errInvalid(errcode.ReasonMalformed, "confirm token has no algorithm", err)
	case alg != jwt.SigningMethodHS256.Alg():
		return errInvalid(errcode.ReasonAlgorithm, fmt.Sprintf("confirm token is signed with %q; only HS256 is accepted", alg), nil)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return errInvalid(errcode.ReasonSignature, "confirm token signature is invalid: it was not issued for this project's key", nil)
	default:
		return errInvalid(errcode.ReasonMalformed, "verify confirm token", err)
	}
}

// missingClaims returns the names of the required claims w lacks.
func missingClaims(w wireClaims) []string {
	var missing []string
	if w.Subject == "" {
		missing = append(missing, "sub")
	}
	if w.ID == "" {
		missing = append(missing, "jti")
	}
	if w.ExpiresAt == nil {
		missing = append(missing, "exp")
	}
	if len(w.Audience) == 0 || w.Audience[0] == "" {
		missing = append(missing, "aud")
	}
	if w.SessionID == "" {
		missing = append(missing, "sid")
	}
	return missing
}

// validID reports whether id has the form of a jti: 32 lowercase hex digits. Ids
// name ledger files, so this also keeps them from naming any other path.
func validID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, r := range id {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

func errInvalid(reason errcode.Reason, msg string, cause error) *errcode.Error {
	e := errcode.New(errcode.ConfirmTokenInvalid, "%s", msg)
	if cause != nil {
		e = errcode.Wrap(errcode.ConfirmTokenInvalid, cause, msg)
	}
	return e.Reason(reason, errcode.NextPassToken, errcode.NextReplan)
}

func errWrongProject(got, want string) *errcode.Error {
	return errcode.New(errcode.ConfirmTokenInvalid, "confirm token is for project %q, not %q", got, want).
		Reason(errcode.ReasonWrongProject, errcode.NextReplan)
}

func errReplayed() *errcode.Error {
	return errcode.New(errcode.ConfirmTokenReplayed, "confirm token was already used; each token applies once").
		Reason(errcode.ReasonSpent, errcode.NextReplan)
}

// Peek reads a token's claims WITHOUT checking its signature or expiry. It is only
// for finding context (which plan a token names) before Verify decides.
func (s *Store) Peek(tok string) (Claims, error) {
	var w wireClaims
	if _, _, err := jwt.NewParser().ParseUnverified(strings.TrimSpace(tok), &w); err != nil {
		return Claims{}, errInvalid(errcode.ReasonMalformed, "the confirm token is not a JWT", err)
	}
	return Claims{PlanHash: w.Subject, SessionID: w.SessionID, ID: w.ID}, nil
}
