package dashboard

import (
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestEvidenceInBrowser: in headless Chromium, at 1280 and 390 px, the
// rollout page of the Istio-routed canary with an HPA shows the planner's
// forecast on the timeline (under each remaining step, the completion
// after them, where it comes from), the weights the controller set on the
// router, the header route in place and the HPA's figures; Promote's
// dialog says what the planner expects of the next step, and Undo's says
// which images the chosen revision brings back. A blue-green update shows
// its remaining phases, the promotion pause current. Skipped without the
// bundle or chromium.
func TestEvidenceInBrowser(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	c := fakeClientOf(t, &recorder{}, nil, routedWorld())
	srv := httptest.NewServer(testServer(t, Config{Reader: c, Writer: c, Actions: true}))
	t.Cleanup(srv.Close)
	for _, width := range []int{1280, 390} {
		if os.Getenv("RAMP_DASHBOARD_SCREENSHOTS") != "" { // to look at
			chromium(t, srv.URL+"/#/rollouts/shop/web", "evidence-"+strconv.Itoa(width)+".png", width)
		}
		b := startBrowser(t, width)
		b.open(srv.URL + "/#/rollouts/shop/web")
		b.waitFor(`document.querySelector("[data-section=hpa]")`, "document.body.innerText")
		text := b.eval(`document.querySelector("main").innerText`)
		current := b.eval(`document.querySelector("ol.timeline li[aria-current=step] .forecast")?.textContent`)
		if !strings.Contains(current, "25% (actual 25%), canary 1, stable 3; paused until promoted") {
			t.Errorf("width %d: the current step's forecast is %q", width, current)
		}
		for _, want := range []string{
			"50% (actual 50%), canary 2, stable 2", // step 4, forecast
			"Complete",                             // the point after the steps
			"the new ReplicaSet becomes stable; the previous one stays", // what happens there
			"Forecast: (Ramp's planner (as `ramp plan`) simulates",
			"VirtualService web-vs", "25% web-canary (bbb)", "75% web-stable (aaa)", // the router and its weights
			`beta (header): header X-Beta exact "yes"`, // the route in place
			"HPA web-hpa", "4 current, 5 desired replicas (min 2, max 8)", "83%", "70% (average utilization)",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("width %d: the rollout page lacks %q:\n%s", width, want, text)
			}
		}
		if n := b.eval(`String(document.querySelectorAll("ol.timeline li.done .forecast").length)`); n != "0" {
			t.Errorf("width %d: %s done steps carry a forecast", width, n)
		}
		if n := b.eval(`String(document.querySelectorAll("ol.timeline > li").length)`); n != "5" { // the steps only: e2e tests count them
			t.Errorf("width %d: the timeline has %s items, want the 5 steps", width, n)
		}
		if width != 1280 {
			continue
		}
		b.eval(clickButton("Promote"))
		b.waitFor(`document.querySelector("dialog[open]")`, "document.body.innerText")
		want := "Ends step 3 (pause) and moves on to step 4 (setWeight: 50): canary 2 pods, stable 2, 50% of traffic."
		if says := b.eval(`document.querySelector("dialog[open] .says").textContent`); says != want {
			t.Errorf("promote dialog says %q, want %q", says, want)
		}
		b.eval(clickButton("Cancel"))
		b.waitFor(`!document.querySelector("dialog[open]")`, "document.body.innerText")
		b.eval(clickButton("Undo"))
		b.waitFor(`document.querySelector("dialog[open] #undo-revision")`, "document.body.innerText")
		b.eval(`const s = document.querySelector("#undo-revision"); s.value = "2"; s.dispatchEvent(new Event("change"))`)
		if says := b.eval(`document.querySelector("dialog[open] .says").textContent`); !strings.Contains(says, "revision 2 (app=web:2): it is the current template") {
			t.Errorf("undo to revision 2 says %q", says)
		}
		b.eval(clickButton("Cancel"))
	}

	// A blue-green update: its remaining phases, the promotion pause current.
	b := startBrowser(t, 390)
	b.open(srv.URL + "/#/rollouts/shop/blue")
	b.waitFor(`document.querySelector("[data-forecast=phases]")`, "document.body.innerText")
	phases := b.eval(`[...document.querySelectorAll("[data-forecast=phases] > li")].map((li) => li.className + ": " + li.textContent).join("\n")`)
	for _, want := range []string{"current forecast-point: 1PromotionForecast: new 2, old 2, active old; paused until promoted",
		"Switch", "the active Service switches to the new pods once all 2 are available", "Previous scaled down"} {
		if !strings.Contains(phases, want) {
			t.Errorf("blue-green phases lack %q:\n%s", want, phases)
		}
	}
	if !strings.Contains(b.eval(`document.querySelector("main").innerText`), "Blue-green: no steps.") {
		t.Error("the blue-green page no longer says it has no steps")
	}
}
