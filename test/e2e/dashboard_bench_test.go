//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// BenchmarkDashboard is issue 22's performance section, on the real
// `ramp dashboard` over the local control plane, in Debian's headless
// chromium. RAMP_BENCH_DASHBOARD Rollouts (100 in make test, 1,000 in make
// bench; createFleet's canary of 1 replica, made Healthy by a controller of
// their own, which is then stopped so that the status changes below are
// the benchmark's alone) and RAMP_BENCH_DASHBOARD_BROWSERS pages open (3,
// 20: tabs of one chromium, each in a browser context of its own, with its
// own list request and event stream). It prints:
//   - the list page's time from navigation to interactive, measured in the
//     page: all rows in the DOM, painted, and the filter answering a search;
//   - the dashboard process's RSS and live Go heap before the fleet and
//     once it is cached;
//   - the latency from a status write's response to the changed row in the
//     browser's DOM (a MutationObserver, Date.now() against the write's
//     time on the same clock), median and max over 20 changes;
//   - the dashboard's own API requests by verb and resource and its open
//     watches (through a counting proxy: newAPICounter), during the same
//     work with all pages open and with one, beside the kube-apiserver's
//     apiserver_request_total for those kinds from every client.
//
// Asserted: every Rollout listed, every change seen, and no LIST or GET
// more with many pages than with one, the same watches open.
func BenchmarkDashboard(b *testing.B) {
	n := benchSize(b, "RAMP_BENCH_DASHBOARD", 100)
	pages := max(3, benchSize(b, "RAMP_BENCH_DASHBOARD_BROWSERS", 3)) // with 2, one page more would not show a read per page
	ns := namespace(b, "dash")
	counter := newAPICounter(b)
	heap := &gcTrace{}
	base, dash := startDashboardProcess(b, func(c *exec.Cmd) {
		c.Env, c.Stderr = append(os.Environ(), "GODEBUG=gctrace=1"), heap // its live heap after each collection
	}, counter.kubeconfig) // through the counting proxy
	proc := &controllerProcess{cmd: dash} // for procStatus
	idle, idleHeap := procStatus(b, proc, "VmRSS:"), heap.live()

	p := ownController(b, ns, ns)
	createFleet(b, ns, n)
	waitFleet(b, ns, n, "all Healthy after creation", func(ro *rampv1.Rollout) bool { return healthy(1, "")(ro) == nil })
	p.stop()
	eventually(b, time.Minute, "the dashboard lists the fleet", func() error {
		if got := dashboardListed(b, base, ns); got != n {
			return fmt.Errorf("%d of %d rollouts listed", got, n)
		}
		return nil
	})
	loaded, loadedHeap := procStatus(b, proc, "VmRSS:"), heap.live()

	// 1. Navigation to interactive, measured in the page.
	br := newBrowser(b, desktop)
	br.allow(`/favicon\.ico:1\): Failed to load resource: the server responded with a status of 404`) // as in TestDashboardBrowser
	br.do("measure the list page", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: interactiveProbe(ns, n, fleetName(n/2)),
		})
		return err
	}))
	start := time.Now()
	br.open(base + "/")
	br.waitJS("the list interactive", `window.__perf?.filtered !== undefined && document.querySelector("table.rollouts")?.dataset.paintedAt !== undefined`)
	seenByGo := time.Since(start)
	var perf struct{ Rows, Filtered, Painted, API float64 }
	evalJS(br, `(() => ({rows: __perf.rows, filtered: __perf.filtered,
		painted: Number(document.querySelector("table.rollouts").dataset.paintedAt),
		api: performance.getEntriesByName(location.origin + "/api/rollouts")[0]?.responseEnd ?? -1}))()`, &perf)
	if got := rowsOf(br, ns); got != n {
		b.Errorf("the page lists %d of the %d rollouts of %s", got, n, ns)
	}
	interactive := max(perf.Filtered, perf.Painted)
	b.Logf("%d rollouts: list page interactive %.0f ms after navigation (API answer at %.0f ms, rows in the DOM at %.0f ms, painted at %.0f ms, filter answered at %.0f ms, with its 80 ms debounce; seen from Go after %s)",
		n, interactive, perf.API, perf.Rows, perf.Painted, perf.Filtered, seenByGo.Round(time.Millisecond))
	b.Logf("dashboard RSS (VmRSS): %.0f MiB before the fleet, %.0f MiB with it cached (+%.0f MiB: %d Rollouts, their ReplicaSets, pods and Events); Go heap live after the last collection (gctrace): %.0f MiB, then %.0f MiB (+%.0f MiB)",
		idle, loaded, loaded-idle, n, idleHeap, loadedHeap, loadedHeap-idleHeap)

	// 2. A status change's latency to the page.
	br.waitJS("the page live", `document.getElementById("live")?.textContent === "live"`)
	evalJS(br, changeObserver, nil)
	var lat []float64
	for i := range 20 {
		wrote := patchMessage(b, ns, fleetName(i*n/20), fmt.Sprintf("perf change %d.", i))
		row := fmt.Sprintf(`document.querySelector('a[href="#/rollouts/%s/%s"]')?.closest("tr")?.textContent`, ns, fleetName(i*n/20))
		eventually(b, browserWait, "change "+fmt.Sprint(i)+" shown", func() error {
			var state struct {
				Frame *float64
				Row   string
			}
			evalJS(br, fmt.Sprintf(`({frame: window.__seen[%q]?.frame, row: %s})`, fmt.Sprint(i), row), &state)
			if state.Frame == nil {
				return fmt.Errorf("not yet; the row reads %q", state.Row)
			}
			return nil
		})
		var seen struct{ Frame float64 }
		evalJS(br, fmt.Sprintf(`window.__seen[%q]`, fmt.Sprint(i)), &seen)
		lat = append(lat, seen.Frame-float64(wrote.UnixMicro())/1000)
	}
	slices.Sort(lat)
	b.Logf("status change to the row shown (next animation frame after the DOM change), from the write's response: median %.0f ms, max %.0f ms over %d changes (hub window 100 ms)",
		lat[len(lat)/2], lat[len(lat)-1], len(lat))

	// 3. The dashboard's API requests (counted by a proxy in front of the
	// API server) with all pages open, then with one, during the same work:
	// pages loading the list and following changes.
	many, took := readsWhile(b, counter, func() {
		tabs := make([]context.Context, 0, pages-1)
		opened := time.Now()
		for range pages - 1 {
			tabs = append(tabs, openTab(b, br, base+"/", ns, n))
		}
		b.Logf("%d more pages opened one after the other in %s", pages-1, time.Since(opened).Round(time.Millisecond))
		followChanges(b, ns, n, "many", append(tabs, br.ctx))
		for _, t := range tabs {
			if err := chromedp.Cancel(t); err != nil {
				b.Errorf("close a tab: %v", err)
			}
		}
	}, 0)
	b.Logf("dashboard RSS with %d pages open: %.0f MiB", pages, procStatus(b, proc, "VmRSS:"))
	one, _ := readsWhile(b, counter, func() {
		br.open(base + "/")
		br.waitJS("the list reloaded", fmt.Sprintf(`document.querySelectorAll("table.rollouts tbody tr").length >= %d && document.getElementById("live")?.textContent === "live"`, n))
		followChanges(b, ns, n, "one", []context.Context{br.ctx})
	}, took)
	b.Logf("in %s with %d pages: %s", took.Round(time.Second), pages, many)
	b.Logf("in %s with 1 page: %s", took.Round(time.Second), one)
	extra := 0.0
	for k, v := range many.dashboard {
		verb, _, _ := strings.Cut(k, " ")
		if d := v - one.dashboard[k]; d > 0 && (verb == "LIST" || verb == "GET") {
			b.Errorf("the dashboard's %s: %.0f with %d pages, %.0f with one: it reads the API server per page", k, v, pages, one.dashboard[k])
			extra += d
		}
	}
	for k, v := range many.watching {
		if v != one.watching[k] {
			b.Errorf("the dashboard's open %s watches: %.0f with %d pages, %.0f with one", k, v, pages, one.watching[k])
		}
	}
	if len(many.watching) == 0 {
		b.Errorf("the dashboard holds no watch open: are its requests counted?")
	}
	b.ReportMetric(interactive, "ms-interactive")
	b.ReportMetric(loaded-idle, "MiB-added")
	b.ReportMetric(loadedHeap-idleHeap, "MiB-heap-added")
	b.ReportMetric(lat[len(lat)/2], "ms-change-p50")
	b.ReportMetric(lat[len(lat)-1], "ms-change-max")
	b.ReportMetric(extra, "extra-reads")
}

// interactiveProbe is a script run in the page before its own: once the
// rows of ns number want (and the status line counts them all) it types
// probe's namespace and name into the filter, and records in __perf when
// the rows were there and when the filter had narrowed the list to one.
func interactiveProbe(ns string, want int, probe string) string {
	return fmt.Sprintf(`(() => {
  const ns = %q, want = %d, probe = %q, perf = (window.__perf = {});
  const status = () => document.querySelector("main [role=status]")?.textContent ?? "";
  const mine = () => [...document.querySelectorAll("table.rollouts tbody td[data-label=Namespace]")].filter((td) => td.textContent === ns).length;
  const type = (v) => { const f = document.getElementById("filter"); f.value = v; f.dispatchEvent(new Event("input")); };
  const obs = new MutationObserver(() => {
    if (perf.rows === undefined && /^(\d+) of \1 rollouts shown$/.test(status()) && mine() >= want) {
      perf.rows = performance.now();
      type(ns + " " + probe);
    } else if (perf.rows !== undefined && /^1 of \d+ rollouts shown$/.test(status())) {
      perf.filtered = performance.now();
      obs.disconnect();
      type("");
    }
  });
  document.addEventListener("DOMContentLoaded", () => obs.observe(document.body, { childList: true, subtree: true, characterData: true }));
})()`, ns, want, probe)
}

// changeObserver records, for each row the page replaces with a message
// "perf change N", when (Date.now()) the new row entered the DOM and the
// next animation frame after it.
const changeObserver = `(() => {
  window.__seen = {};
  new MutationObserver((records) => {
    const now = Date.now();
    for (const r of records) for (const node of r.addedNodes) {
      const m = /perf change (\d+)\./.exec(node.textContent || "");
      if (m && !(m[1] in window.__seen)) {
        const s = (window.__seen[m[1]] = { dom: now });
        requestAnimationFrame(() => { s.frame = Date.now(); });
      }
    }
  }).observe(document.querySelector("table.rollouts tbody"), { childList: true });
})()`

// patchMessage writes a Rollout's status.message (the status subresource,
// as the controller would) and returns when the API server answered.
func patchMessage(b *testing.B, ns, name, msg string) time.Time {
	b.Helper()
	ro := &rampv1.Rollout{}
	ro.Namespace, ro.Name = ns, name
	body, _ := json.Marshal(map[string]any{"status": map[string]any{"message": msg}})
	if err := env.client.Status().Patch(context.Background(), ro, client.RawPatch(types.MergePatchType, body)); err != nil {
		b.Fatalf("patch the status of %s/%s: %v", ns, name, err)
	}
	return time.Now()
}

// followChanges writes 5 status messages and waits until every tab shows
// each.
func followChanges(b *testing.B, ns string, n int, tag string, tabs []context.Context) {
	b.Helper()
	for i := range 5 {
		msg := fmt.Sprintf("perf %s %d.", tag, i)
		patchMessage(b, ns, fleetName((i*n/5+n/10)%n), msg)
		for _, t := range tabs {
			waitTab(b, t, "change "+msg+" shown", fmt.Sprintf(`[...document.querySelectorAll("table.rollouts tbody tr")].some((tr) => tr.textContent.includes(%q))`, msg))
		}
	}
}

// openTab opens url in a new tab of br's browser, in a browser context of
// its own (a profile: a browser allows 6 connections to one host, which 6
// event streams would hold), and waits until it lists the n rollouts of ns
// and follows the event stream; the tab is closed when the benchmark ends,
// or by chromedp.Cancel.
func openTab(b *testing.B, br *browser, url, ns string, n int) context.Context {
	b.Helper()
	ctx, cancel := chromedp.NewContext(br.ctx, chromedp.WithNewBrowserContext())
	b.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // the tab itself, bound to ctx (never a timeout)
		b.Fatalf("open a tab: %v", err)
	}
	wait, stop := context.WithTimeout(ctx, browserWait)
	defer stop()
	if err := chromedp.Do(wait, chromedp.Navigate(url)); err != nil {
		b.Fatalf("open %s in a tab: %v", url, err)
	}
	waitTab(b, ctx, "the tab lists the fleet", fmt.Sprintf(`[...document.querySelectorAll("table.rollouts tbody td[data-label=Namespace]")].filter((td) => td.textContent === %q).length === %d && document.getElementById("live")?.textContent === "live"`, ns, n))
	return ctx
}

func waitTab(b *testing.B, ctx context.Context, what, expr string) {
	b.Helper()
	wait, stop := context.WithTimeout(ctx, browserWait)
	defer stop()
	if err := chromedp.Do(wait, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(browserWait))); err != nil {
		b.Fatalf("browser: %s: %v", what, err)
	}
}

// evalJS evaluates expr in br's page and decodes its value into v (nil:
// ignored).
func evalJS(br *browser, expr string, v any) {
	br.t.Helper()
	ctx, cancel := context.WithTimeout(br.ctx, browserWait)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expr))
	if err == nil && v != nil {
		err = json.Unmarshal(raw, v)
	}
	if err != nil {
		br.t.Fatalf("browser: evaluate %.60q: %v", expr, err)
	}
}

// rowsOf counts the page's rows of namespace ns.
func rowsOf(br *browser, ns string) int {
	var n int
	evalJS(br, fmt.Sprintf(`[...document.querySelectorAll("table.rollouts tbody td[data-label=Namespace]")].filter((td) => td.textContent === %q).length`, ns), &n)
	return n
}

// dashboardListed is how many rollouts of ns GET /api/rollouts lists.
func dashboardListed(b *testing.B, base, ns string) int {
	b.Helper()
	code, body, err := httpGet(base + "/api/rollouts")
	if err != nil || code != 200 {
		b.Fatalf("GET /api/rollouts: %d %v", code, err)
	}
	var l struct{ Items []struct{ Namespace string } }
	if err := json.Unmarshal([]byte(body), &l); err != nil {
		b.Fatalf("GET /api/rollouts: %v", err)
	}
	count := 0
	for _, it := range l.Items {
		if it.Namespace == ns {
			count++
		}
	}
	return count
}

// dashboardKinds are the resources the dashboard's informers watch
// (internal/dashboard/informers.go), as the API server's metrics name them.
var dashboardKinds = []string{"rollouts", "replicasets", "pods", "analysisruns", "experiments", "events",
	"horizontalpodautoscalers"}

// apiReads is, over a stretch of time, the dashboard's requests by "VERB
// resource" and its watches open at the end (from the counting proxy), and
// the kube-apiserver's reads (LIST and GET) of the dashboard's kinds from
// every client (apiserver_request_total; the controller-manager's and
// kwok's too).
type apiReads struct{ dashboard, watching, server map[string]float64 }

func (r apiReads) String() string {
	return fmt.Sprintf("the dashboard's requests: %s; its open watches: %s; the API server's LIST/GET of those kinds from every client: %s",
		nonZero(r.dashboard), nonZero(r.watching), nonZero(r.server))
}

// nonZero formats m's non-zero values in the order of their keys.
func nonZero(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v != 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "none"
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.0f", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// readsWhile runs work and returns the requests made during it and
// after it until at least d has passed since it began (a fixed window: the
// wait is the measurement), and how long that was.
func readsWhile(b *testing.B, c *apiCounter, work func(), d time.Duration) (apiReads, time.Duration) {
	b.Helper()
	server0 := apiServerSeries(b, "apiserver_request_total")
	dash0, _ := c.snapshot()
	start := time.Now()
	work()
	if rest := d - time.Since(start); rest > 0 {
		time.Sleep(rest)
	}
	took := time.Since(start)
	dash1, watching := c.snapshot()
	r := apiReads{dashboard: map[string]float64{}, watching: watching, server: map[string]float64{}}
	for k, v := range dash1 {
		r.dashboard[k] = v - dash0[k]
	}
	for k, v := range apiServerSeries(b, "apiserver_request_total") {
		verb, res, _ := strings.Cut(k, " ")
		if (verb == "LIST" || verb == "GET") && slices.Contains(dashboardKinds, res) {
			r.server[k] = v - server0[k]
		}
	}
	return r, took
}

// apiServerSeries sums a kube-apiserver metric by "VERB resource" over the
// series without a subresource.
func apiServerSeries(b *testing.B, name string) map[string]float64 {
	b.Helper()
	cs, err := kubernetes.NewForConfig(env.rest)
	if err != nil {
		b.Fatal(err)
	}
	out, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		b.Fatalf("kube-apiserver /metrics: %v", err)
	}
	sums := map[string]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(line, name+"{")
		if !ok {
			continue
		}
		labels, value, _ := strings.Cut(rest, "} ")
		l := map[string]string{}
		for _, kv := range strings.Split(labels, `",`) {
			k, v, _ := strings.Cut(kv, `="`)
			l[k] = strings.TrimSuffix(v, `"`)
		}
		if l["subresource"] != "" {
			continue
		}
		var f float64
		if _, err := fmt.Sscan(strings.TrimSpace(value), &f); err != nil {
			b.Fatalf("%s: %q: %v", name, line, err)
		}
		sums[l["verb"]+" "+l["resource"]] += f
	}
	return sums
}

// gcTrace reads a Go process's standard error with GODEBUG=gctrace=1 and
// keeps the live heap of the last collection ("gc N @…: … A->B->C MB, …":
// C is what the mark found live).
type gcTrace struct {
	mu      sync.Mutex
	partial string
	liveMB  float64
}

func (g *gcTrace) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	lines := strings.Split(g.partial+string(p), "\n")
	g.partial = lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, "gc ") {
			continue
		}
		for _, f := range strings.Split(l, ",") {
			if heap, ok := strings.CutSuffix(strings.TrimSpace(f), " MB"); ok && strings.Count(heap, "->") == 2 {
				var a, b, c float64
				if _, err := fmt.Sscanf(heap, "%g->%g->%g", &a, &b, &c); err == nil {
					g.liveMB = c
				}
			}
		}
	}
	return len(p), nil
}

// live is the live heap of the last collection, in MiB (gctrace's MB are
// 2^20 bytes).
func (g *gcTrace) live() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.liveMB
}
