package plan

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// base is what every strategy's planning pass shares: the input, the status
// being built, the output, and the conditions/phase logic.
type base struct {
	in     Input
	ro     *rampv1.Rollout
	s      rampv1.RolloutStatus // the status being built
	out    Output
	n      int32
	scaled []string // ReplicaSets this pass scales, for one Event
	a      analyses
}

// stable reports whether spec.template is the stable version, as the
// status being built says (it is never kept apart, so no step can read a
// stale copy).
func (r *base) stable() bool { return r.s.StableRS == r.in.NewHash }

// aborted reports whether this pass acts on an abort: abortOrRetry records
// the time it did in status.abortedAt. An abort the progress deadline asks
// for (status.abort alone) is acted on in the next pass.
func (r *base) aborted() bool { return r.s.AbortedAt != nil }

// revisionStart is what a pass that starts a revision tells after the
// scaling (RolloutUpdated is recorded at once): RolloutNotCompleted, and
// for the very first revision RolloutCompleted. The zero value: no new
// revision.
type revisionStart struct{ notCompleted, first bool }

func newBase(in Input) base {
	b := base{in: in, ro: in.Rollout, n: in.Rollout.Replicas(), a: analyses{wanted: map[string]bool{}}}
	b.s = *b.ro.Status.DeepCopy()
	b.s.ObservedGeneration = strconv.FormatInt(b.ro.Generation, 10)
	return b
}

// counts fills the replica counts from the observed ReplicaSets.
func (r *base) counts() {
	s := &r.s
	s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas = 0, 0, 0, 0
	for _, rs := range r.all() {
		s.Replicas += rs.Replicas
		s.ReadyReplicas += rs.Ready
		s.AvailableReplicas += rs.Available
	}
	if r.in.New != nil {
		s.UpdatedReplicas = r.in.New.Replicas
	}
}

func (r *base) all() []ReplicaSet {
	return append(append(derefRS(r.in.New), derefRS(r.in.Stable)...), r.in.Others...)
}

// byHash is the observed ReplicaSet of a pod-template hash, or nil.
func (r *base) byHash(h string) *ReplicaSet {
	for _, rs := range r.all() {
		if rs.Hash == h {
			return &rs
		}
	}
	return nil
}

func (r *base) invalid(msg string) Output {
	setCondition(&r.s, rampv1.RolloutInvalidSpec, "True", rampv1.RolloutReasonInvalidSpec, msg, r.in.Now, false)
	if prev := findCondition(&r.ro.Status, rampv1.RolloutInvalidSpec); prev == nil || prev.Message != msg {
		r.out.warn(rampv1.RolloutReasonInvalidSpec, "%s", msg)
	}
	r.counts()
	r.s.Phase, r.s.Message = rampv1.RolloutPhaseDegraded, "InvalidSpec: "+msg
	r.out.Status = r.s
	r.observeWorkload()
	return r.out
}

func (r *base) revision() int64 {
	if r.in.New != nil {
		return r.in.New.Revision
	}
	var max int64
	for _, rs := range append(r.in.Others, derefRS(r.in.Stable)...) {
		if rs.Revision > max {
			max = rs.Revision
		}
	}
	return max + 1
}

// occupied counts the pods the ReplicaSets have or are about to have.
func (r *base) occupied() int32 {
	var n int32
	for _, rs := range append(append(derefRS(r.in.New), derefRS(r.in.Stable)...), r.in.Others...) {
		n += max(rs.Spec, rs.Replicas)
	}
	return n
}

func (r *base) setScale(name string, from, to int32) {
	if from == to {
		return
	}
	if r.out.Scale == nil {
		r.out.Scale = map[string]int32{}
	}
	r.out.Scale[name] = to
	r.scaled = append(r.scaled, sprintf("ReplicaSet %s from %d to %d", name, from, to))
}

// scaleEvent records one ScalingReplicaSet Event for every ReplicaSet this
// pass creates or scales (one API write instead of one per ReplicaSet), in
// upstream's order with what a new revision tells: NewReplicaSetCreated,
// RolloutNotCompleted, the scaling, RolloutCompleted of the first revision.
func (r *base) scaleEvent(rev revisionStart) {
	if r.out.CreateNew {
		r.out.event(rampv1.RolloutReasonNewReplicaSetCreated, rampv1.RolloutMessageNewReplicaSetDetailed, r.ro.Name+"-"+r.in.NewHash, r.revision())
		r.scaled = append([]string{sprintf("new ReplicaSet for %s to %d", r.in.NewHash, r.out.NewReplicas)}, r.scaled...)
	}
	if rev.notCompleted {
		r.out.event(rampv1.RolloutReasonNotCompleted, rampv1.RolloutMessageNotCompleted, r.revision(), r.in.NewHash)
	}
	if len(r.scaled) > 0 {
		r.out.event(rampv1.RolloutReasonScalingReplicaSet, "Scaled %s", strings.Join(r.scaled, ", "))
	}
	if rev.first {
		r.out.event(rampv1.RolloutReasonCompleted, rampv1.RolloutMessageCompleted, r.revision(), r.in.NewHash, rampv1.RolloutMessageInitialDeploy)
	}
}

// newRevision records the start of a revision (a new pod template, or a
// return to an older one): RolloutUpdated now, the rest in scaleEvent.
// Completed turning False is told once, as upstream does.
func (r *base) newRevision(first bool) revisionStart {
	c := findCondition(&r.ro.Status, rampv1.RolloutCompleted)
	r.out.event(rampv1.RolloutReasonUpdated, rampv1.RolloutMessageUpdated, r.revision())
	return revisionStart{notCompleted: c == nil || c.Status != corev1.ConditionFalse, first: first}
}

// abortOrRetry applies status.abort (as the plugin and Argo CD set it) and
// its clearing (retry). It reports false when the Rollout is on its stable
// version, where there is nothing to abort (the flags are reset).
func (r *base) abortOrRetry() bool {
	s := &r.s
	if r.stable() {
		s.Abort, s.AbortedAt, s.PromoteFull = false, nil, false
		return false
	}
	switch {
	case s.Abort:
		if s.AbortedAt == nil {
			s.AbortedAt = &metav1.Time{Time: r.in.Now}
			r.out.warn(rampv1.RolloutReasonAborted, rampv1.RolloutMessageAborted, r.revision())
		}
		s.PauseConditions, s.ControllerPause, s.PromoteFull = nil, false, false
	case s.AbortedAt != nil: // retry: abort was cleared; analysis and experiments start afresh
		s.AbortedAt = nil
		s.Canary.CurrentStepAnalysisRunStatus, s.Canary.CurrentBackgroundAnalysisRunStatus = nil, nil
		s.Canary.CurrentExperiment = ""
		s.BlueGreen.PrePromotionAnalysisRunStatus, s.BlueGreen.PostPromotionAnalysisRunStatus = nil, nil
		// no Event: upstream says RolloutRetry in the Progressing condition only
	}
	return true
}

func derefRS(rs *ReplicaSet) []ReplicaSet {
	if rs == nil {
		return nil
	}
	return []ReplicaSet{*rs}
}

func ptrTo[T any](v T) *T { return &v }
