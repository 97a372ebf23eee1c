package analysis

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// maxCachedConditions bounds the program cache: conditions can embed
// resolved arguments, so their number is not bounded by the templates.
// When the cache is full it is emptied and refilled on demand.
const maxCachedConditions = 4096

// conditionEnv is the environment of a condition: the measured value is
// "result" (a float64, a []float64 for a Prometheus vector, a map or any JSON
// value for a web metric, nil for an empty result). The helpers are
// registered with expr.Function (see helpers.go).
type conditionEnv struct {
	Result any    `expr:"result"`
	Budget *meter `expr:"__rampBudget"` // see budget.go
}

// ConditionError is a successCondition or failureCondition that could not
// be compiled or evaluated. Compile errors are spec errors: the same
// expression fails on every measurement.
type ConditionError struct {
	Metric     string // name of the metric
	Field      string // "successCondition" or "failureCondition"
	Expression string
	Compile    bool // the expression does not compile
	Err        error
}

func (e *ConditionError) Error() string {
	what := "evaluating"
	if e.Compile {
		what = "compiling"
	}
	return fmt.Sprintf("metric %q: %s %s %q: %v", e.Metric, what, e.Field, e.Expression, e.Err)
}

func (e *ConditionError) Unwrap() error { return e.Err }

// Evaluator compiles each condition once, caching the program by its
// expression string, and evaluates it against measurement results. It is
// safe for concurrent use; the zero value is not usable, use NewEvaluator.
type Evaluator struct {
	mu       sync.RWMutex
	programs map[string]compiled
	budget   time.Duration
}

type compiled struct {
	program *vm.Program
	err     error
}

// NewEvaluator returns an Evaluator with an empty cache and the default
// evaluation budget (DefaultConditionBudget).
func NewEvaluator() *Evaluator { return NewBudgetedEvaluator(DefaultConditionBudget) }

// NewBudgetedEvaluator returns an Evaluator whose every condition
// evaluation stops with a *BudgetError once it has run for budget (the
// default when budget <= 0).
func NewBudgetedEvaluator(budget time.Duration) *Evaluator {
	if budget <= 0 {
		budget = DefaultConditionBudget
	}
	return &Evaluator{programs: map[string]compiled{}, budget: budget}
}

var shared = NewEvaluator()

// Evaluate judges one measurement result with metric m's conditions, using
// a cache shared by the process. See (*Evaluator).Evaluate.
func Evaluate(m rampv1.Metric, result any) (rampv1.AnalysisPhase, error) {
	return shared.Evaluate(m, result)
}

// Evaluate judges one measurement result with metric m's successCondition
// and failureCondition, as Argo Rollouts does:
//   - neither condition set: Successful (upstream's code; its documentation
//     calls such a run Inconclusive, which it is not);
//   - only successCondition: Successful when true, else Failed;
//   - only failureCondition: Failed when true, else Successful;
//   - both: Failed when failureCondition is true (even if successCondition
//     is true too), Successful when only successCondition is true, else
//     Inconclusive.
//
// A condition that does not compile or evaluate to a bool, or that runs
// past the evaluator's budget, gives Error and a *ConditionError naming the
// metric and the condition (wrapping a *BudgetError for an overrun).
func (e *Evaluator) Evaluate(m rampv1.Metric, result any) (rampv1.AnalysisPhase, error) {
	result = deref(result)
	var success, failure bool
	var err error
	if m.SuccessCondition != "" {
		if success, err = e.condition(m.Name, "successCondition", m.SuccessCondition, result); err != nil {
			return rampv1.AnalysisPhaseError, err
		}
	}
	if m.FailureCondition != "" {
		if failure, err = e.condition(m.Name, "failureCondition", m.FailureCondition, result); err != nil {
			return rampv1.AnalysisPhaseError, err
		}
	}
	switch {
	case m.SuccessCondition == "" && m.FailureCondition == "":
		return rampv1.AnalysisPhaseSuccessful, nil
	case m.FailureCondition == "":
		failure = !success
	case m.SuccessCondition == "":
		success = !failure
	}
	switch {
	case failure:
		return rampv1.AnalysisPhaseFailed, nil
	case success:
		return rampv1.AnalysisPhaseSuccessful, nil
	}
	return rampv1.AnalysisPhaseInconclusive, nil
}

// Check compiles metric m's conditions without evaluating them, so that an
// expression that can never run is reported before any measurement.
func (e *Evaluator) Check(m rampv1.Metric) error {
	for _, c := range [...]struct{ field, expression string }{
		{"successCondition", m.SuccessCondition}, {"failureCondition", m.FailureCondition},
	} {
		if c.expression == "" {
			continue
		}
		if _, err := e.program(c.expression); err != nil {
			return &ConditionError{Metric: m.Name, Field: c.field, Expression: c.expression, Compile: true, Err: err}
		}
	}
	return nil
}

// condition evaluates one expression against result.
func (e *Evaluator) condition(metric, field, expression string, result any) (ok bool, err error) {
	fail := func(compile bool, err error) (bool, error) {
		return false, &ConditionError{Metric: metric, Field: field, Expression: expression, Compile: compile, Err: err}
	}
	program, err := e.program(expression)
	if err != nil {
		return fail(true, err)
	}
	m := &meter{deadline: time.Now().Add(e.budget)}
	out, err := run(program, result, m)
	switch {
	case m.over:
		return fail(false, &BudgetError{Budget: e.budget})
	case err != nil:
		return fail(false, flatten(err))
	}
	b, isBool := out.(bool)
	if !isBool {
		return fail(false, fmt.Errorf("expected bool, but got %T", out))
	}
	return b, nil
}

// program returns the cached program of expression, compiling it (or
// recalling its compile error) once.
func (e *Evaluator) program(expression string) (*vm.Program, error) {
	e.mu.RLock()
	c, hit := e.programs[expression]
	e.mu.RUnlock()
	if hit {
		return c.program, c.err
	}
	c.program, c.err = compile(expression)
	e.mu.Lock()
	if len(e.programs) >= maxCachedConditions {
		clear(e.programs)
	}
	e.programs[expression] = c
	e.mu.Unlock()
	return c.program, c.err
}

// compile compiles expression for the condition environment. A panic in
// the compiler (a bug on some odd input) is an error, never a crash.
func compile(expression string) (p *vm.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("invalid expression: %v", r)
		}
	}()
	opts := append([]expr.Option{expr.Env(conditionEnv{}), budgetOption, expr.Patch(budgetPatch{})}, helpers...)
	p, err = expr.Compile(expression, opts...)
	if err != nil {
		return nil, flatten(err)
	}
	return p, nil
}

// run evaluates program with result (expr's VM recovers its own panics;
// this also covers the helpers).
func run(program *vm.Program, result any, m *meter) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return expr.Run(program, conditionEnv{Result: result, Budget: m})
}

// flatten turns expr's multi-line positioned errors into one line
// ("unexpected token Operator(\"=\") (1:11)") fit for a status message.
func flatten(err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		if fe.Line > 0 {
			return fmt.Errorf("%s (%d:%d)", fe.Message, fe.Line, fe.Column+1)
		}
		return errors.New(fe.Message)
	}
	return err
}

// deref returns the value a non-nil pointer points to, and nil for a nil
// pointer, so providers may hand over pointers (as upstream allows).
func deref(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		return v
	}
	if rv.IsNil() {
		return nil
	}
	return rv.Elem().Interface()
}
