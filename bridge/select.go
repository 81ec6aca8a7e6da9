package bridge

import (
	"github.com/atlas-rbx/atlas/errcode"
)

// The contexts a session connects in (hello "context"): Studio's edit DataModel,
// and a playtest's server and client, which connect read-only.
const (
	ContextEdit   = "edit"
	ContextServer = "server"
	ContextClient = "client"
)

// Selector names the session a command runs against. ID picks a session by id,
// Context by the DataModel it runs in; neither picks the only edit session. Sync
// marks a command that writes (or plans to write) Studio: it never runs against a
// playtest's session.
type Selector struct {
	ID      string
	Context string
	Sync    bool
}

// Select returns the session sel names (README "Which Studio session a command
// uses"):
//
//   - ID given: that session, else E_STUDIO_NOT_CONNECTED (session_not_connected);
//     with Context too, the session must be in it, else E_STUDIO_NOT_CONNECTED
//     (session_context_mismatch).
//   - Context given: the only session in it; none is E_STUDIO_NOT_CONNECTED
//     (no_session_in_context), several E_STUDIO_AMBIGUOUS (several_sessions).
//   - Neither: the only edit session; none is E_STUDIO_NOT_CONNECTED, several
//     E_STUDIO_AMBIGUOUS. Playtest sessions are never picked by default.
//   - Sync and the session found (or the context named) is a playtest's:
//     E_STUDIO_READ_ONLY (read_only_session).
//
// Every refusal lists the connected sessions in details.sessions.
func (s *Server) Select(sel Selector) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch sel.Context {
	case "", ContextEdit, ContextServer, ContextClient:
	default:
		return nil, errcode.New(errcode.BadRequest, "context must be edit, server or client, not %q", sel.Context).
			Reason(errcode.ReasonBadRequest, errcode.NextFixRequest)
	}
	if sel.Sync && (sel.Context == ContextServer || sel.Context == ContextClient) {
		return nil, s.readOnlyLocked(sel.Context, "")
	}
	if sel.ID != "" {
		sess, ok := s.sessions[sel.ID]
		if !ok {
			return nil, errcode.New(errcode.StudioNotConnected, "studio session %s is not connected", sel.ID).
				Reason(errcode.ReasonSessionNotConnected, errcode.NextSelectSession, errcode.NextShowStatus).
				With("sessions", s.infosLocked())
		}
		if sel.Context != "" && sess.info.Context != sel.Context {
			return nil, errcode.New(errcode.StudioNotConnected, "studio session %s is a %s session, not %s", sel.ID, sess.info.Context, sel.Context).
				Reason(errcode.ReasonSessionContextMismatch, errcode.NextSelectSession, errcode.NextShowStatus).
				With("sessions", s.infosLocked())
		}
		if sel.Sync && sess.info.Context != ContextEdit {
			return nil, s.readOnlyLocked(sess.info.Context, sel.ID)
		}
		return sess, nil
	}
	want := sel.Context
	if want == "" {
		want = ContextEdit
	}
	var found []*Session
	for _, sess := range s.sessions {
		if sess.info.Context == want {
			found = append(found, sess)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return nil, errcode.New(errcode.StudioAmbiguous, "%d Studio %s sessions are connected; pick one by session id", len(found), want).
			Reason(errcode.ReasonSeveralSessions, errcode.NextSelectSession).
			With("sessions", s.infosLocked())
	case sel.Context != "":
		return nil, errcode.New(errcode.StudioNotConnected, "no Studio %s session is connected (a playtest's %s connects while it runs)", want, want).
			Reason(errcode.ReasonNoSessionInContext, errcode.NextSelectSession, errcode.NextShowStatus).
			With("sessions", s.infosLocked())
	case len(s.sessions) > 0:
		return nil, errcode.New(errcode.StudioNotConnected, "no Studio edit session is connected; only a playtest's, which a command uses only when named by sessionId or context").
			Reason(errcode.ReasonNoSessionInContext, errcode.NextSelectSession, errcode.NextConnectStudio).
			With("sessions", s.infosLocked())
	}
	return nil, errcode.New(errcode.StudioNotConnected, "no Studio session is connected").
		Reason(errcode.ReasonStudioNotConnected, errcode.NextConnectStudio).
		With("sessions", []SessionInfo{})
}

func (s *Server) readOnlyLocked(context, id string) *errcode.Error {
	what := "a playtest's " + context + " session"
	if id != "" {
		what = "studio session " + id + " (a playtest's " + context + ")"
	}
	return errcode.New(errcode.StudioReadOnly, "%s is read-only: sync, apply and undo run only against Studio's edit session", what).
		Reason(errcode.ReasonReadOnlySession, errcode.NextSelectSession, errcode.NextShowStatus).
		With("sessions", s.infosLocked())
}
