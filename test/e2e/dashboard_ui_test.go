//go:build e2e

package e2e

import "testing"

// The scenarios of issue 22 driven entirely from the dashboard in chromium.
// Each is written down step by step and skipped until the front end is
// merged; then each step becomes a browser action (newBrowser, b.open,
// b.do(chromedp.Click(...)), b.waitVisible, b.waitJS) or an API assertion.
// Selectors in the comments are those of the front end on branch dash at
// fc62cc9 (web/src: list.ts, detail.ts, actions.ts, chart.ts); the page routes
// by hash (#/ and #/rollouts/NS/NAME). Every scenario keeps the
// browser harness's rule: no console error and no CSP violation unless
// declared with b.allow; each page it reaches is saved with b.screenshot.

const frontEndPending = "front end not merged yet"

// TestDashboardUICanaryWalkthrough: seed 003's canary promoted from the UI at
// each pause until Healthy.
func TestDashboardUICanaryWalkthrough(t *testing.T) {
	t.Skip(frontEndPending)
	// 1. ns := namespace(t, "dash-ui"); kubectl apply --server-side seed
	//    003-rollouts-demo.yaml; waitHealthy(t, ns, "rollouts-demo", "", 5).
	// 2. mustRamp(t, ns, "set", "image", "rollouts-demo", "rollouts-demo=argoproj/rollouts-demo:yellow");
	//    waitRollout(..., pausedAt(1)).
	// 3. base := startDashboard(t, "--enable-actions"); b := newBrowser(t, desktop); b.open(base + "/").
	// 4. List (table.rollouts): wait for the row whose link is
	//    a[href="#/rollouts/<ns>/rollouts-demo"], its cells (td[data-label=...])
	//    reading strategy Canary, phase Paused, step 1/8 (as GET /api/rollouts
	//    says), "Weight set / actual" 20 / 20, image argoproj/rollouts-demo:yellow.
	//    Type <ns> into #filter: the row stays visible; type "nomatch": every row
	//    hidden. Clear it. Screenshot "list".
	// 5. Click the row's link: the rollout page; ol.timeline has 8 li, the
	//    second (pause {}) li[aria-current="step"] reading "until promoted", the planner's forecast of steps 3-8 drawn after it,
	//    two revisions (blue stable 4 pods, yellow canary 1 pod). Screenshot "rollout-step1".
	// 6. For each pause at step index 1, 3, 5, 7 (the last three are 10 s timed
	//    pauses; the timed ones show their remaining time in .remaining):
	//    a. wait until li[aria-current="step"] is li number i+1 (pushed by SSE:
	//       no reload);
	//    b. click the button "Promote" in section.actions; dialog[open] says
	//       "Ends step i+1 (...) and moves on to step i+2 (...)"; screenshot
	//       "confirm-promote-<i>"; click its button.danger "Promote rollouts-demo";
	//       .actions .result.ok appears;
	//    c. waitRollout(...) currentStepIndex > i, i.e. the patch the CLI sends
	//       reached the API server (a timed pause may also end on its own: accept
	//       either, but the click must not fail).
	// 7. Wait until the page shows phase Healthy and one revision (yellow, 5 pods);
	//    waitHealthy(t, ns, "rollouts-demo", <yellow hash>, 5). Screenshot "healthy".
	// 8. Repeat 3-5 with newBrowser(t, phone) and b.colorScheme("dark"): list and
	//    rollout page usable at 390x844; screenshots "list-phone", "rollout-phone".
}

// TestDashboardUIAbort: an abort from the UI returns the traffic to stable.
func TestDashboardUIAbort(t *testing.T) {
	t.Skip(frontEndPending)
	// 1. As the walkthrough's steps 1-3: seed 003 paused at step 1 with the
	//    yellow canary; dashboard with --enable-actions; browser on the rollout page.
	// 2. Click the button "Abort"; dialog[open] says traffic goes back to the
	//    stable version and the canary is scaled down; screenshot
	//    "confirm-abort"; click button.danger "Abort rollouts-demo".
	// 3. Wait until the facts show span.phase.Degraded with the abort message and
	//    the button "Retry" is enabled; screenshot "aborted".
	// 4. API: status.abort is true, stable ReplicaSet unchanged (blue),
	//    waitReplicaSets(t, ns, name, {blue: 5, yellow: 0}).
}

// TestDashboardUIBlueGreen: a blue-green promotion from the UI.
func TestDashboardUIBlueGreen(t *testing.T) {
	t.Skip(frontEndPending)
	// 1. ns := namespace(t, "dash-bg"); apply seed 003-bluegreen.yaml (Rollout
	//    rollouts-blue-green, autoPromotionEnabled false, and its two Services);
	//    waitHealthy(t, ns, "rollouts-blue-green", "", 5).
	// 2. setImage(t, ns, "rollouts-blue-green", "rollouts-blue-green", "argoproj/rollouts-demo:yellow");
	//    wait until paused (BlueGreenPause) with the preview ReplicaSet 5/5 ready.
	// 3. Dashboard with --enable-actions; open the rollout page: the Steps
	//    section says "Blue-green: no steps."; ul.tree has two revisions, the
	//    stable one's ReplicaSet tagged active and the new one's tagged preview
	//    (span.tag), 5 pods each. Screenshot "bluegreen-preview".
	// 4. Click "Promote"; dialog[open] says the active service switches to the
	//    new version; click button.danger.
	// 5. Wait until the page shows Healthy with yellow active; API:
	//    status.blueGreen.activeSelector is the yellow hash and the active Service's
	//    selector carries it. Screenshot "bluegreen-promoted".
}

// TestDashboardUIAnalysisPlot: an AnalysisRun's measurements appear in the
// plot against their success condition.
func TestDashboardUIAnalysisPlot(t *testing.T) {
	t.Skip(frontEndPending)
	// 1. p := testPrometheus(t); ns := namespace(t, "dash-ana"); p.Set(dummyServer(ns), 1);
	//    apply(t, ns, seedWithPrometheus(t, "003-canary-analysis.yaml", ns, p, "interval: 5m", "interval: 2s"));
	//    wait until healthy with 5 replicas.
	// 2. setImage(... "argoproj/rollouts-demo:yellow"); wait (API) until the
	//    background run <name>-<hash>-2 has at least 3 measurements.
	// 3. Dashboard (read-only is enough); open the rollout page, section
	//    Analysis: article.run for <name>-<hash>-2, its .metric h4 "success-rate";
	//    b.waitJS until its svg.plot has at least 3 circle.pt.Successful, its
	//    aria-label says "success-rate: N measurements ...", its
	//    line.threshold.ok (success 0) is drawn, and the metric's span.phase
	//    reads Successful.
	// 4. The points' titles and the measurements table (details > table) equal
	//    status.metricResults[0].measurements read from the API (value "[1]").
	//    Screenshot "analysis-plot".
	// 5. p.Set(dummyServer(ns), 0): the next measurement appears (pushed, no
	//    reload) as circle.pt.Failed. Screenshot "analysis-plot-failed".
}

// TestDashboardUIRefusedWithoutPermission: an identity that may read but not
// patch rollouts is refused from the UI and nothing changes.
func TestDashboardUIRefusedWithoutPermission(t *testing.T) {
	t.Skip(frontEndPending)
	// 1. Seed 003 paused at step 1, as the walkthrough's steps 1-2.
	// 2. A ClusterRole granting get, list and watch (no patch, no update) on what
	//    the dashboard reads (rollouts, analysisruns, experiments, replicasets,
	//    pods, events, services, HPAs) bound to the user "dash-viewer";
	//    kubeconfig := impersonatingKubeconfig(t, "dash-viewer").
	// 3. Start the dashboard with that kubeconfig and --enable-actions
	//    (startDashboard gets a kubeconfig parameter for this).
	// 4. Open the rollout page; before := the Rollout's resourceVersion.
	//    Click "Promote", then button.danger.
	// 5. dialog[open] p.error (or .actions .result.error) names the verb and
	//    the resource (patch rollouts, forbidden); the browser's own "status of
	//    403" log line is declared with b.allow. Screenshot "refused".
	// 6. API: the Rollout's resourceVersion is still before, still paused at step
	//    1, its pause conditions unchanged.
}

// TestDashboardUIReadOnly: without --enable-actions the UI offers no action.
func TestDashboardUIReadOnly(t *testing.T) {
	t.Skip(frontEndPending)
	// 1. Seed 003 paused at step 1 (a state where every action would apply).
	// 2. base := startDashboard(t) (no --enable-actions); b.open(base + "/").
	// 3. On the list and on the rollout page: no section.actions, no dialog, no
	//    button; the rollout page says "Read-only: the dashboard was started
	//    without --enable-actions."; tabbing through the whole page (keyboard)
	//    reaches only links and the filter. Screenshots "readonly-list",
	//    "readonly-rollout".
	// 4. A POST to /api/rollouts/<ns>/rollouts-demo/promote with the session's
	//    CSRF token is refused (403) and the Rollout is unchanged.
}
