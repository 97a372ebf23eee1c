// Package experiment plans an Experiment (argoproj.io/v1alpha1): one
// ReplicaSet per template, run until all are available, then the analyses,
// then the duration; the verdict; the scale-down. It is pure: the
// controller reads the world into an Input and writes the Output.
package experiment

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/outcome"
)

// ReplicaSet is what the plan needs of a template's ReplicaSet.
type ReplicaSet struct {
	Name, Hash                       string
	Spec, Replicas, Ready, Available int32
	Updated                          int32
	// ScaleDownAt is its scale-down-deadline annotation (zero if none).
	ScaleDownAt time.Time
}

// Run is what the plan needs of an analysis's AnalysisRun.
type Run struct {
	Name    string
	Phase   rampv1.AnalysisPhase
	Message string
}

// Input is one reconcile's view of an Experiment.
type Input struct {
	Experiment *rampv1.Experiment
	Now        time.Time
	// Invalid is a spec or reference problem, naming the field ("" if none).
	Invalid string
	// ReplicaSets and Runs are keyed by template and analysis name.
	ReplicaSets map[string]ReplicaSet
	Runs        map[string]Run
	// Services are the Services of templates with spec.templates[].service,
	// by template name: the Service's name.
	Services map[string]string
}

// Output is what to write.
type Output struct {
	Status rampv1.ExperimentStatus
	// Create lists the templates whose ReplicaSet to create, at Scale.
	Create []string
	// Scale is the replicas each template's ReplicaSet should have.
	Scale map[string]int32
	// ScaleDownDeadline, once the verdict is in, is when the ReplicaSets
	// go to 0 (upstream's scale-down-deadline annotation on each).
	ScaleDownDeadline time.Time
	// Start and Terminate list analyses whose runs to create and stop.
	Start, Terminate []string
	// Services lists, by template name, the templates whose Service should
	// exist while the Experiment runs (spec.templates[].service). Services
	// are never deleted: one outlives the run selecting no pods, and goes
	// with the Experiment (owner reference).
	Services     map[string]bool
	Events       []Event
	RequeueAfter time.Duration
}

// Event is a Kubernetes Event on the Experiment.
type Event = outcome.Event

// Plan decides the next state of an Experiment.
func Plan(in Input) Output {
	ex := in.Experiment
	out := Output{Status: *ex.Status.DeepCopy(), Scale: map[string]int32{}, Services: map[string]bool{}}
	p := &planner{in: in, ex: ex, out: &out}
	switch {
	case out.Status.Phase.Completed():
		p.completed()
	case in.Invalid != "":
		p.finish(rampv1.AnalysisPhaseError, in.Invalid)
		setCondition(&out.Status, rampv1.InvalidExperimentSpec, corev1.ConditionTrue, rampv1.ExperimentReasonInvalidSpec, in.Invalid, in.Now)
		p.completed()
	default:
		p.run()
	}
	p.templateStatuses()
	return out
}

type planner struct {
	in  Input
	ex  *rampv1.Experiment
	out *Output
}

// replicas is a template's size while the Experiment runs (default 1).
func replicas(t rampv1.TemplateSpec) int32 {
	return t.EffectiveReplicas()
}

func (p *planner) run() {
	st := &p.out.Status
	if st.Phase == "" {
		st.Phase = rampv1.AnalysisPhasePending
		setCondition(st, rampv1.ExperimentProgressing, corev1.ConditionTrue, rampv1.ExperimentReasonReplicaSetUpdated, fmt.Sprintf(rampv1.ExperimentMessageProgressing, p.ex.Name), p.in.Now)
	}
	if p.ex.Spec.Terminate {
		p.finish(rampv1.AnalysisPhaseSuccessful, "Experiment was terminated")
		p.completed()
		return
	}
	available := true
	for _, t := range p.ex.Spec.Templates {
		rs, ok := p.in.ReplicaSets[t.Name]
		if !ok {
			p.out.Create = append(p.out.Create, t.Name)
		}
		p.out.Scale[t.Name] = replicas(t)
		if t.Service != nil {
			p.out.Services[t.Name] = true
		}
		available = available && ok && rs.Available >= replicas(t) && rs.Spec == replicas(t)
	}
	if st.AvailableAt == nil {
		if !available {
			p.progressDeadline()
			return
		}
		now := metav1.NewTime(p.in.Now)
		st.AvailableAt, st.Phase = &now, rampv1.AnalysisPhaseRunning
		setCondition(st, rampv1.ExperimentProgressing, corev1.ConditionTrue, rampv1.ExperimentReasonNewReplicaSetAvailable, fmt.Sprintf(rampv1.ExperimentMessageRunning, p.ex.Name), p.in.Now)
		p.event(false, "ExperimentRunning", "all templates are available")
	}
	p.analyses()
	if st.Phase.Completed() {
		p.completed()
		return
	}
	p.verdict()
	if st.Phase.Completed() {
		p.completed()
	}
}

// progressDeadline fails the Experiment when its ReplicaSets do not become
// available within progressDeadlineSeconds of its creation.
func (p *planner) progressDeadline() {
	secs := p.ex.Spec.EffectiveProgressDeadlineSeconds()
	deadline := p.ex.CreationTimestamp.Add(rampv1.SaturatingSeconds(int64(secs)))
	if p.in.Now.Before(deadline) {
		p.requeue(deadline.Sub(p.in.Now))
		return
	}
	var slow []string
	for _, t := range p.ex.Spec.Templates {
		if rs := p.in.ReplicaSets[t.Name]; rs.Available < replicas(t) {
			slow = append(slow, t.Name)
		}
	}
	p.finish(rampv1.AnalysisPhaseFailed, fmt.Sprintf("templates %v did not become available within progressDeadlineSeconds (%ds)", slow, secs))
	p.completed()
}

// analyses starts the runs not yet started and records each run's phase;
// a run that fails, errors or is inconclusive ends the Experiment with its
// verdict.
func (p *planner) analyses() {
	st := &p.out.Status
	for _, a := range p.ex.Spec.Analyses {
		if _, ok := p.in.Runs[a.Name]; !ok && runStatus(st, a.Name) == nil {
			p.out.Start = append(p.out.Start, a.Name)
		}
	}
	p.recordRuns()
	for _, phase := range []rampv1.AnalysisPhase{rampv1.AnalysisPhaseError, rampv1.AnalysisPhaseFailed, rampv1.AnalysisPhaseInconclusive} {
		for _, rs := range st.AnalysisRuns {
			if rs.Phase == phase {
				p.finish(phase, rs.Message) // as upstream: the run's own message
				return
			}
		}
	}
}

// recordRuns copies each run's phase and message into the status.
func (p *planner) recordRuns() {
	st := &p.out.Status
	for _, a := range p.ex.Spec.Analyses {
		run, ok := p.in.Runs[a.Name]
		if !ok {
			continue
		}
		rs := runStatus(st, a.Name)
		if rs == nil {
			st.AnalysisRuns = append(st.AnalysisRuns, rampv1.ExperimentAnalysisRunStatus{Name: a.Name})
			rs = &st.AnalysisRuns[len(st.AnalysisRuns)-1]
		}
		rs.AnalysisRun, rs.Phase, rs.Message = run.Name, run.Phase, run.Message
		if rs.Phase == "" {
			rs.Phase = rampv1.AnalysisPhasePending
		}
	}
}

// verdict completes a running Experiment when the duration has passed and every requiredForCompletion run has succeeded;
// without a duration, when every required run has (and there is one).
func (p *planner) verdict() {
	st := &p.out.Status
	required, pending := 0, false
	for _, a := range p.ex.Spec.Analyses {
		if a.RequiredForCompletion {
			required++
			rs := runStatus(st, a.Name)
			pending = pending || rs == nil || rs.Phase != rampv1.AnalysisPhaseSuccessful
		}
	}
	if p.ex.Spec.Duration == "" {
		if required > 0 && !pending {
			p.finish(rampv1.AnalysisPhaseSuccessful, "the analyses required for completion succeeded")
		}
		return
	}
	d, _ := p.ex.Spec.Duration.Duration() // validated
	end := st.AvailableAt.Add(d)
	switch {
	case p.in.Now.Before(end):
		p.requeue(end.Sub(p.in.Now))
	case !pending:
		p.finish(rampv1.AnalysisPhaseSuccessful, fmt.Sprintf("Experiment ran for its duration (%s)", p.ex.Spec.Duration))
	}
}

// finish records the verdict. As upstream, only a success says so in the
// Progressing condition (a failure leaves it as it was) and only a failure
// explains itself in status.message.
func (p *planner) finish(phase rampv1.AnalysisPhase, msg string) {
	st := &p.out.Status
	st.Phase, st.Message = phase, msg
	if phase == rampv1.AnalysisPhaseSuccessful {
		st.Message = ""
		setCondition(st, rampv1.ExperimentProgressing, corev1.ConditionFalse, rampv1.ExperimentReasonCompleted, msg, p.in.Now)
	}
	p.event(phase != rampv1.AnalysisPhaseSuccessful, "Experiment"+string(phase), msg)
}

// completed scales the ReplicaSets to 0 once scaleDownDelaySeconds have
// passed since the verdict, and stops the runs still going.
func (p *planner) completed() {
	p.recordRuns()
	for _, a := range p.ex.Spec.Analyses {
		if run, ok := p.in.Runs[a.Name]; ok && !run.Phase.Completed() {
			p.out.Terminate = append(p.out.Terminate, a.Name)
		}
	}
	delay := p.ex.Spec.EffectiveScaleDownDelaySeconds()
	// the deadline recorded on the ReplicaSets (upstream's annotation),
	// else from the verdict's time when the condition holds it, else from now
	var at time.Time
	for _, t := range p.ex.Spec.Templates {
		if rs := p.in.ReplicaSets[t.Name]; rs.Spec > 0 && !rs.ScaleDownAt.IsZero() && (at.IsZero() || rs.ScaleDownAt.Before(at)) {
			at = rs.ScaleDownAt
		}
	}
	if at.IsZero() {
		at = p.in.Now.Add(rampv1.SaturatingSeconds(int64(delay)))
		if c := condition(&p.out.Status, rampv1.ExperimentProgressing); c != nil && c.Reason == rampv1.ExperimentReasonCompleted {
			at = c.LastTransitionTime.Add(rampv1.SaturatingSeconds(int64(delay)))
		}
	}
	p.out.ScaleDownDeadline = at
	for _, t := range p.ex.Spec.Templates {
		rs, ok := p.in.ReplicaSets[t.Name]
		switch {
		case !ok:
		case p.in.Now.Before(at):
			p.out.Scale[t.Name] = rs.Spec
			p.requeue(at.Sub(p.in.Now))
		default:
			p.out.Scale[t.Name] = 0
		}

	}
}

// templateStatuses records each template's ReplicaSet and state.
func (p *planner) templateStatuses() {
	st := &p.out.Status
	var out []rampv1.TemplateStatus
	for _, t := range p.ex.Spec.Templates {
		ts := rampv1.TemplateStatus{Name: t.Name}
		if prev := templateStatus(&p.in.Experiment.Status, t.Name); prev != nil {
			ts = *prev.DeepCopy()
		}
		rs := p.in.ReplicaSets[t.Name]
		ts.Replicas, ts.UpdatedReplicas, ts.ReadyReplicas, ts.AvailableReplicas = rs.Replicas, rs.Updated, rs.Ready, rs.Available
		ts.PodTemplateHash, ts.ServiceName = rs.Hash, p.in.Services[t.Name]
		available := rs.Name != "" && rs.Available >= replicas(t)
		code := rampv1.TemplateStatusProgressing
		switch {
		case ts.Status == rampv1.TemplateStatusFailed || ts.Status == rampv1.TemplateStatusError:
			code = ts.Status // as upstream: a template's failure is final
		case st.Phase == rampv1.AnalysisPhaseError:
			code = rampv1.TemplateStatusError
		case st.Phase == rampv1.AnalysisPhaseFailed && !available:
			code = rampv1.TemplateStatusFailed // it never became available (progressDeadlineSeconds)
		case st.Phase.Completed():
			code = rampv1.TemplateStatusSuccessful // as upstream: a template that ran ends Successful, whatever the analyses said
		case available:
			code = rampv1.TemplateStatusRunning
		}
		if ts.Status != code {
			now := metav1.NewTime(p.in.Now)
			ts.Status, ts.LastTransitionTime = code, &now
		}
		out = append(out, ts)
	}
	st.TemplateStatuses = out
}

// requeue keeps the earliest wake-up (outcome.Sooner); every caller's d is
// positive (a deadline not reached yet).
func (p *planner) requeue(d time.Duration) {
	p.out.RequeueAfter = outcome.Sooner(p.out.RequeueAfter, d)
}

func (p *planner) event(warning bool, reason, msg string) {
	p.out.Events = append(p.out.Events, Event{Warning: warning, Reason: reason, Message: msg})
}

func runStatus(st *rampv1.ExperimentStatus, name string) *rampv1.ExperimentAnalysisRunStatus {
	for i := range st.AnalysisRuns {
		if st.AnalysisRuns[i].Name == name {
			return &st.AnalysisRuns[i]
		}
	}
	return nil
}

func templateStatus(st *rampv1.ExperimentStatus, name string) *rampv1.TemplateStatus {
	for i := range st.TemplateStatuses {
		if st.TemplateStatuses[i].Name == name {
			return &st.TemplateStatuses[i]
		}
	}
	return nil
}

func condition(st *rampv1.ExperimentStatus, t rampv1.ExperimentConditionType) *rampv1.ExperimentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// setCondition sets a condition; its transition time changes only with its
// status, its update time only with its reason or message.
func setCondition(st *rampv1.ExperimentStatus, t rampv1.ExperimentConditionType, s corev1.ConditionStatus, reason, msg string, now time.Time) {
	c := condition(st, t)
	if c == nil {
		st.Conditions = append(st.Conditions, rampv1.ExperimentCondition{Type: t})
		c = &st.Conditions[len(st.Conditions)-1]
	}
	if c.Status != s {
		c.LastTransitionTime = metav1.NewTime(now)
	}
	if c.Status != s || c.Reason != reason || c.Message != msg {
		c.LastUpdateTime = metav1.NewTime(now)
	}
	c.Status, c.Reason, c.Message = s, reason, msg
}
