package plan

import (
	"fmt"
	"slices"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/experiment"
)

// Experiment is what the planner knows about one Experiment the Rollout
// owns.
type Experiment struct {
	Name        string
	Hash        string // rollouts-pod-template-hash label: the revision it belongs to
	StepIndex   int32  // step-index label
	Phase       rampv1.AnalysisPhase
	Message     string
	Terminating bool // spec.terminate is set
}

// ExperimentStart asks the reconciler to create the Experiment of an
// experiment step for NewHash.
type ExperimentStart struct {
	StepIndex int32
	Step      *rampv1.RolloutExperimentStep
}

// stepExperiment runs an experiment step: it starts the step's Experiment
// and reports whether the step is done (the Experiment Successful). An
// Experiment that ends any other way aborts the update, as upstream.
func (r *canaryRun) stepExperiment(idx int32, e *rampv1.RolloutExperimentStep) bool {
	x := r.experimentAt(idx)
	if x == nil {
		r.out.StartExperiment = &ExperimentStart{StepIndex: idx, Step: e}
		r.s.Canary.CurrentExperiment = ""
		return false
	}
	r.s.Canary.CurrentExperiment = x.Name
	r.a.wanted[x.Name] = !x.Phase.Completed()
	switch {
	case x.Phase == rampv1.AnalysisPhaseSuccessful:
		// upstream records only an Experiment still to be judged: the step
		// completes in this pass, so the status forgets it
		r.s.Canary.CurrentExperiment = ""
		return true
	case x.Phase.Completed():
		r.a.detail = experimentDetail(x)
		r.s.Abort = true
		r.abortOrRetry()
	}
	return false
}

// experimentAt is this revision's Experiment of step idx: the one the
// status records, else one just created (still going), else nil. After a
// retry the status records none, so the Experiments that ended before it
// are not judged again.
func (r *canaryRun) experimentAt(idx int32) *Experiment {
	if x, ok := r.in.Experiments[r.s.Canary.CurrentExperiment]; ok && x.Hash == r.in.NewHash && x.StepIndex == idx {
		return &x
	}
	for _, x := range r.in.Experiments {
		if x.Hash == r.in.NewHash && x.StepIndex == idx && !x.Phase.Completed() && !x.Terminating {
			return &x
		}
	}
	return nil
}

func experimentDetail(x *Experiment) string {
	if x.Message != "" {
		return fmt.Sprintf("Experiment %s %s: %s", x.Name, x.Phase, x.Message)
	}
	return fmt.Sprintf("Experiment %s ended %s", x.Name, x.Phase)
}

// terminateExperiments asks to stop every Experiment still running that
// this pass does not want (terminateRuns): of earlier revisions, of an
// aborted update, of a step skipped by a full promotion.
func (r *base) terminateExperiments() {
	for name, x := range r.in.Experiments {
		if x.Phase.Completed() || x.Terminating || r.a.wanted[name] {
			continue
		}
		r.out.TerminateExperiments = append(r.out.TerminateExperiments, name)
	}
	slices.Sort(r.out.TerminateExperiments)
}

// experimentStepProblem reports what keeps an experiment step from running
// ("" if nothing): the Experiment's own checks, and what only a step has.
func experimentStepProblem(path string, e *rampv1.RolloutExperimentStep) string {
	if len(e.Templates) == 0 {
		return path + ".templates: at least one template is required"
	}
	names := make([]string, len(e.Templates))
	for i, t := range e.Templates {
		names[i] = t.Name
	}
	if msg := experiment.CheckNames(path+".templates", "template", names); msg != "" {
		return msg
	}
	for i, t := range e.Templates {
		tp := fmt.Sprintf("%s.templates[%d]", path, i)
		switch {
		case t.SpecRef != rampv1.StableSpecRef && t.SpecRef != rampv1.CanarySpecRef:
			return fmt.Sprintf("%s.specRef: %q must be stable or canary", tp, t.SpecRef)
		case t.Weight != nil:
			return tp + ".weight: weighted experiment templates (traffic to the Experiment's pods) are not supported by this version of Ramp"
		}
	}
	refs := make([]experiment.AnalysisRef, len(e.Analyses))
	for i, a := range e.Analyses {
		refs[i] = experiment.AnalysisRef{Name: a.Name, TemplateName: a.TemplateName}
	}
	return experiment.CheckRest(path, e.Duration, refs)
}
