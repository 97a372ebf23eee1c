package plan

import (
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// quietFor is how long replica counts may go unwritten mid-transition.
const quietFor = 2 * time.Second

// quiet keeps the previous status when this pass only moved replica counts
// (and the Progressing phase's message, which says which count lags)
// while ReplicaSets are mid-transition (pods being created, becoming ready or
// going away): the next step change, or the ReplicaSets settling, writes the
// counts. Each skipped pass saves one status write; the status never lags
// behind anything that decides (step, pause, phase, conditions), and a pass
// quietFor (2 s) after the last write flushes the counts, so the progress
// deadline is measured from real progress (to within quietFor).
func (r *base) quiet() {
	if r.settled() {
		return
	}
	old := &r.ro.Status
	cand := r.s.DeepCopy()
	cand.Replicas, cand.UpdatedReplicas, cand.ReadyReplicas = old.Replicas, old.UpdatedReplicas, old.ReadyReplicas
	cand.AvailableReplicas, cand.HPAReplicas = old.AvailableReplicas, old.HPAReplicas
	if cand.Phase == rampv1.RolloutPhaseProgressing && old.Phase == cand.Phase && countMessage(old.Message) && countMessage(cand.Message) {
		cand.Message = old.Message // progressMessage reads only the counts
	}
	prev := findCondition(old, rampv1.RolloutProgressing)
	cur := findCondition(cand, rampv1.RolloutProgressing)
	if prev == nil || cur == nil || prev.Reason != cur.Reason || prev.Status != cur.Status || prev.Message != cur.Message {
		return
	}
	flush := prev.LastUpdateTime.Add(quietFor)
	if !r.in.Now.Before(flush) {
		return
	}
	*cur = *prev
	if apiequality.Semantic.DeepEqual(cand, old) {
		r.s = *old.DeepCopy()
		r.out.requeue(flush.Sub(r.in.Now))
	}
}

// countMessage reports whether m is one of progressMessage's, which say
// only which replica count is not yet there.
func countMessage(m string) bool {
	switch m {
	case msgMoreToUpdate, msgBecomingAvailable, msgOldPending, msgFinishSteps:
		return true
	}
	return false
}

// settled reports whether every ReplicaSet runs exactly its spec, all available.
func (r *base) settled() bool {
	for _, rs := range append(append(derefRS(r.in.New), derefRS(r.in.Stable)...), r.in.Others...) {
		if rs.Replicas != rs.Spec || rs.Available != rs.Spec || rs.Ready != rs.Spec {
			return false
		}
	}
	return true
}
