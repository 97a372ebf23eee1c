package analysis

import (
	"errors"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestConditionBudget: a nested all(result, {all(result, ...)}) over 20k
// elements (4e8 iterations, minutes of CPU) is stopped by the evaluation
// budget: Error, a *BudgetError naming the metric and the budget. The
// elapsed time is printed, not asserted (a timed test would be flaky on a
// loaded machine); the budget's own bound is the clock read every
// checkEvery iterations.
func TestConditionBudget(t *testing.T) {
	result := make([]any, 20000)
	for i := range result {
		result[i] = float64(i)
	}
	e := NewEvaluator() // DefaultConditionBudget, 1s
	m := rampv1.Metric{Name: "nested", SuccessCondition: "all(result, {all(result, {# >= 0})})"}
	start := time.Now()
	phase, err := e.Evaluate(m, result)
	t.Logf("overrun reported after %s (budget 1s)", time.Since(start))
	var be *BudgetError
	if phase != rampv1.AnalysisPhaseError || !errors.As(err, &be) {
		t.Fatalf("Evaluate = %s, %v; want Error with a *BudgetError", phase, err)
	}
	if msg := err.Error(); !strings.Contains(msg, `metric "nested"`) || !strings.Contains(msg, "condition evaluation exceeded 1s budget") {
		t.Errorf("message %q does not name the metric and the budget", msg)
	}
	// The same program within its budget still judges: a predicate's value
	// is its body's, not the check's.
	small := result[:50]
	for cond, want := range map[string]rampv1.AnalysisPhase{
		"all(result, {all(result, {# >= 0})})":        rampv1.AnalysisPhaseSuccessful,
		"any(result, {# > 100})":                      rampv1.AnalysisPhaseFailed,
		"sum(map(result, {# * 2})) == 2450":           rampv1.AnalysisPhaseSuccessful,
		"len(filter(result, {# < 10})) == 10":         rampv1.AnalysisPhaseSuccessful,
		"count(result, {all(result, {# < 49})}) == 0": rampv1.AnalysisPhaseSuccessful,
	} {
		if got, err := e.Evaluate(rampv1.Metric{Name: "m", SuccessCondition: cond}, small); got != want || err != nil {
			t.Errorf("%s = %s, %v; want %s", cond, got, err, want)
		}
	}
}

// BenchmarkConditionBudget prints the cost of the budget check on a
// predicate over 20k elements.
func BenchmarkConditionBudget(b *testing.B) {
	result := make([]any, 20000)
	for i := range result {
		result[i] = float64(i)
	}
	m := rampv1.Metric{Name: "m", SuccessCondition: "all(result, {# >= 0})"}
	e := NewEvaluator()
	for b.Loop() {
		if _, err := e.Evaluate(m, result); err != nil {
			b.Fatal(err)
		}
	}
}
