//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// What the dashboard's browser scenarios (dashboard_ui_test.go) share: one
// dashboard, seed 003's canary paused on its first pause, the page's state
// read through JavaScript, and the actions clicked as a person clicks them.

// sharedUI is one `ramp dashboard --enable-actions` as the kubeconfig's
// user for every scenario that needs no other identity or mode: one set of
// informers instead of one per test. runMain stops it.
var sharedUI struct {
	once sync.Once
	url  string
	stop func()
	err  error
}

func sharedDashboard(t *testing.T) string {
	t.Helper()
	sharedUI.once.Do(func() {
		sharedUI.url, _, sharedUI.stop, sharedUI.err = launchDashboard(nil, env.kubeconfig, "--enable-actions")
	})
	if sharedUI.err != nil {
		t.Fatalf("the shared dashboard: %v", sharedUI.err)
	}
	return sharedUI.url
}

func stopSharedDashboard() {
	if sharedUI.stop != nil {
		sharedUI.stop()
	}
}

// uiBrowser is newBrowser for the dashboard's pages.
func uiBrowser(t *testing.T, vp viewport) *browser {
	t.Helper()
	b := newBrowser(t, vp)
	// The browser asks for /favicon.ico on its own and the dashboard ships
	// none yet (as in TestDashboardBrowser).
	b.allow(`/favicon\.ico:1\): Failed to load resource: the server responded with a status of 404`)
	return b
}

const demo = "rollouts-demo"

// pausedDemo applies seed 003's canary (edited by pairs of old, new text)
// in a fresh namespace, waits until it is Healthy on blue, sets the yellow
// image and waits until it is paused on its first pause (step index 1)
// with every pod ready: a settled state, which the controller leaves alone.
func pausedDemo(t *testing.T, prefix string, edits ...string) (ns, blue, yellow string) {
	t.Helper()
	manifest := string(must(os.ReadFile("testdata/seeds/003-rollouts-demo.yaml")))
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(manifest, edits[i]) {
			t.Fatalf("seed 003: %q not found", edits[i])
		}
		manifest = strings.ReplaceAll(manifest, edits[i], edits[i+1])
	}
	ns = namespace(t, prefix)
	apply(t, ns, manifest)
	blue = waitHealthy(t, ns, demo, "", 5).Status.StableRS
	mustRamp(t, ns, "set", "image", demo, "rollouts-demo=argoproj/rollouts-demo:yellow")
	ro := waitRollout(t, ns, demo, time.Minute, "paused on step 1, every pod ready", func(ro *rampv1.Rollout) error {
		if err := pausedAt(1)(ro); err != nil {
			return err
		}
		if s := ro.Status; s.ReadyReplicas != 5 || s.AvailableReplicas != 5 || s.UpdatedReplicas != 1 {
			return fmt.Errorf("%d ready, %d available, %d updated; want 5, 5, 1", s.ReadyReplicas, s.AvailableReplicas, s.UpdatedReplicas)
		}
		return nil
	})
	return ns, blue, ro.Status.CurrentPodHash
}

// dashboardJSON reads one of the dashboard's API answers, as the page does.
func dashboardJSON(t testing.TB, base, path string, v any) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// apiDetail is what the scenarios read of GET /api/rollouts/{ns}/{name}:
// the timeline's steps and, when the server sends them, the planner's
// forecast and the actions' confirmations (internal/view).
type apiDetail struct {
	Timeline struct{ Steps []struct{ Text string } }
	Forecast *struct {
		Points []struct {
			Index          int
			Kind, Weight   string
			Canary, Stable int32
		}
	}
	Confirm *struct{ Actions map[string]string }
}

func rolloutDetail(t testing.TB, base, ns, name string) apiDetail {
	t.Helper()
	var d apiDetail
	dashboardJSON(t, base, "/api/rollouts/"+ns+"/"+name, &d)
	return d
}

// apiSteps are the step texts of the rollout's timeline, as the API says.
func apiSteps(t *testing.T, base, ns, name string) []string {
	t.Helper()
	var out []string
	for _, s := range rolloutDetail(t, base, ns, name).Timeline.Steps {
		out = append(out, s.Text)
	}
	return out
}

// confirms is a check of an action's confirmation: it contains every part
// and the text the server gives for verb now, when it gives one (the
// planner's, from internal/view).
func confirms(t testing.TB, base, ns, name, verb string, parts ...string) func(string) error {
	return func(dialog string) error {
		if d := rolloutDetail(t, base, ns, name); d.Confirm != nil {
			parts = append(parts, d.Confirm.Actions[verb])
		}
		for _, p := range parts {
			if !strings.Contains(dialog, p) {
				return fmt.Errorf("no %q", p)
			}
		}
		return nil
	}
}

// evaluate runs the JavaScript expression in the page (awaiting a promise)
// and returns its value.
func evaluate[T any](b *browser, what, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.screenshot("failed-" + what)
		b.t.Fatalf("browser: %s: %v", what, err)
	}
	return v
}

// until polls cond (which reads the page) until it returns nil, within browserWait.
func (b *browser) until(what string, cond func() error) {
	b.t.Helper()
	eventually(b.t, browserWait, what, cond)
}

func (b *browser) click(what string, sel string) {
	b.t.Helper()
	b.do("click "+what, chromedp.Click(chromedp.CSS(sel)))
}

// clickButton clicks the button labelled label in the page's action bar.
func (b *browser) clickButton(label string) {
	b.t.Helper()
	b.do("click "+label, chromedp.Click(chromedp.Search(
		fmt.Sprintf(`//section[contains(@class, "actions")]/div[@class="buttons"]/button[normalize-space(.)=%q]`, label))))
}

// typeFilter types text into the list's filter, as keys.
func (b *browser) typeFilter(text string) {
	b.t.Helper()
	b.do("type "+text, chromedp.SendKeys(chromedp.CSS("#filter"), text))
}

func (b *browser) clearFilter() {
	b.t.Helper()
	evaluate[bool](b, "clear the filter", `(() => { const f = document.getElementById("filter"); f.value = ""; f.dispatchEvent(new Event("input")); return true; })()`)
}

// openRollout opens the rollout page directly and waits until it is drawn.
func (b *browser) openRollout(base, ns, name string) {
	b.t.Helper()
	b.open(base + "/#/rollouts/" + ns + "/" + name)
	b.waitVisible("dl.facts")
}

// pageRow is a rollout's row in the list.
type pageRow struct {
	Hidden bool
	Phase  string
	Cells  map[string]string // by data-label
}

func rowJS(ns, name string) string {
	return fmt.Sprintf(`(() => {
  const a = document.querySelector('table.rollouts a[href="#/rollouts/%s/%s"]');
  if (!a) return null;
  const tr = a.closest("tr"), cells = {};
  for (const td of tr.querySelectorAll("td[data-label]")) cells[td.dataset.label] = td.textContent;
  return { hidden: tr.hidden, phase: tr.querySelector("span.phase")?.textContent ?? "", cells };
})()`, ns, name)
}

// shownRows is how many rows of the list are not hidden by the filter.
const shownRows = `[...document.querySelectorAll("table.rollouts tbody tr")].filter((tr) => !tr.hidden).length`

// pageStep is one li of the timeline.
type pageStep struct{ Class, Text, Remaining, Current string }

const timelineJS = `[...document.querySelectorAll("ol.timeline > li")].map((li) => ({
  class: li.className, text: li.textContent, current: li.getAttribute("aria-current") ?? "",
  remaining: li.querySelector(".remaining")?.textContent ?? "" }))`

// currentStep is the index of the timeline's current li (-1: none).
const currentStep = `[...document.querySelectorAll("ol.timeline > li")].findIndex((li) => li.getAttribute("aria-current") === "step")`

// pageRS is a ReplicaSet of the revisions tree: its line, its tag (the
// markers) and how many pods hang from it.
type pageRS struct {
	Text, Tag string
	Pods      int
}

const revisionsJS = `[...document.querySelectorAll("ul.tree > li > ul > li")].filter((li) => li.querySelector(":scope > span.phase")).map((li) => ({
  text: [...li.childNodes].filter((n) => n.nodeName !== "UL" && !n.classList?.contains("tag")).map((n) => n.textContent).join(""),
  tag: li.querySelector(":scope > span.tag")?.textContent ?? "",
  pods: li.querySelectorAll(":scope > ul > li").length }))`

// replicaSet is the tree's line of the ReplicaSet of hash, nil if absent.
func replicaSet(b *browser, name, hash string) *pageRS {
	for _, rs := range evaluate[[]pageRS](b, "read the revisions", revisionsJS) {
		if strings.Contains(rs.Text, " "+name+"-"+hash+" ") {
			return &rs
		}
	}
	return nil
}

// wantReplicaSet is a condition: the tree shows the ReplicaSet of hash
// tagged with marker, ready/desired ready and pods pods.
func wantReplicaSet(b *browser, name, hash, marker string, ready int) func() error {
	return func() error {
		rs := replicaSet(b, name, hash)
		switch {
		case rs == nil:
			return fmt.Errorf("no ReplicaSet %s-%s among %+v", name, hash, evaluate[[]pageRS](b, "read the revisions", revisionsJS))
		case !slices.Contains(strings.Split(rs.Tag, ", "), marker):
			return fmt.Errorf("ReplicaSet %s tagged %q, want %s", hash, rs.Tag, marker)
		case !strings.Contains(rs.Text, fmt.Sprintf(" %d/%d ready", ready, ready)) || rs.Pods != ready:
			return fmt.Errorf("ReplicaSet %s: %q with %d pods, want %d/%d ready", hash, rs.Text, rs.Pods, ready, ready)
		}
		return nil
	}
}

// facts is the summary's phase and the text beside it (the message).
type facts struct{ Phase, Text string }

const factsJS = `(() => { const dd = document.querySelector("dl.facts dd");
  return { phase: dd?.querySelector("span.phase")?.textContent ?? "", text: dd?.textContent ?? "" }; })()`

// wantPhase is a condition: the page's summary shows phase, and the
// message the API gives the rollout now.
func wantPhase(b *browser, ns, name string, phase rampv1.RolloutPhase) func() error {
	return func() error {
		ro, err := getRollout(ns, name)
		if err != nil {
			return err
		}
		f := evaluate[facts](b, "read the summary", factsJS)
		if f.Phase != string(phase) || ro.Status.Phase != phase || !strings.Contains(f.Text, ro.Status.Message) {
			return fmt.Errorf("page %+v, API phase %s message %q; want %s", f, ro.Status.Phase, ro.Status.Message, phase)
		}
		return nil
	}
}

// acted is what came of an action confirmed in the page.
type acted struct {
	ok      bool
	message string // the answer shown: the result, or the dialog's error
	dialog  string // what the confirmation said
}

// recordResults keeps every success the action bar shows in
// window.__oks: the page redraws (and clears it) on the next change.
const recordResults = `(() => { if (window.__oks) return true; window.__oks = []; const seen = new WeakMap();
  new MutationObserver(() => { for (const r of document.querySelectorAll(".actions .result.ok")) {
    if (r.textContent && seen.get(r) !== r.textContent) { seen.set(r, r.textContent); window.__oks.push(r.textContent); } } })
  .observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  return true; })()`

// act clicks the action's button, checks its confirmation with says (see confirms),
// saves it as shot and confirms it. A conflict (the rollout changed after
// the page drew it: the server refused the stale version) is cancelled
// and tried again on the redrawn page, as a person does, while still (the
// rollout's state as the API has it) says the action is still wanted.
func (b *browser) act(label string, says func(dialog string) error, shot string, still func() error) acted {
	b.t.Helper()
	for attempt := 1; ; attempt++ {
		evaluate[bool](b, "record the results", recordResults)
		n := evaluate[int](b, "count the results", `window.__oks.length`)
		b.clickButton(label)
		b.waitVisible("dialog[open]")
		text := evaluate[string](b, "read the confirmation", `document.querySelector("dialog[open]").innerText`)
		if err := says(text); err != nil {
			b.screenshot("failed-" + shot)
			b.t.Fatalf("%s: the confirmation says %q: %v", label, text, err)
		}
		if attempt == 1 {
			b.screenshot(shot)
		}
		b.click("confirm "+label, "dialog[open] button.danger")
		b.waitJS(label+" answered", fmt.Sprintf(`window.__oks.length > %d || !!document.querySelector("dialog[open] p.error")?.textContent`, n))
		if msg := evaluate[string](b, "read the result", fmt.Sprintf(`window.__oks[%d] ?? ""`, n)); msg != "" {
			return acted{ok: true, message: msg, dialog: text}
		}
		msg := evaluate[string](b, "read the error", `document.querySelector("dialog[open] p.error").textContent`)
		if !strings.HasPrefix(msg, "Conflict") || attempt == 5 || (still != nil && still() != nil) {
			return acted{message: msg, dialog: text}
		}
		b.t.Logf("%s: %s; again on the redrawn page", label, msg)
		evaluate[bool](b, "mark the action bar", `(window.__bar = document.querySelector("section.actions"), true)`)
		b.do("cancel", chromedp.Click(chromedp.Search(`//dialog[@open]//button[normalize-space(.)="Cancel"]`)))
		b.waitJS("the page redrawn", `!document.querySelector("dialog[open]") && document.querySelector("section.actions") !== window.__bar`)
	}
}

// shownVersion is the resourceVersion a confirmation names.
var shownVersion = regexp.MustCompile(`resourceVersion (\d+)`)

// tabStops focuses the page's first link (the skip link) and presses Tab
// until focus comes back round, and returns each element reached
// (tag#id.class, a link's href).
func (b *browser) tabStops() []string {
	b.t.Helper()
	const describe = `(() => { const e = document.activeElement;
  if (!e || e === document.body) return "";
  if (e.dataset.stop) return "again";
  e.dataset.stop = "1";
  return e.tagName + (e.id ? "#" + e.id : "") + (typeof e.className === "string" && e.className ? "." + e.className.trim().split(/\s+/).join(".") : "") +
    (e.tagName === "A" ? "[" + e.getAttribute("href") + "]" : ""); })()`
	evaluate[bool](b, "start from the top", `(document.querySelectorAll("[data-stop]").forEach((e) => delete e.dataset.stop), document.getElementById("skip").focus(), true)`)
	stops := []string{evaluate[string](b, "read the focus", describe)}
	for range 200 {
		b.do("press Tab", chromedp.KeyEvent(kb.Tab))
		s := evaluate[string](b, "read the focus", describe)
		if s == "" || s == "again" {
			return stops
		}
		stops = append(stops, s)
	}
	b.t.Fatalf("Tab never came back round: %q", stops)
	return nil
}
