package plan

import rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"

// Planner plans one reconcile of a Rollout.
type Planner func(Input) Output

// For returns the planner of the Rollout's strategy. A Rollout with no
// strategy (upstream's CRD admits it) gets one that only reports the
// InvalidSpec condition (ValidateStrategy names the field), so nothing
// reads a strategy that is not there.
func For(ro *rampv1.Rollout) Planner {
	switch s := ro.Spec.Strategy; {
	case s.BlueGreen != nil:
		return BlueGreen
	case s.Canary != nil:
		return Canary
	}
	return invalidOnly
}

// invalidOnly reports in.Invalid (or what ValidateStrategy finds) and
// changes nothing else.
func invalidOnly(in Input) Output {
	r := newBase(in)
	r.s.Selector = selectorString(r.ro, "")
	msg := in.Invalid
	if msg == "" {
		msg = ValidateStrategy(in.Rollout)
	}
	return r.invalid(msg)
}
