package view

import (
	"bytes"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestExperimentRows: an experiment step's Experiment is shown under the
// revision whose pod-template hash it carries; one of an unknown revision
// under the Rollout.
func TestExperimentRows(t *testing.T) {
	w := canaryPaused()
	v := w.view()
	exp := func(name, hash string, phase rampv1.AnalysisPhase) rampv1.Experiment {
		return rampv1.Experiment{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{rampv1.DefaultRolloutUniqueLabelKey: hash}, CreationTimestamp: ago(50 * time.Second)},
			Spec:       rampv1.ExperimentSpec{Templates: []rampv1.TemplateSpec{{Name: "baseline"}, {Name: "canary"}}},
			Status:     rampv1.ExperimentStatus{Phase: phase},
		}
	}
	v.AddExperiments([]rampv1.Experiment{exp("checkout-7b9c5d4f8-3-1", "7b9c5d4f8", rampv1.AnalysisPhaseRunning),
		exp("checkout-0000000-9-1", "0000000", rampv1.AnalysisPhaseFailed)}, now)
	var b bytes.Buffer
	if err := Render(&b, v, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var rev3, inRev3, loose bool
	for _, l := range lines {
		switch {
		case strings.Contains(l, "revision:3"):
			rev3 = true
		case strings.Contains(l, "revision:"):
			rev3 = false
		case strings.Contains(l, "Σ checkout-7b9c5d4f8-3-1") && strings.Contains(l, "Experiment") &&
			strings.Contains(l, "◌ Running") && strings.Contains(l, "templates:baseline,canary"):
			inRev3 = rev3
		case strings.HasPrefix(l, "└──Σ checkout-0000000-9-1") && strings.Contains(l, "✖ Failed"):
			loose = true
		}
	}
	if !inRev3 || !loose {
		t.Errorf("experiment rows (under revision 3: %v, under the Rollout: %v):\n%s", inRev3, loose, b.String())
	}
}
