package plan

import (
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/outcome"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// ReplicaSet is what the planner knows about one ReplicaSet of a Rollout.
type ReplicaSet struct {
	Name      string
	Hash      string // rollouts-pod-template-hash
	Revision  int64
	Created   time.Time // .metadata.creationTimestamp
	Spec      int32     // .spec.replicas
	Replicas  int32     // .status.replicas
	Ready     int32
	Available int32
	// Unobserved: .status.observedGeneration is below .metadata.generation,
	// so the counts predate the latest spec (a scale-down the ReplicaSet
	// controller has not reported may have taken the pods they count).
	// Traffic never moves toward a ReplicaSet on such counts.
	Unobserved bool
	// ScaleDownAt is the deadline recorded in the ReplicaSet's
	// scale-down-deadline annotation, if any.
	ScaleDownAt *time.Time
	Deleting    bool // .metadata.deletionTimestamp is set
}

// Input is the world as the reconciler read it from the informer cache.
type Input struct {
	Rollout *rampv1.Rollout
	// NewHash is the pod-template hash of spec.template.
	NewHash string
	// New is the ReplicaSet of NewHash; nil when it does not exist yet.
	New *ReplicaSet
	// Stable is the ReplicaSet of status.stableRS when it differs from New.
	Stable *ReplicaSet
	// Others are every other ReplicaSet the Rollout owns.
	Others []ReplicaSet
	// Invalid, when non-empty, is why the spec cannot run (InvalidSpec).
	Invalid string
	// PodsToRestart counts pods created before spec.restartAt (not terminating).
	PodsToRestart int32
	// PodsAvailable counts the Rollout's ready pods that are not terminating.
	PodsAvailable int32
	// Runs are the AnalysisRuns the Rollout owns, by name.
	Runs map[string]Run
	// Experiments are the Experiments the Rollout owns, by name.
	Experiments map[string]Experiment
	// Traffic is what the traffic routers were last read back holding (nil:
	// unknown, e.g. after a controller restart; then nothing that carries
	// traffic is scaled down until the routes are read back).
	Traffic *Traffic
	// ServiceHash is the pod-template hash each referenced Service selects
	// now, by Service name ("" when it selects none).
	ServiceHash map[string]string
	// Workload is the Deployment spec.workloadRef names (nil without one).
	Workload *Workload
	// HPAs names the HorizontalPodAutoscalers whose scaleTargetRef is this
	// Rollout, sorted. With trafficRouting they make the canary take its pods
	// from the stable ReplicaSet (see HPAAccountingAnnotation).
	HPAs []string
	// Now is the current time; plans never read the clock themselves.
	Now time.Time
	// HeldSince, when set, says that Rollout.Status is a status an earlier
	// pass decided and the reconciler holds back (Output.Hold) since then,
	// not the stored one.
	HeldSince time.Time
	// Progressed, when set, is the latest progress the world shows that the
	// Rollout's status may not: the latest Ready transition among the new
	// ReplicaSet's ready pods, read live by the reconciler before it lets a
	// progress deadline fire (ProgressDeadlineFired). The deadline is judged
	// from it when later than the Progressing condition's lastUpdateTime,
	// so a pass that comes late (a backed-up queue, a lagging cache) never
	// declares a deadline that a pass on time would not have.
	Progressed time.Time
}

// Traffic is the route a Rollout's routers were last asked to hold and
// whether reading their objects back showed it in force.
type Traffic struct {
	Route   traffic.Route
	InForce bool
}

// Event is a Kubernetes Event the reconciler should record on the Rollout.
type Event = outcome.Event

// Output is what the reconciler should make true.
type Output struct {
	// CreateNew asks for the ReplicaSet of NewHash with NewReplicas replicas.
	CreateNew   bool
	NewReplicas int32
	// Scale maps ReplicaSet names to the .spec.replicas they should have
	// (only entries that differ from the observed value).
	Scale map[string]int32
	// Services maps Service names to the pod-template hash each should
	// select; Services not listed are left as they are.
	Services map[string]string
	// ScaleDownAt sets (non-nil) or clears (nil) a ReplicaSet's
	// scale-down-deadline annotation, by ReplicaSet name.
	ScaleDownAt map[string]*time.Time
	// DeletePods is how many pods older than spec.restartAt may be deleted now.
	DeletePods int32
	// StartRuns are AnalysisRuns to create now; the reconciler records the
	// name each got with RunStarted (the plan cannot know a retry's ".N").
	StartRuns []RunStart
	// TerminateRuns are AnalysisRuns to stop (spec.terminate: true).
	TerminateRuns []string
	// DeleteRuns are completed AnalysisRuns past the history limits
	// (RunCleanup), in the order to delete them.
	DeleteRuns []string
	// StartExperiment asks for the current experiment step's Experiment.
	StartExperiment *ExperimentStart
	// TerminateExperiments are Experiments to stop (spec.terminate: true).
	TerminateExperiments []string
	// DeleteReplicaSets are scaled-down ReplicaSets past
	// revisionHistoryLimit (HistoryCleanup), in the order to delete them.
	DeleteReplicaSets []string
	// ScaleWorkload, when set, is the .spec.replicas the Deployment
	// spec.workloadRef names should be scaled down to (WorkloadScale).
	ScaleWorkload *int32
	// Route is what the traffic routers should hold (nil without
	// trafficRouting or while the spec is invalid).
	Route  *traffic.Route
	Status rampv1.RolloutStatus
	Events []Event
	// RequeueAfter is when the plan must run again even if nothing changes
	// (a timed pause, the progress deadline, a restart time); 0 = never.
	RequeueAfter time.Duration
	// Hold says the status need not be written yet: it only records
	// progress while the ReplicaSets move (plan.hold). The reconciler keeps
	// it in memory, plans the next pass from it and writes it when a pass
	// no longer holds it; the Events are recorded now.
	Hold bool
	// PauseOvershoot, when a timed pause ends in this pass, is how long
	// after its due time it ended (an operator's figure: ramp_pause_overshoot_seconds).
	PauseOvershoot *time.Duration
}

func (o *Output) selectHash(service, hash string) {
	if service == "" || hash == "" {
		return
	}
	if o.Services == nil {
		o.Services = map[string]string{}
	}
	o.Services[service] = hash
}

func (o *Output) event(reason, format string, args ...any) {
	o.Events = append(o.Events, Event{Reason: reason, Message: sprintf(format, args...)})
}

func (o *Output) warn(reason, format string, args ...any) {
	o.Events = append(o.Events, Event{Warning: true, Reason: reason, Message: sprintf(format, args...)})
}

// requeue keeps the earliest wake-up (outcome.Sooner).
func (o *Output) requeue(d time.Duration) { o.RequeueAfter = outcome.Sooner(o.RequeueAfter, d) }

// RunStarted records in the planned status the name of the AnalysisRun
// the reconciler created (or found running) for a StartRuns entry of type
// t, in the status field of that type, as Pending.
func (o *Output) RunStarted(t RunType, name string) {
	ref := &rampv1.RolloutAnalysisRunStatus{Name: name, Status: rampv1.AnalysisPhasePending}
	s := &o.Status
	switch t {
	case RunStep:
		s.Canary.CurrentStepAnalysisRunStatus = ref
	case RunBackground:
		s.Canary.CurrentBackgroundAnalysisRunStatus = ref
	case RunPrePromotion:
		s.BlueGreen.PrePromotionAnalysisRunStatus = ref
	case RunPostPromotion:
		s.BlueGreen.PostPromotionAnalysisRunStatus = ref
	}
}

// ExperimentStarted records in the planned status the name of the
// Experiment the reconciler created (or found) for StartExperiment: an
// Experiment that ends before the next pass is then judged by this
// record, not taken for missing and started again.
func (o *Output) ExperimentStarted(name string) { o.Status.Canary.CurrentExperiment = name }
