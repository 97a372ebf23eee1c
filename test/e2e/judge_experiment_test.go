//go:build e2e

package e2e

import (
	"fmt"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// judgeExperiment is the user guide's walkthrough (examples/analysis/judge.yaml)
// at test scale: an Experiment runs a baseline and a canary, and its
// analysis, required for completion, judges the canary's latency against
// the baseline's by their pod-template hashes, 20 s after both are
// available, over the last 18 s.
const judgeExperiment = `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: judge-canary}
spec:
  args:
  - name: baseline-hash
  - name: canary-hash
  metrics:
  - name: judgement
    initialDelay: 20s
    provider:
      judge:
        address: %q
        baseline: "{{args.baseline-hash}}"
        canary: "{{args.canary-hash}}"
        lookback: 18s
        step: 1s
        threshold: {pass: 90, marginal: 50}
        metrics:
        - name: latency
          query: judge_latency_seconds{namespace=%q, pod_template_hash="{{group}}"}
          direction: increase
          effectSize: 0.1
---
apiVersion: argoproj.io/v1alpha1
kind: Experiment
metadata: {name: exp}
spec:
  templates:
  - name: baseline
    selector: {matchLabels: {app: checkout, track: baseline}}
    template:
      metadata: {labels: {app: checkout, track: baseline}}
      spec: {containers: [{name: checkout, image: example/checkout:1.4.0}]}
  - name: canary
    selector: {matchLabels: {app: checkout, track: canary}}
    template:
      metadata: {labels: {app: checkout, track: canary}}
      spec: {containers: [{name: checkout, image: example/checkout:1.5.0}]}
  analyses:
  - name: judge
    templateName: judge-canary
    requiredForCompletion: true
    args:
    - {name: baseline-hash, value: "{{templates.baseline.podTemplateHash}}"}
    - {name: canary-hash, value: "{{templates.canary.podTemplateHash}}"}
`

// TestJudgeExperiment: the judge receives the templates' pod-template
// hashes through the Experiment's arguments; a canary as fast as the
// baseline makes the Experiment Successful, one 20% slower makes it Failed
// (verdict High).
func TestJudgeExperiment(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		canary  float64
		phase   rampv1.AnalysisPhase
		verdict string
	}{
		{"equal", 0.1, rampv1.AnalysisPhaseSuccessful, "Pass"},
		{"slower", 0.12, rampv1.AnalysisPhaseFailed, "High"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := testPrometheus(t)
			ns := namespace(t, "judge-exp-"+c.name)
			apply(t, ns, fmt.Sprintf(judgeExperiment, p.URL(), ns))
			rss := experimentSizes(t, ns, map[string]int32{"baseline": 1, "canary": 1})
			base, can := rss["baseline"].Labels[hashLabel], rss["canary"].Labels[hashLabel]
			serveLatency(t, p, ns, 0.05, map[string]float64{base: 0.1, can: c.canary})
			waitExperiment(t, ns, "exp", 90*time.Second, string(c.phase), experimentPhase(c.phase))
			ar := waitRun(t, ns, "exp-judge", 10*time.Second, c.phase)
			m := ar.Status.MetricResults[0].Measurements[0]
			t.Logf("hashes %s/%s: value %s, message %q", base, can, m.Value, m.Message)
			if m.Metadata["latency.verdict"] != c.verdict {
				t.Errorf("verdict %q, want %s (%s)", m.Metadata["latency.verdict"], c.verdict, m.Message)
			}
		})
	}
}
