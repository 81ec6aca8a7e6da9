package host_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-rbx/atlas/host"
	"github.com/atlas-rbx/atlas/host/hosttest"
)

// TestLocalAPIAuthorization calls the local API over HTTP with Authorization
// headers of every form: only the Bearer scheme with the host's secret passes.
func TestLocalAPIAuthorization(t *testing.T) {
	e := hosttest.Start(t, nil, nil)
	b, err := os.ReadFile(filepath.Join(host.ProjectStateDir(e.StateDir, e.Location.File), "host.secret"))
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSpace(string(b))
	tests := []struct {
		name   string
		header string // "" sends none
		want   int
	}{
		{"bearer", "Bearer " + secret, http.StatusOK},
		{"scheme in lower case", "bearer " + secret, http.StatusOK},
		{"scheme in upper case", "BEARER " + secret, http.StatusOK},
		{"several spaces", "Bearer   " + secret, http.StatusOK},
		{"no header", "", http.StatusUnauthorized},
		{"bare secret", secret, http.StatusUnauthorized},
		{"other scheme", "Basic " + secret, http.StatusUnauthorized},
		{"scheme glued to the secret", "Bearer" + secret, http.StatusUnauthorized},
		{"tab instead of space", "Bearer\t" + secret, http.StatusUnauthorized},
		{"scheme alone", "Bearer", http.StatusUnauthorized},
		{"wrong secret", "Bearer " + strings.Repeat("0", len(secret)), http.StatusUnauthorized},
		{"secret with more after it", "Bearer " + secret + " x", http.StatusUnauthorized},
		{"secret twice", "Bearer " + secret + secret, http.StatusUnauthorized},
		{"prefix of the secret", "Bearer " + secret[:len(secret)-1], http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, e.Host.URL()+"/api/v1/status", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("POST status with Authorization %q = %d, want %d", tt.header, resp.StatusCode, tt.want)
			}
			if tt.want == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("401 without WWW-Authenticate: Bearer")
			}
		})
	}
}
