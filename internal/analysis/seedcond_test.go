package analysis

import (
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Seed 003's blue-green template writes `result[0] = 0`: in expr that is
// not a comparison, so every measurement is an Error (as upstream).
func TestSeedAssignmentConditionDoesNotCompile(t *testing.T) {
	_, err := Evaluate(rampv1.Metric{Name: "success-rate10", SuccessCondition: "result[0] = 0"}, []float64{0})
	if err == nil {
		t.Fatal("result[0] = 0 evaluated without error")
	}
	t.Log(err)
}
