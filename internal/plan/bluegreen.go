package plan

import (
	"sort"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// blueGreenRun carries one planning pass of a blue-green Rollout.
type blueGreenRun struct {
	base
	b *rampv1.BlueGreenStrategy
}

// BlueGreen plans one reconcile of a Rollout with the blue-green strategy:
// the new ReplicaSet comes up behind the preview Service (at
// previewReplicaCount if set), the Rollout pauses if promotion is manual or
// timed, the new ReplicaSet is brought to full size and must be fully
// available before the active Service switches to it, and the previous one
// is scaled down scaleDownDelaySeconds later (the deadline is kept on the
// ReplicaSet so a restart keeps it).
func BlueGreen(in Input) Output {
	r := &blueGreenRun{base: newBase(in), b: in.Rollout.Spec.Strategy.BlueGreen}
	r.s.CurrentStepIndex, r.s.CurrentStepHash = nil, ""
	if in.Invalid != "" {
		r.s.Selector = selectorString(r.ro, r.s.BlueGreen.ActiveSelector)
		return r.invalid(in.Invalid)
	}
	removeCondition(&r.s, rampv1.RolloutInvalidSpec)
	rev := r.trackRevision()
	r.userActions()
	if !r.aborted() && !r.stable() && !r.ro.Spec.Paused && !r.promoted() {
		r.promotionGate()
	}
	pre := r.prePromotion()
	r.scale()
	r.switchActive(pre)
	r.postPromotion()
	r.terminateRuns()
	r.services()
	r.scaleEvent(rev)
	r.restart(r.restartUnavailable())
	r.counts()
	r.conditions(0, r.healthy())
	r.hpaAccounting(true, rampv1.HPAReasonActiveOnly, "it counts and scales only the active ReplicaSet (the /scale selector carries the active hash); the preview is not counted")
	r.phase(r.healthy())
	r.analysisEvents()
	forgetPauseStarts(&r.s)
	r.quiet()
	return r.finish()
}

// trackRevision notices a new pod template: the first one is stable (and
// active) at once; a later one restarts the promotion flow. It returns what
// scaleEvent tells of a new revision.
func (r *blueGreenRun) trackRevision() (rev revisionStart) {
	s := &r.s
	if s.CurrentPodHash != r.in.NewHash {
		first := s.StableRS == ""
		s.CurrentPodHash = r.in.NewHash
		s.PauseConditions, s.ControllerPause, s.Abort, s.AbortedAt, s.PromoteFull = nil, false, false, nil, false
		s.BlueGreen.ScaleUpPreviewCheckPoint = false
		s.BlueGreen.PrePromotionAnalysisRunStatus, s.BlueGreen.PostPromotionAnalysisRunStatus = nil, nil
		if first {
			s.StableRS = r.in.NewHash
		}
		rev = r.newRevision(first)
		// a first blue-green revision is active at once: it never counts
		// as not completed (upstream records no RolloutNotCompleted)
		rev.notCompleted = rev.notCompleted && !first
	}
	if s.BlueGreen.ActiveSelector == "" {
		s.BlueGreen.ActiveSelector = s.StableRS
	}
	return rev
}

// userActions applies abort, retry and promote --full.
func (r *blueGreenRun) userActions() {
	s := &r.s
	if !r.abortOrRetry() {
		return
	}
	if r.aborted() {
		s.BlueGreen.ScaleUpPreviewCheckPoint = false
		if r.promoted() { // aborted during post-promotion analysis: live traffic back to stable
			s.BlueGreen.ActiveSelector = s.StableRS
		}
	}
	if s.PromoteFull && !r.aborted() {
		s.PauseConditions, s.ControllerPause = nil, false
		s.BlueGreen.ScaleUpPreviewCheckPoint = true
	}
}

// previewSize is how many pods the new ReplicaSet runs before promotion.
func (r *blueGreenRun) previewSize() int32 {
	if p := r.b.PreviewReplicaCount; p != nil && !r.stable() && !r.promoted() && !r.s.BlueGreen.ScaleUpPreviewCheckPoint {
		return min(max(*p, 0), r.n)
	}
	return r.n
}

// promotionGate decides whether promotion may start: once the preview is
// fully available, pause (manual promotion, or autoPromotionSeconds) or go
// on at once. status.blueGreen.scaleUpPreviewCheckPoint records the decision.
func (r *blueGreenRun) promotionGate() {
	s, nw := &r.s, r.in.New
	if s.BlueGreen.ScaleUpPreviewCheckPoint || nw == nil {
		return
	}
	// Back to a ReplicaSet still waiting out its scale-down delay (an undo
	// within the delay): promotion goes on without a pause, as upstream. A
	// retry is no way back: the aborted ReplicaSet's deadline does not skip
	// the pause the update asked for.
	retrying := r.ro.Status.AbortedAt != nil && !r.ro.Status.Abort
	if nw.ScaleDownAt != nil && !r.aborted() && !retrying {
		s.PauseConditions = withoutPause(s.PauseConditions, rampv1.PauseReasonBlueGreenPause)
		s.ControllerPause = len(s.PauseConditions) > 0
		s.BlueGreen.ScaleUpPreviewCheckPoint = true
		return
	}
	if nw.Spec != r.previewSize() || nw.Available < r.previewSize() {
		return
	}
	// autoPromotionSeconds only applies when autoPromotionEnabled is true (as
	// upstream: with autoPromotionEnabled false the pause lasts until promoted).
	timed := r.b.AutoPromotionEnabledOrDefault() && r.b.AutoPromotionSeconds > 0
	manual := !r.b.AutoPromotionEnabledOrDefault() || timed
	cond := findPause(s, rampv1.PauseReasonBlueGreenPause)
	switch {
	case !manual:
	case cond == nil && s.ControllerPause: // paused by us, condition cleared by the user: promote
		s.ControllerPause = false // no RolloutResumed: the user's write resumed it, as upstream
	case cond == nil:
		precise := startPause(s, rampv1.PauseReasonBlueGreenPause, r.in.Now)
		s.ControllerPause = true
		r.out.event(rampv1.RolloutReasonPaused, rampv1.RolloutMessagePaused+" (%s)", rampv1.PauseReasonBlueGreenPause)
		if timed {
			s.BlueGreen.PauseStartTime = precise
			r.out.requeue(precise.Add(rampv1.SaturatingSeconds(int64(r.b.AutoPromotionSeconds))).Sub(r.in.Now))
		}
		return
	case timed:
		at := pauseStart(*cond, s.BlueGreen.PauseStartTime, r.in.Now).Add(rampv1.SaturatingSeconds(int64(r.b.AutoPromotionSeconds)))
		if r.in.Now.Before(at) {
			r.out.requeue(at.Sub(r.in.Now))
			return
		}
		s.PauseConditions = withoutPause(s.PauseConditions, rampv1.PauseReasonBlueGreenPause)
		s.ControllerPause = len(s.PauseConditions) > 0
		r.out.event(rampv1.RolloutReasonResumed, "%s", rampv1.RolloutMessageResumed)
	default:
		return // waiting for promote
	}
	s.BlueGreen.ScaleUpPreviewCheckPoint = true
}

// scale sizes the ReplicaSets: the active one full, the new one at its
// preview or full size (to 0 after abortScaleDownDelaySeconds on abort),
// older ones to 0 once their scale-down deadline passed.
func (r *blueGreenRun) scale() {
	if r.ro.Spec.Paused {
		return
	}
	nw, now := r.in.New, r.in.Now
	newSize := r.previewSize()
	if r.aborted() {
		newSize = r.delayedZero(nw, r.ro.AbortScaleDownDelaySeconds())
	}
	if nw == nil {
		if !r.aborted() {
			r.out.CreateNew, r.out.NewReplicas = true, newSize
		}
	} else {
		r.setScale(nw.Name, nw.Spec, newSize)
		if !r.aborted() && nw.ScaleDownAt != nil {
			r.clearDeadline(nw.Name) // retried, or back to this revision
		}
	}
	active := r.s.BlueGreen.ActiveSelector
	// Newest first: scaleDownDelayRevisionLimit keeps the most recent old
	// ReplicaSets up; every one with a deadline counts, passed or not (as
	// upstream).
	olds := append(derefRS(r.in.Stable), r.in.Others...)
	sort.SliceStable(olds, func(i, j int) bool { return olds[i].Revision > olds[j].Revision })
	waiting := 0
	for _, rs := range olds {
		switch {
		case rs.Hash == active || rs.Hash == r.s.StableRS: // stable differs from active only during post-promotion analysis
			r.setScale(rs.Name, rs.Spec, r.n)
			if rs.ScaleDownAt != nil {
				r.clearDeadline(rs.Name)
			}
		case rs.Spec == 0:
		case rs.ScaleDownAt == nil && waiting < r.revisionLimit():
			waiting++
			r.setDeadline(rs.Name, now.Add(rampv1.SaturatingSeconds(int64(r.ro.ScaleDownDelaySeconds()))))
		case rs.ScaleDownAt != nil && waiting < r.revisionLimit() && now.Before(*rs.ScaleDownAt):
			waiting++
			r.out.requeue(rs.ScaleDownAt.Sub(now))
		case rs.ScaleDownAt != nil:
			waiting++
			r.setScale(rs.Name, rs.Spec, 0)
			r.clearDeadline(rs.Name)
		default:
			r.setScale(rs.Name, rs.Spec, 0)
			if rs.ScaleDownAt != nil {
				r.clearDeadline(rs.Name)
			}
		}
	}
}

func (r *blueGreenRun) revisionLimit() int {
	if l := r.b.ScaleDownDelayRevisionLimit; l != nil {
		return int(*l)
	}
	return 1 << 30
}
