package plan

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// conditions sets Available, Progressing (with the progress deadline),
// Paused, Completed and Healthy.
func (r *base) conditions(unavailable int32, healthy bool) {
	s, now := &r.s, r.in.Now
	if s.AvailableReplicas >= r.n-unavailable {
		setCondition(s, rampv1.RolloutAvailable, corev1.ConditionTrue, rampv1.RolloutReasonAvailable, rampv1.RolloutMessageAvailable, now, false)
	} else {
		setCondition(s, rampv1.RolloutAvailable, corev1.ConditionFalse, rampv1.RolloutReasonAvailable, rampv1.RolloutMessageNotAvailable, now, false)
	}
	paused := r.ro.Spec.Paused || len(s.PauseConditions) > 0
	r.pausedCondition(paused)
	rev := r.revision()
	// Completed keeps the reason RolloutCompleted (and that word as its
	// message) whether True or False, as upstream writes it; the
	// RolloutNotCompleted reason is an Event's only.
	if healthy {
		setCondition(s, rampv1.RolloutCompleted, corev1.ConditionTrue, rampv1.RolloutReasonCompleted, rampv1.RolloutReasonCompleted, now, false)
	} else {
		setCondition(s, rampv1.RolloutCompleted, corev1.ConditionFalse, rampv1.RolloutReasonCompleted, rampv1.RolloutReasonCompleted, now, false)
	}
	// A paused rollout is not Healthy, even with all its pods current.
	if healthy && !paused {
		setCondition(s, rampv1.RolloutHealthy, corev1.ConditionTrue, rampv1.RolloutReasonHealthy, rampv1.RolloutMessageHealthy, now, false)
	} else {
		setCondition(s, rampv1.RolloutHealthy, corev1.ConditionFalse, rampv1.RolloutReasonHealthy, rampv1.RolloutMessageNotHealthy, now, false)
	}
	// Progressing says RolloutPaused only for a pause of an update in
	// progress: paused on its stable template (as the pass began), a
	// rollout keeps reporting its completion, as upstream.
	old := &r.ro.Status
	completed := old.StableRS != "" && old.StableRS == old.CurrentPodHash

	name := ""
	if r.in.New != nil {
		name = r.in.New.Name
	}
	switch {
	case r.aborted():
		setCondition(s, rampv1.RolloutProgressing, corev1.ConditionFalse, rampv1.RolloutReasonAborted,
			r.abortMessage(rev), now, false)
	case paused && !completed:
		setCondition(s, rampv1.RolloutProgressing, corev1.ConditionUnknown, rampv1.RolloutReasonPaused, rampv1.RolloutMessagePaused, now, false)
	case healthy:
		setCondition(s, rampv1.RolloutProgressing, corev1.ConditionTrue, rampv1.RolloutReasonNewReplicaSetAvailable,
			fmt.Sprintf(rampv1.RolloutMessageReplicaSetCompleted, name), now, false)
	default:
		r.progressDeadline(name)
	}
}

// pausedCondition: Paused is added the first time the rollout pauses and then
// follows it, True or False, always with the reason RolloutPaused. While an
// abort stands (or the Progressing condition still says Aborted) it is left
// as it was, as upstream does: the plugin shows "Paused: True" on an aborted
// rollout that was paused when it was aborted.
func (r *base) pausedCondition(paused bool) {
	s := &r.s
	if prog := findCondition(&r.ro.Status, rampv1.RolloutProgressing); r.aborted() || (prog != nil && prog.Reason == rampv1.RolloutReasonAborted) {
		return
	}
	cur := findCondition(s, rampv1.RolloutPaused)
	switch {
	case paused:
		setCondition(s, rampv1.RolloutPaused, corev1.ConditionTrue, rampv1.RolloutReasonPaused, rampv1.RolloutMessagePaused, r.in.Now, false)
	case cur != nil:
		setCondition(s, rampv1.RolloutPaused, corev1.ConditionFalse, rampv1.RolloutReasonPaused, rampv1.RolloutMessagePaused, r.in.Now, false)
	}
}

// progressDeadline refreshes Progressing whenever the rollout moved and
// declares ProgressDeadlineExceeded after progressDeadlineSeconds without
// movement. Paused time does not count: pausing replaces the condition, and
// resuming starts a fresh window. Movement is the status changing in this
// pass or, when the reconciler read it (Input.Progressed), a pod of the new
// ReplicaSet becoming ready since the condition was last updated.
func (r *base) progressDeadline(rsName string) {
	s, old, now := &r.s, &r.ro.Status, r.in.Now
	prev := findCondition(old, rampv1.RolloutProgressing)
	exceeded := prev != nil && prev.Reason == rampv1.RolloutReasonProgressDeadlineExceeded
	moved := prev == nil || (prev.Reason != rampv1.RolloutReasonReplicaSetUpdated && !exceeded) ||
		old.CurrentPodHash != s.CurrentPodHash || !int32PtrEqual(old.CurrentStepIndex, s.CurrentStepIndex) ||
		old.UpdatedReplicas != s.UpdatedReplicas || old.AvailableReplicas != s.AvailableReplicas ||
		old.ReadyReplicas != s.ReadyReplicas || old.Replicas != s.Replicas || len(r.out.Scale) > 0 || r.out.CreateNew
	if exceeded && !moved {
		return // stays exceeded until something moves
	}
	if moved {
		setCondition(s, rampv1.RolloutProgressing, corev1.ConditionTrue, rampv1.RolloutReasonReplicaSetUpdated,
			fmt.Sprintf(rampv1.RolloutMessageProgressing, r.ro.Name), now, true)
	}
	p := r.in.Progressed
	if p.After(now) {
		p = now
	}
	if !moved && !exceeded && p.Truncate(time.Second).After(findCondition(s, rampv1.RolloutProgressing).LastUpdateTime.Time) {
		// progress the status does not show yet: the window restarts when
		// it happened (a kubelet clock ahead of ours counts as now), as a
		// pass on time would have restarted it
		setCondition(s, rampv1.RolloutProgressing, corev1.ConditionTrue, rampv1.RolloutReasonReplicaSetUpdated,
			fmt.Sprintf(rampv1.RolloutMessageProgressing, r.ro.Name), p, true)
	}
	deadline := rampv1.SaturatingSeconds(int64(r.ro.ProgressDeadlineSeconds()))
	last := findCondition(s, rampv1.RolloutProgressing).LastUpdateTime.Time
	if left := last.Add(deadline).Sub(now); left > 0 {
		r.out.requeue(left)
		return
	}
	setCondition(s, rampv1.RolloutProgressing, corev1.ConditionFalse, rampv1.RolloutReasonProgressDeadlineExceeded,
		fmt.Sprintf(rampv1.RolloutMessageReplicaSetTimedOut, rsName), now, false)
	// No Event of its own, as upstream: the condition says it, and an
	// abort (progressDeadlineAbort) says RolloutAborted.
	if r.ro.Spec.ProgressDeadlineAbort {
		s.Abort = true // acted on in the next pass
		r.out.requeue(time.Millisecond)
	}
}

// phase derives status.phase and status.message, as Argo CD reads them.
func (r *base) phase(healthy bool) {
	s := &r.s
	prog := findCondition(s, rampv1.RolloutProgressing)
	switch {
	case r.aborted():
		s.Phase, s.Message = rampv1.RolloutPhaseDegraded, fmt.Sprintf("%s: %s", rampv1.RolloutReasonAborted, r.abortMessage(r.revision()))
	case prog != nil && prog.Reason == rampv1.RolloutReasonProgressDeadlineExceeded:
		s.Phase, s.Message = rampv1.RolloutPhaseDegraded, fmt.Sprintf("%s: %s", prog.Reason, prog.Message)
	case r.ro.Spec.Paused:
		s.Phase, s.Message = rampv1.RolloutPhasePaused, "manually paused"
	case len(s.PauseConditions) > 0:
		s.Phase, s.Message = rampv1.RolloutPhasePaused, string(s.PauseConditions[0].Reason)
	case !healthy:
		s.Phase, s.Message = rampv1.RolloutPhaseProgressing, r.progressMessage()
	default:
		s.Phase, s.Message = rampv1.RolloutPhaseHealthy, ""
	}
}

func (r *base) progressMessage() string {
	s := &r.s
	switch {
	case s.UpdatedReplicas < r.n && !r.stable():
		return msgMoreToUpdate
	case s.AvailableReplicas < s.Replicas || s.AvailableReplicas < r.n:
		return msgBecomingAvailable
	case s.Replicas > r.n:
		return msgOldPending
	}
	return msgFinishSteps
}

// The Progressing phase's messages (upstream's words, in api/v1alpha1).
const (
	msgMoreToUpdate      = rampv1.RolloutPhaseMessageMoreToUpdate
	msgBecomingAvailable = rampv1.RolloutPhaseMessageBecomingAvailable
	msgOldPending        = rampv1.RolloutPhaseMessageOldPending
	msgFinishSteps       = rampv1.RolloutPhaseMessageFinishSteps
)

// selectorString is spec.selector as a string, narrowed to a pod-template
// hash when hash is set (blue-green reports the active selector).
func selectorString(ro *rampv1.Rollout, hash string) string {
	if ro.Spec.Selector == nil {
		return ""
	}
	ls := ro.Spec.Selector.DeepCopy()
	if hash != "" {
		if ls.MatchLabels == nil {
			ls.MatchLabels = map[string]string{}
		}
		ls.MatchLabels[rampv1.DefaultRolloutUniqueLabelKey] = hash
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return ""
	}
	return sel.String()
}

func int32PtrEqual(a, b *int32) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// abortMessage is "Rollout aborted update to revision N", followed by the
// verdict of the AnalysisRun that aborted it, if one did.
func (r *base) abortMessage(rev int64) string {
	msg := fmt.Sprintf(rampv1.RolloutMessageAborted, rev)
	if d := r.abortDetail(); d != "" {
		msg += ": " + d
	}
	return msg
}

// ProgressDeadlineFired reports whether a pass declares the progress
// deadline exceeded now (it was not before): the reconciler then reads the
// new ReplicaSet's pod readiness live and plans again with Input.Progressed
// before it writes.
func ProgressDeadlineFired(before, after *rampv1.RolloutStatus) bool {
	exceeded := func(s *rampv1.RolloutStatus) bool {
		c := findCondition(s, rampv1.RolloutProgressing)
		return c != nil && c.Reason == rampv1.RolloutReasonProgressDeadlineExceeded
	}
	return exceeded(after) && !exceeded(before)
}
