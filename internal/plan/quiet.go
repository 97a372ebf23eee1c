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

// hold lets a status that only records progress wait, for at most quietFor,
// while the ReplicaSets this pass creates or scales move: the pass that
// ends the last step (until the old ReplicaSet is gone, when Healthy
// follows), and passes that move no step. The write that ends the hold
// carries both, one status patch instead of two. A status that moves to
// another step than the last is never held, so that every step is seen in
// status (watchers check that none is skipped). Nothing that decides by time or that another
// actor must see at once is held: a pause that starts (its start decides
// its end), a phase other than Progressing, an invalid spec, runs,
// Experiments, Services, routes, restarts or a workload to scale, nor the
// first revision's first status. A
// restarted controller has lost what was held and decides it again from
// the stored status.
func (r *base) hold(o *Output, end int32) {
	since := r.in.HeldSince
	if since.IsZero() {
		if apiequality.Semantic.DeepEqual(&o.Status, &r.ro.Status) || (!o.CreateNew && len(o.Scale) == 0) {
			return // nothing to write, or a pass that moves no ReplicaSet: nothing to wait for
		}
		since = r.in.Now
	}
	flush := since.Add(quietFor)
	old := &r.ro.Status
	switch {
	case !r.in.Now.Before(flush),
		old.StableRS == "", // the first revision: its first status is written at once
		r.settled() && !o.CreateNew && len(o.Scale) == 0, // nothing moves
		o.Status.Phase != rampv1.RolloutPhaseProgressing,
		len(o.Status.PauseConditions) > len(old.PauseConditions),
		!sameStep(o.Status.CurrentStepIndex, old.CurrentStepIndex) && !sameStep(o.Status.CurrentStepIndex, &end), // every step is seen in status
		!sameButPauseEnd(o.Status.Canary, old.Canary),                                                            // runs and Experiments recorded, a pause's precise start
		findCondition(&o.Status, rampv1.RolloutInvalidSpec) != nil,
		len(o.StartRuns)+len(o.TerminateRuns)+len(o.DeleteRuns) > 0,
		o.StartExperiment != nil || len(o.TerminateExperiments) > 0,
		len(o.Services) > 0 || o.Route != nil || len(o.ScaleDownAt) > 0,
		o.DeletePods > 0 || o.ScaleWorkload != nil || len(o.DeleteReplicaSets) > 0:
		return
	}
	o.Hold = true
	o.requeue(flush.Sub(r.in.Now))
}

// sameButPauseEnd reports whether the canary status c differs from old at
// most by a pause's precise start being cleared (a pause that ends).
func sameButPauseEnd(c, old rampv1.CanaryStatus) bool {
	if c.PauseStartTime == nil {
		old.PauseStartTime = nil
	}
	return apiequality.Semantic.DeepEqual(c, old)
}

func sameStep(a, b *int32) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
