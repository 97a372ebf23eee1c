package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// judgedRun is a run whose judge metric failed, with the judge's metadata.
func judgedRun() *rampv1.AnalysisRun {
	started := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "checkout-judge"},
		Status: rampv1.AnalysisRunStatus{Phase: rampv1.AnalysisPhaseFailed, Message: "Metric \"judge\" assessed Failed", StartedAt: &started,
			MetricResults: []rampv1.MetricResult{{Name: "judge", Phase: rampv1.AnalysisPhaseFailed, Count: 1, Failed: 1,
				Measurements: []rampv1.Measurement{{Phase: rampv1.AnalysisPhaseFailed, Value: "0",
					Message:  "score 0: latency High (p=1.13e-10, effect +20.6%)",
					Metadata: map[string]string{"score": "0", "latency.verdict": "High", "latency.p-value": "1.13e-10", "latency.effect-size": "0.2064"}}}}}}}
}

// TestGetAnalysisRun: the text shows the phase, a row per metric with its
// counts and last value, and the last measurement's message and metadata
// sorted by key (the judge's evidence); -o yaml prints the status; an
// unknown run names namespace and name.
func TestGetAnalysisRun(t *testing.T) {
	s := fakeClient(t, interceptor.Funcs{}).Scheme()
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(judgedRun()).Build()
	var out bytes.Buffer
	if err := runGetAnalysisRun(context.Background(), c, "shop", "checkout-judge", getFlags{}, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"Phase:      Failed", "judge   Failed  1", "score 0: latency High (p=1.13e-10, effect +20.6%)",
		"  latency.effect-size: 0.2064\n  latency.p-value: 1.13e-10\n  latency.verdict: High\n  score: 0\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	out.Reset()
	if err := runGetAnalysisRun(context.Background(), c, "shop", "checkout-judge", getFlags{output: "yaml"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "latency.verdict: High") || !strings.Contains(out.String(), "phase: Failed") {
		t.Errorf("-o yaml:\n%s", out.String())
	}
	err := runGetAnalysisRun(context.Background(), c, "shop", "missing", getFlags{}, &out)
	if err == nil || err.Error() != "analysisrun shop/missing not found" {
		t.Errorf("unknown run: %v", err)
	}
}
