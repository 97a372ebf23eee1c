package plan

import (
	"maps"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// RunType is the role of an AnalysisRun in a Rollout, as in the run's
// rollout-type label.
type RunType string

// Run types (values of the rollout-type label, as upstream).
const (
	RunBackground    RunType = rampv1.RolloutTypeBackgroundRunLabel
	RunStep          RunType = rampv1.RolloutTypeStepLabel
	RunPrePromotion  RunType = rampv1.RolloutTypePrePromotionLabel
	RunPostPromotion RunType = rampv1.RolloutTypePostPromotionLabel
)

// Run is what the planner knows about one AnalysisRun the Rollout owns.
type Run struct {
	Name        string
	Type        RunType
	Hash        string // rollouts-pod-template-hash label: the revision it measures
	StepIndex   *int32 // step-index label (Step runs)
	Phase       rampv1.AnalysisPhase
	Message     string
	Terminating bool      // spec.terminate is set
	Created     time.Time // .metadata.creationTimestamp
	Deleting    bool      // .metadata.deletionTimestamp is set
	// NotReused: the reconciler found that this run, though it looks like
	// one of this revision's, is not the Rollout's to take up (RunReuse:
	// not its controller, or another spec). Never taken up as unrecorded.
	NotReused bool
}

// RunStart asks the reconciler to create an AnalysisRun for NewHash.
type RunStart struct {
	Type      RunType
	StepIndex *int32 // Step runs
	Analysis  rampv1.RolloutAnalysis
}

// analyses tracks the runs of one planning pass: which are wanted running.
type analyses struct {
	wanted map[string]bool // names of runs that should keep running
	detail string          // why analysis aborted the rollout
}

// run finds the run recorded in ref if it measures this revision with the
// given type (and step).
func (r *base) run(ref *rampv1.RolloutAnalysisRunStatus, t RunType, step *int32) *Run {
	if ref == nil || ref.Name == "" {
		return nil
	}
	run, ok := r.in.Runs[ref.Name]
	if !ok || run.Hash != r.in.NewHash || run.Type != t {
		return nil
	}
	if step != nil && (run.StepIndex == nil || *run.StepIndex != *step) {
		return nil
	}
	return &run
}

// ensureRun returns the status of the run of type t (and step) for this
// revision, asking for it to be started when there is none. The returned
// status has an empty name until the reconciler created the run.
func (r *base) ensureRun(ref *rampv1.RolloutAnalysisRunStatus, t RunType, step *int32, a rampv1.RolloutAnalysis) (*rampv1.RolloutAnalysisRunStatus, *Run) {
	run := r.run(ref, t, step)
	if run == nil {
		run = r.unrecorded(t, step)
	}
	if run != nil {
		r.a.wanted[run.Name] = !run.Phase.Completed()
		return statusOf(*run), run
	}
	r.out.StartRuns = append(r.out.StartRuns, RunStart{Type: t, StepIndex: step, Analysis: a})
	return &rampv1.RolloutAnalysisRunStatus{Status: rampv1.AnalysisPhasePending}, nil
}

// unrecorded is a run of type t (and step) for this revision that is still
// going though the status names none: started by a pass whose status write
// was lost. It is this try's run, kept rather than stopped and started
// again. The first by name, or nil.
func (r *base) unrecorded(t RunType, step *int32) *Run {
	for _, name := range slices.Sorted(maps.Keys(r.in.Runs)) {
		run := r.in.Runs[name]
		if run.Hash != r.in.NewHash || run.Type != t || run.Phase.Completed() || run.Terminating || run.Deleting || run.NotReused {
			continue
		}
		if (step == nil) != (run.StepIndex == nil) || (step != nil && *step != *run.StepIndex) {
			continue
		}
		return &run
	}
	return nil
}

// refresh copies a recorded run's current phase into its status reference.
func (r *base) refresh(ref *rampv1.RolloutAnalysisRunStatus) *rampv1.RolloutAnalysisRunStatus {
	if ref == nil {
		return nil
	}
	if run, ok := r.in.Runs[ref.Name]; ok {
		return statusOf(run)
	}
	return ref
}

// statusOf is a run's summary in the Rollout's status.
func statusOf(run Run) *rampv1.RolloutAnalysisRunStatus {
	return &rampv1.RolloutAnalysisRunStatus{Name: run.Name, Status: orPending(run.Phase), Message: run.Message}
}

// judgeRun acts on a run's verdict: Failed or Error aborts the update,
// Inconclusive pauses it (InconclusiveAnalysisRun) until the user resumes.
// prev is the run's status as the previous pass recorded it. It reports
// whether the run lets the rollout go on: Successful, or Inconclusive and
// resumed by the user.
func (r *base) judgeRun(run *Run, prev *rampv1.RolloutAnalysisRunStatus) bool {
	if run == nil {
		return false
	}
	switch run.Phase {
	case rampv1.AnalysisPhaseSuccessful:
		return true
	case rampv1.AnalysisPhaseFailed, rampv1.AnalysisPhaseError:
		r.a.detail = analysisDetail(run)
		r.s.Abort = true
		r.abortOrRetry()
	case rampv1.AnalysisPhaseInconclusive:
		s := &r.s
		if findPause(s, rampv1.PauseReasonInconclusiveAnalysis) != nil {
			return false
		}
		if prev != nil && prev.Name == run.Name && prev.Status == rampv1.AnalysisPhaseInconclusive {
			s.ControllerPause = len(s.PauseConditions) > 0 // we paused for it, the user resumed
			return true
		}
		s.PauseConditions = append(s.PauseConditions, rampv1.PauseCondition{
			Reason: rampv1.PauseReasonInconclusiveAnalysis, StartTime: metav1.Time{Time: r.in.Now}})
		s.ControllerPause = true
		r.out.event(rampv1.RolloutReasonPaused, rampv1.RolloutMessagePaused+" (%s): AnalysisRun %s", rampv1.PauseReasonInconclusiveAnalysis, run.Name)
	}
	return false
}

// abortDetail finds the message of the run that aborted this revision.
func (r *base) abortDetail() string {
	if r.a.detail != "" || !r.aborted() {
		return r.a.detail
	}
	for _, run := range r.in.Runs {
		if run.Hash == r.in.NewHash && (run.Phase == rampv1.AnalysisPhaseFailed || run.Phase == rampv1.AnalysisPhaseError) {
			return analysisDetail(&run)
		}
	}
	for _, x := range r.in.Experiments {
		if x.Hash == r.in.NewHash && x.Phase.Completed() && x.Phase != rampv1.AnalysisPhaseSuccessful {
			return experimentDetail(&x)
		}
	}
	return ""
}

// analysisDetail is why a Failed or Error run aborted the update.
func analysisDetail(run *Run) string {
	d := runRoleDetail[run.Type] + " analysis phase error/failed"
	if run.Message != "" {
		d += ": " + run.Message
	}
	return d
}

// runRoleDetail names a run's role in an abort message, as upstream words it.
var runRoleDetail = map[RunType]string{
	RunStep:          "Step-based",
	RunBackground:    "Background",
	RunPrePromotion:  "Blue/green pre-promotion",
	RunPostPromotion: "Blue/green post-promotion",
}

// terminateRuns asks to stop every run still running that this pass does
// not want: runs of earlier revisions, of an aborted update, a background
// run once the rollout completed.
func (r *base) terminateRuns() {
	if r.stable() || r.aborted() {
		clear(r.a.wanted)
	}
	for name, run := range r.in.Runs {
		if run.Phase.Completed() || run.Terminating || r.a.wanted[name] {
			continue
		}
		r.out.TerminateRuns = append(r.out.TerminateRuns, name)
	}
	slices.Sort(r.out.TerminateRuns)
	r.terminateExperiments()
}

func orPending(p rampv1.AnalysisPhase) rampv1.AnalysisPhase {
	if p == "" {
		return rampv1.AnalysisPhasePending
	}
	return p
}

// analysisEvents tells each change of a run's phase in the status, as
// upstream: AnalysisRun<Phase> (Warning for Failed and Error) when the run
// recorded for a role moved to another phase, or a role without a recorded
// run now has one. The step run is told by stepRunEvent, before
// forgetStepAnalysis drops it.
func (r *base) analysisEvents() {
	old, s := &r.ro.Status, &r.s
	r.runEvent(RunPostPromotion, old.BlueGreen.PostPromotionAnalysisRunStatus, s.BlueGreen.PostPromotionAnalysisRunStatus)
	r.runEvent(RunPrePromotion, old.BlueGreen.PrePromotionAnalysisRunStatus, s.BlueGreen.PrePromotionAnalysisRunStatus)
	r.runEvent(RunBackground, old.Canary.CurrentBackgroundAnalysisRunStatus, s.Canary.CurrentBackgroundAnalysisRunStatus)
}

func (r *base) stepRunEvent() {
	r.runEvent(RunStep, r.ro.Status.Canary.CurrentStepAnalysisRunStatus, r.s.Canary.CurrentStepAnalysisRunStatus)
}

func (r *base) runEvent(role RunType, old, cur *rampv1.RolloutAnalysisRunStatus) {
	if cur == nil || cur.Name == "" || cur.Status == "" {
		return
	}
	if old != nil && (old.Name != cur.Name || old.Status == cur.Status) {
		return
	}
	prev := rampv1.RolloutMessageNoPreviousStatus
	if old != nil {
		prev = string(old.Status)
	}
	emit := r.out.event
	if cur.Status == rampv1.AnalysisPhaseFailed || cur.Status == rampv1.AnalysisPhaseError {
		emit = r.out.warn
	}
	emit("AnalysisRun"+string(cur.Status), rampv1.RolloutMessageAnalysisRunStatus, role, cur.Name, cur.Status, prev)
}
