package dashboard

import (
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestRowOf: the list row carries the message, the actual weight (router,
// updated pods' share, all once promoted, "-" for blue-green), the
// template's images and the start of the current pause.
func TestRowOf(t *testing.T) {
	ro := world()[0].(*rampv1.Rollout)
	ro.Status.Replicas, ro.Status.UpdatedReplicas = 4, 1
	r := rowOf(ro)
	if r.Message != "CanaryPauseStep" || r.ActualWeight != "25" || len(r.Images) != 1 || r.Images[0] != "web:2" ||
		r.StepSince == nil || !r.StepSince.Equal(now) || r.Step != "1/2" || r.SetWeight != "50" {
		t.Errorf("row %+v", r)
	}
	ro.Spec.Strategy.Canary.TrafficRouting = &rampv1.RolloutTrafficRouting{}
	ro.Status.Canary.Weights = &rampv1.TrafficWeights{Canary: rampv1.WeightDestination{Weight: 30}}
	if w := rowOf(ro).ActualWeight; w != "30" {
		t.Errorf("routed weight %s, want 30", w)
	}
	ro.Status.StableRS = ro.Status.CurrentPodHash
	if w := rowOf(ro).ActualWeight; w != "100" {
		t.Errorf("promoted weight %s, want 100", w)
	}
	ro.Spec.Strategy = rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{}}
	if w := rowOf(ro).ActualWeight; w != "-" {
		t.Errorf("blue-green weight %s, want -", w)
	}
}

// TestTimeline: the steps' texts, the current index, and the end of a
// running timed pause from the controller's precise start, else from the
// end of the condition's second; none for a pause until promoted.
func TestTimeline(t *testing.T) {
	ro := world()[0].(*rampv1.Rollout)
	tl := timelineOf(ro)
	if len(tl.Steps) != 2 || tl.Steps[0].Text != "setWeight: 50" || tl.Steps[0].Pause != nil ||
		tl.Steps[1].Pause == nil || *tl.Steps[1].Pause != "" || tl.Current != 1 || tl.PauseEndsAt != nil {
		t.Fatalf("timeline %+v", tl)
	}
	ro.Spec.Strategy.Canary.Steps[1].Pause.Duration = ptr.To(intstr.FromString("1m"))
	if end := timelineOf(ro).PauseEndsAt; end == nil || !end.Equal(now.Add(time.Minute+time.Second)) {
		t.Errorf("pause end %v, want the condition's second's end + 1m", end)
	}
	precise := now.Add(300 * time.Millisecond)
	ro.Status.Canary.PauseStartTime = &metav1.MicroTime{Time: precise}
	if end := timelineOf(ro).PauseEndsAt; end == nil || !end.Equal(precise.Add(time.Minute)) {
		t.Errorf("pause end %v, want the precise start + 1m", end)
	}
	ro.Status.PauseConditions = nil
	if end := timelineOf(ro).PauseEndsAt; end != nil {
		t.Errorf("pause end %v while not paused", end)
	}
	ro.Spec.Strategy = rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{}}
	if tl := timelineOf(ro); tl != nil {
		t.Errorf("blue-green timeline %+v", tl)
	}
}

// TestAssetsServed: with the built bundle, GET / is its page and its
// script and style are served with their types, under the CSP.
func TestAssetsServed(t *testing.T) {
	files := fstest.MapFS{
		"index.html": {Data: []byte(`<!doctype html><title>Ramp</title><script src="app.js" defer></script>`)},
		"app.js":     {Data: []byte(`console.log(1)`)},
		"app.css":    {Data: []byte(`body{}`)},
	}
	s := testServer(t, Config{Reader: fakeClient(t, &recorder{}, nil), Assets: files})
	for path, want := range map[string]string{"/": "text/html", "/app.js": "text/javascript", "/app.css": "text/css"} {
		w := do(t, s, "GET", path, "", nil)
		if ct := w.Header().Get("Content-Type"); w.Code != http.StatusOK || !strings.HasPrefix(ct, want) || w.Header().Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s = %d %q", path, w.Code, ct)
		}
	}
}

// TestPlaceholderWithoutBundle: without the bundle, / is the placeholder
// page saying how to build it, and anything else 404.
func TestPlaceholderWithoutBundle(t *testing.T) {
	h := staticHandler(nil)
	if w := do(t, h, "GET", "/", "", nil); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "make build") {
		t.Errorf("GET / = %d %.80q", w.Code, w.Body)
	}
	if w := do(t, h, "GET", "/app.js", "", nil); w.Code != http.StatusNotFound {
		t.Errorf("GET /app.js = %d without the bundle", w.Code)
	}
}

// TestEmbeddedBundle: a binary built by make build (hack/web.sh) embeds
// the page, its script and style, and serves them by default. Skipped when
// the bundle was not built (go test without make build).
func TestEmbeddedBundle(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	s := testServer(t, Config{Reader: fakeClient(t, &recorder{}, nil)})
	page := do(t, s, "GET", "/", "", nil).Body.String()
	if !strings.Contains(page, `src="app.js"`) || !strings.Contains(page, `href="app.css"`) || strings.Contains(page, "<script>") || strings.Contains(page, "style=") {
		t.Errorf("page %.200q: want app.js and app.css, nothing inline (CSP)", page)
	}
	for _, path := range []string{"/app.js", "/app.css"} {
		if w := do(t, s, "GET", path, "", nil); w.Code != http.StatusOK || w.Body.Len() < 100 {
			t.Errorf("GET %s = %d, %d bytes", path, w.Code, w.Body.Len())
		}
	}
}
