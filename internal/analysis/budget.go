package analysis

import (
	"fmt"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// DefaultConditionBudget is how long one condition may evaluate
// (--condition-evaluation-budget).
const DefaultConditionBudget = time.Second

// expr cannot cancel a running program, and its memory budget does not
// count the iterations of a predicate (all, any, map, filter...): a nested
// all(result, {all(result, ...)}) over 20k elements runs for minutes. So
// every predicate body is compiled with a call to budgetCheck first
// (budgetPatch), which counts the iterations of this evaluation and stops it
// once its deadline has passed. Without a predicate a program's run is
// linear in its length and in the size of result, which the providers cap.
// The check reads the monotonic clock: a resource limit, not a decision.
const (
	budgetFunc  = "__rampBudgetCheck" // the patched-in call
	budgetVar   = "__rampBudget"      // the evaluation's meter in the environment
	checkEvery  = 256                 // iterations between two clock reads
	budgetPanic = "condition evaluation budget exceeded"
)

// meter is the budget of one evaluation.
type meter struct {
	deadline time.Time
	ticks    int
	over     bool
}

// tick counts one predicate iteration and panics once past the deadline
// (expr's VM turns the panic into an error; run reports errBudget).
func (m *meter) tick() {
	if m == nil {
		return
	}
	if m.ticks++; m.ticks%checkEvery == 0 && time.Now().After(m.deadline) {
		m.over = true
		panic(budgetPanic)
	}
}

// budgetOption registers budgetCheck for conditions.
var budgetOption = expr.Function(budgetFunc, func(p ...any) (any, error) {
	if m, ok := p[0].(*meter); ok {
		m.tick()
	}
	return true, nil
}, new(func(*meter) bool))

// budgetPatch rewrites every predicate body B into the sequence
// (budgetCheck(meter); B), whose value is B's.
type budgetPatch struct{}

func (budgetPatch) Visit(node *ast.Node) {
	p, ok := (*node).(*ast.PredicateNode)
	if !ok || patched(p.Node) {
		return
	}
	check := &ast.CallNode{Callee: &ast.IdentifierNode{Value: budgetFunc}, Arguments: []ast.Node{&ast.IdentifierNode{Value: budgetVar}}}
	p.Node = &ast.SequenceNode{Nodes: []ast.Node{check, p.Node}}
}

func patched(n ast.Node) bool {
	s, ok := n.(*ast.SequenceNode)
	if !ok || len(s.Nodes) != 2 {
		return false
	}
	c, ok := s.Nodes[0].(*ast.CallNode)
	if !ok {
		return false
	}
	id, ok := c.Callee.(*ast.IdentifierNode)
	return ok && id.Value == budgetFunc
}

// BudgetError is an evaluation stopped by its time budget.
type BudgetError struct{ Budget time.Duration }

func (e *BudgetError) Error() string {
	return fmt.Sprintf("condition evaluation exceeded %s budget", e.Budget)
}
