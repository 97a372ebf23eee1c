//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// seedWithPrometheus reads a seed 003 manifest and points its analysis at
// the test Prometheus: the query counts a series the test controls in ns
// (`or vector(0)` gives 0 when the series is absent, where the seed's
// kube-state-metrics would report the deployment as missing). edits are
// further old/new replacements, documented by each test.
func seedWithPrometheus(t *testing.T, file, ns string, p *promEnv, edits ...string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/seeds/" + file)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	query := fmt.Sprintf(`count(kube_deployment_labels{namespace="%s", deployment="metric-dummy-server"}) or vector(0)`, ns)
	pairs := append([]string{
		"http://10.233.14.47:9090", p.URL(),
		`count(kube_deployment_labels{namespace="default", deployment="metric-dummy-server"})`, query,
	}, edits...)
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("%s: %q not found", file, pairs[i])
		}
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

// dummyServer is the series the seed's query counts.
func dummyServer(ns string) string {
	return fmt.Sprintf(`kube_deployment_labels{namespace=%q,deployment="metric-dummy-server"}`, ns)
}

func getRun(ns, name string) (*rampv1.AnalysisRun, error) {
	ar := &rampv1.AnalysisRun{}
	return ar, env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, ar)
}

// waitRun waits until the run has phase.
func waitRun(t *testing.T, ns, name string, timeout time.Duration, phase rampv1.AnalysisPhase) *rampv1.AnalysisRun {
	t.Helper()
	var ar *rampv1.AnalysisRun
	eventually(t, timeout, fmt.Sprintf("AnalysisRun %s %s", name, phase), func() error {
		var err error
		if ar, err = getRun(ns, name); err != nil {
			return err
		}
		if ar.Status.Phase != phase {
			return fmt.Errorf("phase %q, message %q", ar.Status.Phase, ar.Status.Message)
		}
		return nil
	})
	return ar
}

// Seed 003's canary with background analysis from startingStep 2
// (interval 5m -> 2s so that four measurements fit in the suite).
func canaryAnalysisSeed(t *testing.T, good bool) {
	t.Parallel()
	p := testPrometheus(t)
	ns := namespace(t, "ana-canary")
	if good {
		p.Set(dummyServer(ns), 1)
		p.WaitQuery(t, fmt.Sprintf(`count(%s)`, dummyServer(ns)), "1")
	}
	apply(t, ns, seedWithPrometheus(t, "003-canary-analysis.yaml", ns, p, "interval: 5m", "interval: 2s"))
	const name = "rollouts-canary-analysis"
	v1 := waitRollout(t, ns, name, time.Minute, "first revision healthy", healthy(5, "")).Status.StableRS
	setImage(t, ns, name, name, "argoproj/rollouts-demo:yellow")
	ro := waitRollout(t, ns, name, time.Minute, "new revision", newTemplate(v1))
	v2 := ro.Status.CurrentPodHash
	run := fmt.Sprintf("%s-%s-2", name, v2)

	if good {
		ro = waitHealthy(t, ns, name, v2, 5)
		bg := ro.Status.Canary.CurrentBackgroundAnalysisRunStatus
		if bg == nil || bg.Name != run {
			t.Fatalf("background run status = %+v, want %s", bg, run)
		}
		ar := waitRun(t, ns, run, 30*time.Second, rampv1.AnalysisPhaseSuccessful)
		if !ar.Spec.Terminate || ar.Labels["rollout-type"] != "Background" || ar.Labels[rampv1.DefaultRolloutUniqueLabelKey] != v2 {
			t.Errorf("run %s: terminate %v labels %v; want terminated Background for %s", run, ar.Spec.Terminate, ar.Labels, v2)
		}
		if r := ar.Status.MetricResults; len(r) != 1 || r[0].Successful < 1 || r[0].Failed != 0 {
			t.Errorf("metric results %+v, want successes only", r)
		}
		return
	}
	ar := waitRun(t, ns, run, 90*time.Second, rampv1.AnalysisPhaseFailed)
	if r := ar.Status.MetricResults; len(r) != 1 || r[0].Failed != 4 || r[0].Count != 4 {
		t.Errorf("metric results %+v, want the run Failed after failureLimit+1 = 4 failed measurements", r)
	}
	if !strings.Contains(ar.Status.Message, `Metric "success-rate" assessed Failed due to failed (4) > failureLimit (3)`) {
		t.Errorf("run message %q", ar.Status.Message)
	}
	ro = waitRollout(t, ns, name, time.Minute, "aborted, canary at 0", func(ro *rampv1.Rollout) error {
		if !ro.Status.Abort || ro.Status.Phase != rampv1.RolloutPhaseDegraded {
			return fmt.Errorf("abort %v phase %s", ro.Status.Abort, ro.Status.Phase)
		}
		return nil
	})
	if !strings.Contains(ro.Status.Message, "assessed Failed") || ro.Status.StableRS != v1 {
		t.Errorf("message %q stable %s; want the analysis verdict and stable %s", ro.Status.Message, ro.Status.StableRS, v1)
	}
	waitReplicaSets(t, ns, name, map[string]int32{v1: 5, v2: 0})
}

func TestAnalysisCanarySeed003Good(t *testing.T) { canaryAnalysisSeed(t, true) }
func TestAnalysisCanarySeed003Bad(t *testing.T)  { canaryAnalysisSeed(t, false) }

// Seed 003's blue-green template, made valid: `result[0] = 0` does not
// compile in expr (`==`), and count 2 < failureLimit 3 is rejected as in
// Argo Rollouts ("count must be >= failureLimit"), so count is 4.
var blueGreenTemplateEdits = []string{"result[0] = 0", "result[0] == 0", "count: 2", "count: 4"}

func blueGreenAnalysisSeed(t *testing.T, file string, good bool) {
	t.Parallel()
	p := testPrometheus(t)
	ns := namespace(t, "ana-bg")
	if !good { // the template passes while the dummy server is absent
		p.Set(dummyServer(ns), 1)
		p.WaitQuery(t, fmt.Sprintf(`count(%s)`, dummyServer(ns)), "1")
	}
	apply(t, ns, seedWithPrometheus(t, "003-bluegreen-analysis-template.yaml", ns, p, blueGreenTemplateEdits...))
	apply(t, ns, string(must(os.ReadFile("testdata/seeds/"+file))))
	const name, active = "rollouts-blue-green-analysis", "rollouts-green-svc-analysis"
	v1 := waitRollout(t, ns, name, time.Minute, "first revision healthy", healthy(5, "")).Status.StableRS
	guard := guardActive(t, ns, active, 5)
	defer guard.check(t)
	setImage(t, ns, name, name, "argoproj/rollouts-demo:yellow")
	v2 := waitRollout(t, ns, name, time.Minute, "new revision", newTemplate(v1)).Status.CurrentPodHash
	pre := strings.Contains(file, "pre-promotion")
	suffix := "-post"
	if pre {
		suffix = "-pre"
		// autoPromotionEnabled: false: promote (as the plugin does) while the analysis runs
		waitRollout(t, ns, name, time.Minute, "paused for promotion", pausedBlueGreen)
		patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`)
	}
	run := fmt.Sprintf("%s-%s-2%s", name, v2, suffix)
	if good {
		waitRun(t, ns, run, 90*time.Second, rampv1.AnalysisPhaseSuccessful)
		ro := waitRollout(t, ns, name, time.Minute, "promoted", promoted(v1))
		if ro.Status.StableRS != v2 {
			t.Errorf("stable %s, want %s", ro.Status.StableRS, v2)
		}
		waitServiceHash(t, ns, active, v2)
		return
	}
	waitRun(t, ns, run, 90*time.Second, rampv1.AnalysisPhaseFailed)
	ro := waitRollout(t, ns, name, time.Minute, "aborted", func(ro *rampv1.Rollout) error {
		if !ro.Status.Abort || ro.Status.BlueGreen.ActiveSelector != v1 || ro.Status.Phase != rampv1.RolloutPhaseDegraded {
			return fmt.Errorf("abort %v active %s phase %s", ro.Status.Abort, ro.Status.BlueGreen.ActiveSelector, ro.Status.Phase)
		}
		return nil
	})
	if ro.Status.StableRS != v1 {
		t.Errorf("stable %s, want %s", ro.Status.StableRS, v1)
	}
	waitServiceHash(t, ns, active, v1) // pre: never switched; post: switched back
}

func TestAnalysisBlueGreenPrePromotionGood(t *testing.T) {
	blueGreenAnalysisSeed(t, "003-bluegreen-pre-promotion.yaml", true)
}
func TestAnalysisBlueGreenPrePromotionBad(t *testing.T) {
	blueGreenAnalysisSeed(t, "003-bluegreen-pre-promotion.yaml", false)
}
func TestAnalysisBlueGreenPostPromotionGood(t *testing.T) {
	blueGreenAnalysisSeed(t, "003-bluegreen-post-promotion.yaml", true)
}
func TestAnalysisBlueGreenPostPromotionBad(t *testing.T) {
	blueGreenAnalysisSeed(t, "003-bluegreen-post-promotion.yaml", false)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestAnalysisMissingTemplate: a Rollout whose analysis step names a
// template that does not exist is InvalidSpec naming it, nothing is
// created; creating the template recovers it.
func TestAnalysisMissingTemplate(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "ana-missing")
	const name = "web"
	apply(t, ns, rolloutYAML{name: name, replicas: 2, canary: `steps:
- setWeight: 50
- analysis: {templates: [{templateName: missing}]}`}.String())
	waitRollout(t, ns, name, 30*time.Second, "InvalidSpec", func(ro *rampv1.Rollout) error {
		c := condition(ro, rampv1.RolloutInvalidSpec)
		if c == nil || !strings.Contains(c.Message, `spec.strategy.canary.steps[1].analysis.templates[0]: AnalysisTemplate "missing" not found`) {
			return fmt.Errorf("InvalidSpec condition %+v", c)
		}
		return nil
	})
	if rss, err := replicaSets(ns, name); err != nil || len(rss) != 0 {
		t.Fatalf("an invalid Rollout created ReplicaSets: %v %v", rss, err)
	}
	apply(t, ns, `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: missing}
spec:
  metrics:
  - name: m
    provider: {job: {spec: {backoffLimit: 0, template: {spec: {restartPolicy: Never, containers: [{name: c, image: c}]}}}}}
`)
	waitHealthy(t, ns, name, "", 2)
}

// TestAnalysisStepInconclusive: an analysis step whose run ends
// Inconclusive pauses the rollout (InconclusiveAnalysisRun); promoting it
// goes on to the next step.
func TestAnalysisStepInconclusive(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "ana-inconclusive")
	rate := 0.5
	srv := webServer(t, "t", &rate)
	apply(t, ns, `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: rate}
spec:
  args: [{name: url}]
  metrics:
  - name: rate
    successCondition: result > 0.9
    failureCondition: result < 0.1
    provider:
      web:
        url: "{{args.url}}/rate"
        jsonPath: "{$.rate}"
        headers: [{key: Authorization, value: "Bearer t"}]
`)
	const name = "web"
	apply(t, ns, rolloutYAML{name: name, replicas: 2, canary: fmt.Sprintf(`steps:
- setWeight: 50
- analysis:
    templates: [{templateName: rate}]
    args: [{name: url, value: %q}]
- setWeight: 100`, srv.URL)}.String())
	v1 := waitHealthy(t, ns, name, "", 2).Status.StableRS
	setImage(t, ns, name, name, "registry.example/web:v2")
	ro := waitRollout(t, ns, name, time.Minute, "paused on an inconclusive run", func(ro *rampv1.Rollout) error {
		s := ro.Status
		if s.Phase != rampv1.RolloutPhasePaused || len(s.PauseConditions) != 1 || s.PauseConditions[0].Reason != rampv1.PauseReasonInconclusiveAnalysis {
			return fmt.Errorf("phase %s pauses %v", s.Phase, s.PauseConditions)
		}
		return nil
	})
	run := ro.Status.Canary.CurrentStepAnalysisRunStatus
	if run == nil || run.Status != rampv1.AnalysisPhaseInconclusive || run.Name != fmt.Sprintf("%s-%s-2-1", name, ro.Status.CurrentPodHash) {
		t.Fatalf("step run status %+v", run)
	}
	ar, err := getRun(ns, run.Name)
	if err != nil || ar.Labels["rollout-type"] != "Step" || ar.Labels["step-index"] != "1" {
		t.Fatalf("run labels %v (%v)", ar.Labels, err)
	}
	patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`) // promote
	if got := waitHealthy(t, ns, name, ro.Status.CurrentPodHash, 2).Status.StableRS; got == v1 {
		t.Errorf("still on %s", v1)
	}
}
