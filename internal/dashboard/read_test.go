package dashboard

import (
	"net/http"
	"strings"
	"testing"
)

// TestSecurityHeaders: every answer, page or API, carries the CSP, nosniff,
// no-referrer and no-framing headers; API answers are not cached.
func TestSecurityHeaders(t *testing.T) {
	s := testServer(t, Config{Reader: fakeClient(t, &recorder{}, nil)})
	for _, path := range []string{"/", "/api/rollouts", "/api/rollouts/shop/nope"} {
		w := do(t, s, "GET", path, "", nil)
		h := w.Header()
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, h)
		}
		if strings.HasPrefix(path, "/api/") && h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q", path, h.Get("Cache-Control"))
		}
	}
}

// TestIndexEmbedded: GET / serves the embedded page.
func TestIndexEmbedded(t *testing.T) {
	w := do(t, testServer(t, Config{Reader: fakeClient(t, &recorder{}, nil)}), "GET", "/", "", nil)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "<title>Ramp dashboard</title>") {
		t.Errorf("GET / = %d %.80q", w.Code, w.Body)
	}
}

// TestListRollouts: every namespace's rollouts as view rows, sorted.
func TestListRollouts(t *testing.T) {
	w := do(t, testServer(t, Config{Reader: fakeClient(t, &recorder{}, nil)}), "GET", "/api/rollouts", "", nil)
	l := decode[RolloutList](t, w)
	if w.Code != http.StatusOK || len(l.Items) != 2 || l.Items[0].Namespace != "bank" || l.Items[1].Name != "web" ||
		l.Items[1].Step != "1/2" || l.Items[1].Strategy != "Canary" {
		t.Errorf("GET /api/rollouts = %d %+v", w.Code, l.Items)
	}
}

// TestGetRollout: the tree, the run's every measurement with its
// condition, the rollout's own Events only, and the resourceVersion an
// action names.
func TestGetRollout(t *testing.T) {
	c := fakeClient(t, &recorder{}, nil)
	w := do(t, testServer(t, Config{Reader: c}), "GET", "/api/rollouts/shop/web", "", nil)
	d := decode[RolloutDetail](t, w)
	if w.Code != http.StatusOK || d.Rollout.Name != "web" || len(d.Rollout.Revisions) != 2 || d.ResourceVersion == "" {
		t.Fatalf("GET = %d %+v", w.Code, d)
	}
	if len(d.AnalysisRuns) != 1 || len(d.AnalysisRuns[0].Results[0].Measurements) != 2 ||
		d.AnalysisRuns[0].Results[0].Measurements[1].Metadata["verdict"] != "pass" || d.AnalysisRuns[0].Metrics[0].SuccessCondition != "result[0] < 0.05" {
		t.Errorf("analysis runs %+v", d.AnalysisRuns)
	}
	if len(d.Events) != 1 || d.Events[0].Reason != "RolloutPaused" {
		t.Errorf("events %+v, want the rollout's one Event", d.Events)
	}
	if len(d.Withheld) != 0 {
		t.Errorf("withheld %v in local mode", d.Withheld)
	}
}

// TestGetRolloutNotFound: 404 naming the rollout.
func TestGetRolloutNotFound(t *testing.T) {
	w := do(t, testServer(t, Config{Reader: fakeClient(t, &recorder{}, nil)}), "GET", "/api/rollouts/shop/nope", "", nil)
	if e := decode[apiError](t, w); w.Code != http.StatusNotFound || !strings.Contains(e.Error, `"shop/nope" not found`) {
		t.Errorf("GET unknown = %d %q", w.Code, e.Error)
	}
}
