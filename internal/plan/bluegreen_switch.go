package plan

import (
	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// switchActive points the active Service at the new ReplicaSet once
// promotion was decided and it is fully available at full size: live traffic
// never moves to an under-sized ReplicaSet, nor before the pre-promotion
// analysis succeeded. The new ReplicaSet then is stable, or, with
// post-promotion analysis, once that analysis succeeded.
func (r *blueGreenRun) switchActive(preDone bool) {
	s, nw := &r.s, r.in.New
	if r.stable() || r.aborted() || r.ro.Spec.Paused || !s.BlueGreen.ScaleUpPreviewCheckPoint || !preDone {
		return
	}
	if nw == nil || nw.Unobserved || nw.Spec != r.n || nw.Available < r.n {
		return
	}
	// the reconciler tells the switch (SwitchService) once the Service is patched
	s.BlueGreen.ActiveSelector, s.PromoteFull = r.in.NewHash, false
	s.BlueGreen.ScaleUpPreviewCheckPoint = false
	if !hasAnalysis(r.b.PostPromotionAnalysis) {
		r.completePromotion()
	}
}

// completePromotion makes the new, active ReplicaSet stable.
func (r *blueGreenRun) completePromotion() {
	r.s.StableRS = r.in.NewHash
	r.out.event(rampv1.RolloutReasonCompleted, rampv1.RolloutMessageCompleted, r.in.New.Revision, r.in.NewHash, rampv1.RolloutMessageHealthy)
}

// promoted: the active Service selects the new ReplicaSet (it may not be
// stable yet while post-promotion analysis runs).
func (r *blueGreenRun) promoted() bool {
	return r.s.BlueGreen.ActiveSelector == r.in.NewHash && r.s.StableRS != ""
}

// services points the active Service at the active hash (on the very first
// revision, as soon as its pods exist) and the preview Service at the new
// ReplicaSet once it is available at its preview size (back to the active
// one after promotion; on abort it stays on the aborted ReplicaSet, as
// upstream).
func (r *blueGreenRun) services() {
	s, nw := &r.s, r.in.New
	activeRS := r.byHash(s.BlueGreen.ActiveSelector)
	if activeRS != nil && activeRS.Available > 0 {
		r.out.selectHash(r.b.ActiveService, s.BlueGreen.ActiveSelector)
	}
	preview := s.BlueGreen.PreviewSelector
	switch {
	case r.stable():
		preview = s.BlueGreen.ActiveSelector
	case nw != nil && nw.Available >= r.previewSize() && nw.Available > 0:
		preview = r.in.NewHash
	}
	// Without a preview Service there is no preview selector to report
	// (upstream leaves status.blueGreen.previewSelector out).
	if r.b.PreviewService != "" && preview != "" && r.byHash(preview) != nil && r.byHash(preview).Available > 0 {
		s.BlueGreen.PreviewSelector = preview
		r.out.selectHash(r.b.PreviewService, preview)
	}
}

// counts adds the /scale view: the active ReplicaSet's pods and selector.
func (r *blueGreenRun) counts() {
	r.base.counts()
	r.s.HPAReplicas = r.s.Replicas
	// Once the active ReplicaSet exists, ready, available and the HPA's
	// count are its own (preview pods serve no users); replicas and
	// updatedReplicas still count every pod, as upstream reports them.
	if rs := r.byHash(r.s.BlueGreen.ActiveSelector); rs != nil {
		r.s.HPAReplicas, r.s.ReadyReplicas, r.s.AvailableReplicas = rs.Replicas, rs.Ready, rs.Available
	}
	r.s.Selector = selectorString(r.ro, r.s.BlueGreen.ActiveSelector)
}

// healthy: the new ReplicaSet is stable, active and fully available; older
// ReplicaSets waiting for their scale-down delay do not make it unhealthy.
func (r *blueGreenRun) healthy() bool {
	nw := r.in.New
	return r.stable() && nw != nil && r.s.BlueGreen.ActiveSelector == r.in.NewHash &&
		nw.Available >= r.n && nw.Replicas == r.n
}
