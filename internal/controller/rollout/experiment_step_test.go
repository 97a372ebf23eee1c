package rollout

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestExperimentStepIndex: the step is read from the name, as upstream
// names Experiments (no step-index label), collision suffix included; an
// Experiment of an earlier Ramp version keeps its label.
func TestExperimentStepIndex(t *testing.T) {
	for name, want := range map[string]int32{"app-5f7c9-2-1": 1, "app-5f7c9-12-3.1": 3, "my-app-h-1-0": 0} {
		if got := experimentStepIndex(&rampv1.Experiment{ObjectMeta: metav1.ObjectMeta{Name: name}}); got != want {
			t.Errorf("%s: step %d, want %d", name, got, want)
		}
	}
	ex := &rampv1.Experiment{ObjectMeta: metav1.ObjectMeta{Name: "app-h-2-1", Labels: map[string]string{rampv1.RolloutCanaryStepIndexLabel: "4"}}}
	if got := experimentStepIndex(ex); got != 4 {
		t.Errorf("labelled: step %d, want 4", got)
	}
}
