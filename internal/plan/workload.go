package plan

import (
	"strconv"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Workload is the Deployment a Rollout's workloadRef names, as observed.
type Workload struct {
	Generation int64
	Replicas   *int32 // .spec.replicas (nil: unset)
}

// WorkloadScale is the .spec.replicas the Deployment a workloadRef names
// should go down to under the planned status st, as
// workloadRef.scaleDown asks: onsuccess to 0 once the Rollout is Healthy
// on its current template, progressively by the Rollout's available pods,
// never not at all. ok is false when the Deployment is left as it is (it
// is never scaled up).
func WorkloadScale(ro *rampv1.Rollout, st *rampv1.RolloutStatus, current *int32) (replicas int32, ok bool) {
	ref := ro.Spec.WorkloadRef
	if ref == nil {
		return 0, false
	}
	want := int32(-1)
	switch ref.ScaleDown {
	case rampv1.ScaleDownOnSuccess:
		if st.Phase == rampv1.RolloutPhaseHealthy && st.StableRS == st.CurrentPodHash {
			want = 0
		}
	case rampv1.ScaleDownProgressively:
		want = max(ro.Replicas()-st.AvailableReplicas, 0)
	}
	if want < 0 || (current != nil && *current <= want) {
		return 0, false
	}
	return want, true
}

// observeWorkload records the generation of the workloadRef's Deployment
// in the status (spec or not, as upstream).
func (r *base) observeWorkload() {
	if w := r.in.Workload; w != nil {
		r.out.Status.WorkloadObservedGeneration = strconv.FormatInt(w.Generation, 10)
	}
}

// finish completes a plan whose status is final: the Deployment a
// workloadRef names, and the ReplicaSets and AnalysisRuns past their
// history limits. An invalid spec (invalid) changes none of them.
func (r *base) finish() Output {
	r.out.Status = r.s
	r.observeWorkload()
	if w := r.in.Workload; w != nil {
		if n, ok := WorkloadScale(r.ro, &r.out.Status, w.Replicas); ok {
			r.out.ScaleWorkload = &n
		}
	}
	r.out.DeleteReplicaSets = HistoryCleanup(r.ro.RevisionHistoryLimit(), r.in.Others)
	r.out.DeleteRuns = RunCleanup(r.ro, r.in.Runs, &r.out.Status)
	return r.out
}
