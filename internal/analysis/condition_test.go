package analysis

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

const (
	successful   = rampv1.AnalysisPhaseSuccessful
	failed       = rampv1.AnalysisPhaseFailed
	inconclusive = rampv1.AnalysisPhaseInconclusive
	errored      = rampv1.AnalysisPhaseError
	running      = rampv1.AnalysisPhaseRunning
	pending      = rampv1.AnalysisPhasePending
)

func cond(success, failure string) rampv1.Metric {
	return rampv1.Metric{Name: "m", SuccessCondition: success, FailureCondition: failure}
}

func TestEvaluateRules(t *testing.T) {
	f := 2.5
	var nilPtr *float64
	for _, c := range []struct {
		name             string
		success, failure string
		result           any
		want             rampv1.AnalysisPhase
	}{
		{"no conditions", "", "", 1.0, successful},
		{"no conditions, nil result", "", "", nil, successful},
		{"success only, true", "result > 1", "", 2.0, successful},
		{"success only, false is Failed", "result > 1", "", 0.0, failed},
		{"failure only, true", "", "result > 1", 2.0, failed},
		{"failure only, false is Successful", "", "result > 1", 0.0, successful},
		{"both, success", "result > 1", "result < 0", 2.0, successful},
		{"both, failure", "result > 1", "result < 0", -1.0, failed},
		{"both, neither is Inconclusive", "result > 1", "result < 0", 0.5, inconclusive},
		{"both true: failure wins", "result > 1", "result > 0", 2.0, failed},
		// docs, "NaN and Infinity"
		{"NaN accepted by isNaN", "isNaN(result) || result >= 0.95", "", math.NaN(), successful},
		{"NaN with both conditions", "result >= 0.95", "result < 0.95", math.NaN(), inconclusive},
		{"NaN with success only", "result >= 0.95", "", math.NaN(), failed},
		{"+Inf passes >=", "result >= 0.95", "", math.Inf(1), successful},
		{"+Inf caught by isInf", "", "isInf(result)", math.Inf(1), failed},
		// docs, "Empty array" (Prometheus vector)
		{"empty vector allowed", "len(result) == 0 || result[0] >= 0.95", "", []any{}, successful},
		{"empty vector refused", "len(result) > 0 && result[0] >= 0.95", "", []any{}, failed},
		{"vector element", "result[0] >= 0.95", "", []any{0.99}, successful},
		// docs, web metrics and Datadog
		{"web string", "result == 'true'", "", "true", successful},
		{"web asFloat", "asFloat(result) >= 0.90", "", "0.95", successful},
		{"web asInt", "asInt(result) == 3", "", "3", successful},
		{"web JSON object", "result.ok && result.rate > 0.9", "", map[string]any{"ok": true, "rate": 0.95}, successful},
		{"datadog nil with default", "default(result, 0) < 0.05", "", nil, successful},
		{"datadog value with default", "default(result, 0) < 0.05", "", 0.5, failed},
		{"isNil", "isNil(result)", "", nil, successful},
		{"pointer result", "result == 2.5", "", &f, successful},
		{"nil pointer result", "isNil(result)", "", nilPtr, successful},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := NewEvaluator().Evaluate(cond(c.success, c.failure), c.result)
			if err != nil || got != c.want {
				t.Fatalf("Evaluate = %s, %v; want %s", got, err, c.want)
			}
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	for _, c := range []struct {
		name             string
		success, failure string
		result           any
		compile          bool
		want             string
	}{
		// seed 003 (blue-green): "=" is not an expr operator
		{"seed 003 assignment", "result[0] = 0", "", []any{0.0}, true,
			`metric "m": compiling successCondition "result[0] = 0": unexpected token Operator("=") (1:11)`},
		{"unknown name", "", "value > 1", 1.0, true, `failureCondition "value > 1": unknown name value (1:1)`},
		{"empty vector index", "result[0] > 0", "", []any{}, false,
			`metric "m": evaluating successCondition "result[0] > 0": index out of range: 0 (array length is 0) (1:7)`},
		{"vector compared as a number", "result > 0.5", "", []any{1.0}, false, "invalid operation"},
		{"nil compared", "result < 0.05", "", nil, false, "invalid operation"},
		{"not a bool", "result + 1", "", 1.0, false, "expected bool, but got float64"},
		{"asInt of a word", "asInt(result) > 1", "", "many", false, `asInt: strconv.ParseInt: parsing "many"`},
		{"asFloat of a map", "asFloat(result) > 1", "", map[string]any{}, false, "asFloat: cannot convert map"},
		{"isNaN of a string", "isNaN(result)", "", "NaN", false, "isNaN: string is not a number"},
		{"failure condition errors after a true success", "result > 0", "result.x > 1", 1.0, false, "failureCondition"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := NewEvaluator().Evaluate(cond(c.success, c.failure), c.result)
			var ce *ConditionError
			if got != errored || !errors.As(err, &ce) || ce.Compile != c.compile || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Evaluate = %s, %v; want Error with %q (compile %v)", got, err, c.want, c.compile)
			}
			if errors.Unwrap(err) == nil {
				t.Fatal("ConditionError does not unwrap to the expr error")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error in a status message: %q", err)
			}
		})
	}
}

func TestHelpers(t *testing.T) {
	for _, c := range []struct {
		expr   string
		result any
	}{
		{"asInt(result) == 2", 2.9},
		{"asInt(result) == -7", int32(-7)},
		{"asInt(result) == 7", uint8(7)},
		{"asFloat(result) == 1.5", float32(1.5)},
		{"asFloat(result) == 3", int64(3)},
		{"asFloat(result) == 1e3", "1e3"},
		{"!isNaN(result)", 3},
		{"!isInf(result)", int64(3)},
		{"isInf(result)", math.Inf(-1)},
		{"!isNil(result)", 0.0},
		{"isNil(result.missing)", map[string]any{}},
		{"default(result.missing, 4) == 4", map[string]any{}},
		{"default(result, 4) == 1", 1.0},
		{"len(result) == 2 && result[1] == 'b'", []any{"a", "b"}},
	} {
		if got, err := NewEvaluator().Evaluate(cond(c.expr, ""), c.result); got != successful {
			t.Errorf("%s with %#v = %s, %v", c.expr, c.result, got, err)
		}
	}
}

func TestCheck(t *testing.T) {
	e := NewEvaluator()
	if err := e.Check(cond("result[0] > 0", "result[0] < 0")); err != nil {
		t.Fatal(err)
	}
	err := e.Check(rampv1.Metric{Name: "success-rate10", SuccessCondition: "result[0] = 0"})
	var ce *ConditionError
	if !errors.As(err, &ce) || !ce.Compile || ce.Metric != "success-rate10" || ce.Field != "successCondition" {
		t.Fatalf("Check = %v", err)
	}
}

func TestCacheCompilesOnce(t *testing.T) {
	e := NewEvaluator()
	m := cond("result[0] > 0", "bad =")
	for range 3 {
		_, _ = e.Evaluate(m, []any{1.0})
	}
	p1, _ := e.program("result[0] > 0")
	p2, _ := e.program("result[0] > 0")
	if p1 == nil || p1 != p2 || len(e.programs) != 2 {
		t.Fatalf("programs not cached: %p %p, %d entries", p1, p2, len(e.programs))
	}
	if _, err := e.program("bad ="); err == nil {
		t.Fatal("compile error not cached")
	}
	for i := range maxCachedConditions + 10 {
		_, _ = e.program(fmt.Sprintf("result > %d", i))
	}
	if len(e.programs) > maxCachedConditions {
		t.Fatalf("cache grew to %d entries", len(e.programs))
	}
}

func TestEvaluateConcurrently(t *testing.T) {
	e := NewEvaluator()
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			for j := range 200 {
				m := cond(fmt.Sprintf("result[0] > %d", j%7), "")
				want := failed
				if float64(i%10) > float64(j%7) {
					want = successful
				}
				if got, err := e.Evaluate(m, []any{float64(i % 10)}); got != want || err != nil {
					t.Errorf("goroutine %d: %s = %s, %v", i, m.SuccessCondition, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got, err := Evaluate(cond("result > 0", ""), 1.0); got != successful || err != nil {
		t.Fatalf("shared Evaluate = %s, %v", got, err)
	}
}
