package plan

import (
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// delayedZero keeps the ReplicaSet's size until a recorded deadline (set now
// if missing), then returns 0. A delay of 0 leaves it running (upstream
// abortScaleDownDelaySeconds: 0).
func (r *base) delayedZero(rs *ReplicaSet, delaySeconds int32) int32 {
	if rs == nil {
		return 0
	}
	if rs.ScaleDownAt == nil {
		if delaySeconds <= 0 {
			return rs.Spec // 0: left running, as upstream
		}
		at := r.in.Now.Add(rampv1.SaturatingSeconds(int64(delaySeconds)))
		r.setDeadline(rs.Name, at)
		r.out.requeue(at.Sub(r.in.Now))
		return rs.Spec
	}
	if r.in.Now.Before(*rs.ScaleDownAt) {
		r.out.requeue(rs.ScaleDownAt.Sub(r.in.Now))
		return rs.Spec
	}
	return 0
}

func (r *base) setDeadline(name string, at time.Time) {
	if r.out.ScaleDownAt == nil {
		r.out.ScaleDownAt = map[string]*time.Time{}
	}
	at = at.Truncate(time.Second).Add(time.Second) // annotations have second resolution: never early
	r.out.ScaleDownAt[name] = &at
	r.out.requeue(at.Sub(r.in.Now))
}

func (r *base) clearDeadline(name string) {
	if r.out.ScaleDownAt == nil {
		r.out.ScaleDownAt = map[string]*time.Time{}
	}
	r.out.ScaleDownAt[name] = nil
}
