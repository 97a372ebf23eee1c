package analysis

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// seeds are conditions seen in the seeds, the upstream documentation and
// typical templates, plus some broken ones.
var seeds = []string{
	"result[0] > 0", "result[0] = 0", "result[0] >= 0.95", "result >= 0.95", "result == 'true'",
	"asFloat(result) >= 0.90", "asInt(result) == 1", "isNaN(result) || result >= 0.95", "isInf(result)",
	"len(result) == 0 || result[0] >= 0.95", "default(result, 0) < 0.05", "isNil(result)",
	"result.ok && result.rate > 0.9", "all(result, {# > 0})", "1..1000000 | len() > 0",
	"result[", "((((", "'\\u", "result ?? 1", "let x = result; x > 1", "",
}

// phaseOK checks the contract every evaluation keeps, whatever the input:
// a phase a measurement may have, and an error exactly for Error.
func phaseOK(t *testing.T, phase rampv1.AnalysisPhase, err error) {
	t.Helper()
	switch phase {
	case successful, failed, inconclusive:
		if err != nil {
			t.Fatalf("phase %s with error %v", phase, err)
		}
	case errored:
		var ce *ConditionError
		if !errors.As(err, &ce) {
			t.Fatalf("Error phase without a *ConditionError: %v", err)
		}
	default:
		t.Fatalf("unexpected phase %q (%v)", phase, err)
	}
}

// FuzzEvaluateScalar evaluates random expressions against scalar and
// vector results (the shapes Prometheus and most providers produce).
func FuzzEvaluateScalar(f *testing.F) {
	for i, s := range seeds {
		f.Add(s, "", uint8(i), float64(i)-2.5, "0.95")
		f.Add("", s, uint8(i+3), math.NaN(), "true")
	}
	e := NewEvaluator()
	f.Fuzz(func(t *testing.T, success, failure string, kind uint8, num float64, str string) {
		var result any
		switch kind % 8 {
		case 0:
			result = num
		case 1:
			result = []any{num}
		case 2:
			result = []any{}
		case 3:
			result = str
		case 4:
			result = nil
		case 5:
			result = &num
		case 6:
			result = []any{num, str, nil, []any{num}}
		case 7:
			result = int64(num)
		}
		phase, err := e.Evaluate(rampv1.Metric{Name: "fuzz", SuccessCondition: success, FailureCondition: failure}, result)
		phaseOK(t, phase, err)
	})
}

// FuzzEvaluateJSON evaluates random expressions against any JSON value
// (what a web metric's jsonPath can yield).
func FuzzEvaluateJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, `{"ok": true, "rate": 0.95, "items": [1, "a", null, {"x": -1}]}`)
		f.Add(s, `[0.5]`)
		f.Add(s, `"true"`)
		f.Add(s, `null`)
	}
	e := NewEvaluator()
	f.Fuzz(func(t *testing.T, condition, doc string) {
		var result any
		if json.Unmarshal([]byte(doc), &result) != nil {
			result = doc
		}
		phase, err := e.Evaluate(rampv1.Metric{Name: "fuzz", SuccessCondition: condition}, result)
		phaseOK(t, phase, err)
		phase, err = e.Evaluate(rampv1.Metric{Name: "fuzz", FailureCondition: condition, SuccessCondition: "!isNil(result)"}, result)
		phaseOK(t, phase, err)
	})
}

// TestConditionTimeBudget: a condition of a few dozen characters could
// run for as long as it liked. expr's memory budget stops ranges that
// allocate (`all(1..1000000, ...)`), but not loops nested over one
// allocated range or over the measured result: `let x = 1..100; all(x,
// {all(x, {all(x, {all(x, true)})})})` took 2.8 s before the evaluation
// budget (each level of nesting multiplies by 100). Now it is an Error
// with a *BudgetError (the time taken is printed; TestConditionBudget has
// the 20k-element case).
func TestConditionTimeBudget(t *testing.T) {
	start := time.Now()
	phase, err := NewBudgetedEvaluator(50*time.Millisecond).Evaluate(rampv1.Metric{Name: "slow",
		SuccessCondition: "let x = 1..100; all(x, {all(x, {all(x, {all(x, {all(x, true)})})})})"}, 1.0)
	t.Logf("stopped after %s (budget 50ms)", time.Since(start))
	var be *BudgetError
	if phase != errored || !errors.As(err, &be) {
		t.Errorf("evaluation gave %s (%v): want an Error with a *BudgetError", phase, err)
	}
}
