package dashboard

import (
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestListInBrowser: 1,000 rollouts in headless Chromium: the list shows
// them all, a status change pushed through the hub and /api/events
// replaces that one row in place (the others' elements stay), and the
// filter narrows to the one rollout named. Prints how long the list took
// to show and the change to appear (figures, not assertions). Skipped
// without the bundle or chromium.
func TestListInBrowser(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(fleet(1000)...).WithStatusSubresource(&rampv1.Rollout{}).Build()
	hub := NewHub(Render(c), 256)
	go hub.Run(t.Context(), 100*time.Millisecond)
	srv := httptest.NewServer(testServer(t, Config{Reader: c, Hub: hub}))
	t.Cleanup(srv.Close) // after the browser (cleanups run last first), whose event stream would hold it open
	b := startBrowser(t, 1280)

	start := time.Now()
	b.open(srv.URL + "/")
	b.waitFor(`document.querySelector("main [role=status]")?.textContent === "1000 of 1000 rollouts shown" && document.querySelector("table").dataset.paintedAt`, `document.body.innerText.slice(0, 300)`)
	t.Logf("measured: list of 1,000 rollouts shown %v after navigation (fake client, headless Chromium); in the page: %s",
		time.Since(start).Round(time.Millisecond), b.eval(`(() => { const a = performance.getEntriesByName(location.origin + "/api/rollouts")[0];
			return "API answer at " + Math.round(a.responseEnd) + " ms (request " + Math.round(a.responseEnd - a.requestStart) + " ms), rows painted at " + document.querySelector("table").dataset.paintedAt + " ms" })()`))
	b.waitFor(`document.getElementById("live")?.textContent === "live"`, `document.getElementById("live")?.textContent`)

	// Mark a neighbour's row element to see it is not rebuilt.
	b.eval(`document.querySelector('a[href="#/rollouts/ns-08/ro-0008"]').closest("tr").dataset.mark = "kept"`)
	key := types.NamespacedName{Namespace: "ns-07", Name: "ro-0007"}
	var ro rampv1.Rollout
	if err := c.Get(t.Context(), key, &ro); err != nil {
		t.Fatal(err)
	}
	ro.Status.Phase, ro.Status.Message = rampv1.RolloutPhaseDegraded, "RolloutAborted: metric errors failed"
	if err := c.Status().Update(t.Context(), &ro); err != nil {
		t.Fatal(err)
	}
	changed := time.Now()
	hub.Changed(key)
	row := `document.querySelector('a[href="#/rollouts/ns-07/ro-0007"]').closest("tr")`
	b.waitFor(row+`.innerText.includes("RolloutAborted: metric errors failed")`, row+`.innerText`)
	t.Logf("measured: a status change shown %v after the hub was told (100 ms coalescing window)", time.Since(changed).Round(time.Millisecond))
	if got := b.eval(row + `.querySelector(".phase").textContent`); got != "Degraded" {
		t.Errorf("changed row's phase %q", got)
	}
	if got := b.eval(`document.querySelector('a[href="#/rollouts/ns-08/ro-0008"]').closest("tr").dataset.mark || ""`); got != "kept" {
		t.Errorf("a neighbour's row was rebuilt by another rollout's change")
	}

	b.eval(`const f = document.getElementById("filter"); f.value = "ro-0007"; f.dispatchEvent(new Event("input"))`)
	b.waitFor(`document.querySelector("main [role=status]").textContent === "1 of 1000 rollouts shown"`, `document.querySelector("main [role=status]").textContent`)
	if n := b.eval(`String([...document.querySelectorAll("tbody tr")].filter((r) => !r.hidden).length)`); n != "1" {
		t.Errorf("%s rows visible after filtering, want 1", n)
	}
}
