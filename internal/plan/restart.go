package plan

import (
	"k8s.io/apimachinery/pkg/util/intstr"
)

// restart replaces the pods created before spec.restartAt (the plugin's
// `restart`), for both strategies, then records status.restartedAt. As
// upstream: at most max(maxUnavailable, 1) pods are down at a time, counted
// against max(spec.replicas, the ReplicaSets' total) so that surge or
// preview pods do not widen the window; a paused or aborted rollout restarts
// too (the pods are the same version). No Event: upstream says it only with
// status.restartedAt.
func (r *base) restart(unavailable int32) {
	ra := r.ro.Spec.RestartAt
	if ra == nil || (r.s.RestartedAt != nil && !r.s.RestartedAt.Before(ra)) {
		return
	}
	if r.in.Now.Before(ra.Time) {
		r.out.requeue(ra.Sub(r.in.Now))
		return
	}
	if r.in.PodsToRestart == 0 {
		r.s.RestartedAt = ra.DeepCopy()
		return
	}
	var total int64
	for _, rs := range r.all() {
		total += int64(rs.Spec)
	}
	minAvailable := max(int64(r.n), total) - int64(max(unavailable, 1))
	if can := int64(r.in.PodsAvailable) - minAvailable; can > 0 {
		r.out.DeletePods = int32(min(can, int64(r.in.PodsToRestart)))
	}
}

// restartUnavailable is blue-green's maxUnavailable for restarts: the
// strategy's maxUnavailable, or 25% (rounded down) when unset, at most
// spec.replicas; an unparsable value counts as 0 (one pod at a time).
func (r *blueGreenRun) restartUnavailable() int32 {
	v := r.b.MaxUnavailable
	if v == nil {
		v = &defaultMaxUnavailable
	}
	got, err := intstr.GetScaledValueFromIntOrPercent(v, int(r.n), false)
	if err != nil || got < 0 {
		return 0
	}
	return int32(min(int64(got), int64(r.n)))
}
