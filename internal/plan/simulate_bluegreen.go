package plan

import (
	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// blueGreen walks a blue-green update, taking each phase's point once: the
// preview available (the world the pass that moves on read), each gate
// where nothing moves (prePromotion, promotion, postPromotion), the new
// ReplicaSet grown to full size, the switch of the active Service, then
// PointComplete and PointScaledDown.
func (s *simulator) blueGreen() error {
	b := s.w.ro.Spec.Strategy.BlueGreen
	for {
		pre, existed := s.point(PhasePreview, -1), s.w.rs[s.hash] != nil
		out, changed, moved, err := s.pass()
		if err != nil {
			return err
		}
		if existed && pre.Active == "old" && pre.New.Spec == s.tr.Preview && pre.New.Available >= s.tr.Preview {
			s.once(pre)
		}
		s.peak = max(s.peak, moved)
		post := s.point("", -1)
		if s.tr.Preview < s.tr.Replicas && post.Active == "old" && post.New.Spec == s.tr.Replicas && post.New.Available >= s.tr.Replicas {
			post.Kind, post.Step = PhaseScaleUp, PhaseScaleUp
			s.once(post)
		}
		if post.Active == "new" {
			post.Kind, post.Step = PhaseSwitch, PhaseSwitch
			s.once(post)
		}
		if changed {
			s.w.now = s.w.now.Add(simPassGap)
			continue
		}
		s.gatePoints(b)
		stable := s.w.ro.Status.StableRS == s.hash
		if stable && !transient(out) {
			s.completed()
		}
		switch {
		case s.wait(out):
		case stable:
			s.completed()
			s.finish()
			return nil
		case s.w.openGates() != "":
			s.w.now = s.w.now.Add(simPassGap)
		default:
			p := s.point("stalled", -1)
			p.Stalled, s.tr.Stalled = true, true
			s.add(p)
			return nil
		}
	}
}

// gatePoints takes the point of each gate holding the update now.
func (s *simulator) gatePoints(b *rampv1.BlueGreenStrategy) {
	st := s.w.ro.Status
	for _, run := range s.w.runs {
		if run.Phase.Completed() || run.Hash != s.hash {
			continue
		}
		switch run.Type {
		case RunPrePromotion:
			p := s.point(PhasePrePromotion, -1)
			p.Gate = Gate{Analysis: templateNames(b.PrePromotionAnalysis)}
			s.once(p)
		case RunPostPromotion:
			p := s.point(PhasePostPromotion, -1)
			p.Gate = Gate{Analysis: templateNames(b.PostPromotionAnalysis)}
			s.once(p)
		}
	}
	if findPause(&st, rampv1.PauseReasonBlueGreenPause) != nil {
		p := s.point(PhasePromotion, -1)
		p.Gate = Gate{Pause: true}
		if b.AutoPromotionEnabledOrDefault() && b.AutoPromotionSeconds > 0 {
			d := rampv1.SaturatingSeconds(int64(b.AutoPromotionSeconds))
			p.Gate.Duration = &d
		}
		s.once(p)
	}
}

// once adds p unless a point of its kind was already taken.
func (s *simulator) once(p Point) {
	if p.Kind == "" || s.done[p.Kind] {
		return
	}
	s.mark(p.Kind)
	s.add(p)
}
