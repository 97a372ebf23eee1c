package httpfetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// TestStatusError: each class of vendor answer is named, a rate limit with
// when it lifts (Retry-After first, else X-RateLimit-Reset) and the
// limit's name, and the vendor's message is quoted on one line, cut.
func TestStatusError(t *testing.T) {
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	for _, tc := range []struct {
		resp Response
		msg  string
		want string
	}{
		{Response{Status: 401}, "bad\nkey", "HTTP 401 Unauthorized: credentials refused: bad key"},
		{Response{Status: 403}, "", "HTTP 403 Forbidden: credentials refused"},
		{Response{Status: 429, Header: h("Retry-After", "30", "X-RateLimit-Reset", "9")}, "slow down", "HTTP 429 Too Many Requests: rate limited (Retry-After 30): slow down"},
		{Response{Status: 429, Header: h("X-RateLimit-Reset", "17", "X-RateLimit-Name", "query")}, "", "HTTP 429 Too Many Requests: rate limited (resets in 17s, limit query)"},
		{Response{Status: 429}, "", "HTTP 429 Too Many Requests: rate limited"},
		{Response{Status: 502}, "", "HTTP 502 Bad Gateway: server error"},
		{Response{Status: 400}, "bad query", "HTTP 400 Bad Request: request refused: bad query"},
		{Response{Status: 599}, "", "HTTP 599: server error"},
		{Response{Status: 299}, "", "HTTP 299: unexpected status"},
		{Response{Status: 204}, "", "HTTP 204 No Content: unexpected status"},
	} {
		if got := StatusError(tc.resp, tc.msg).Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	long := StatusError(Response{Status: 500}, strings.Repeat("é", 400)).Error()
	if !strings.HasSuffix(long, "...") || len(long) > MaxExcerpt+60 || !strings.Contains(long, "éé") || strings.ContainsRune(long, '\uFFFD') {
		t.Errorf("long message not cut at a rune: %q", long)
	}
}

// TestSendOK: a 200's body comes back; any other status is StatusError
// quoting what message finds in the body (the body itself without one).
func TestSendOK(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			w.WriteHeader(http.StatusBadRequest)
		}
		_, _ = w.Write([]byte(`{"m":"no such metric"}`))
	}))
	defer srv.Close()
	c := NewClients(nil, provider.HTTPPolicy{}).For(false)
	msg := func(b []byte) string { return "vendor says " + string(b[6:20]) }
	for _, tc := range []struct {
		path    string
		message func([]byte) string
		body    string
		err     string
	}{
		{"/", msg, `{"m":"no such metric"}`, ""},
		{"/bad", msg, "", "HTTP 400 Bad Request: request refused: vendor says no such metric"},
		{"/bad", nil, "", `HTTP 400 Bad Request: request refused: {"m":"no such metric"}`},
	} {
		r, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+tc.path, nil)
		body, err := SendOK(context.Background(), c, r, tc.message)
		if string(body) != tc.body || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("%s: %q, %v; want %q, %q", tc.path, body, err, tc.body, tc.err)
		}
	}
}
