package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
)

// TestMeasureTextRedacted: whatever the web provider returns or fails with,
// for a secret in the URL path, the query, a header, the method or the
// jsonPath, and an endpoint that echoes it JSON-escaped, nothing of it
// survives analysis.Redactor (as the AnalysisRun controller applies it).
func TestMeasureTextRedacted(t *testing.T) {
	const sentinel = "ZQSENTINEL&8<k>/%\"q"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string]any{"h": r.Header.Get("X-Key"), "q": r.URL.RawQuery, "p": r.URL.Path})
		_, _ = w.Write(b)
	}))
	defer echo.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	header := []rampv1.WebMetricHeader{{Key: "X-Key", Value: sentinel}}
	path := "/v1/" + url.PathEscape(sentinel)
	query := "?k=" + url.QueryEscape(sentinel)
	r := analysis.NewRedactor([]string{sentinel})
	for name, m := range map[string]rampv1.WebMetric{
		"echo":         {URL: echo.URL + path + query, Headers: header},
		"echo field":   {URL: echo.URL + path, Headers: header, JSONPath: "{$.h}"},
		"unreachable":  {URL: closed.URL + path + query, Headers: header},
		"jsonPath":     {URL: echo.URL, JSONPath: "{$.data." + sentinel + "}"},
		"bad jsonPath": {URL: echo.URL, JSONPath: "{$.data[" + sentinel},
		"method":       {URL: echo.URL, Method: rampv1.WebMetricMethod(sentinel)},
	} {
		res, err := New().Measure(context.Background(), request(m))
		text := res.Display + res.Message
		if err != nil {
			text += err.Error()
		}
		out := r.Redact(text)
		for _, leak := range []string{"SENTINEL", "ZQSEN", "k>/", "8\\u003ck"} {
			if strings.Contains(out, leak) {
				t.Errorf("%s: %q survives in %q (from %q)", name, leak, out, text)
			}
		}
	}
}
