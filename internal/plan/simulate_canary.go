package plan

// canary walks a canary update: a step's point is the world the pass that
// moves past it read (so a pause's point is the world while paused), then
// PointComplete once the new ReplicaSet is stable and PointScaledDown once
// the previous one went to 0 after its delay.
func (s *simulator) canary() error {
	steps := s.steps()
	for {
		pre := s.point(PointStep, 0)
		from := int32(0)
		if st := s.w.ro.Status; st.CurrentPodHash == s.hash && st.CurrentStepIndex != nil {
			from = *st.CurrentStepIndex
		}
		out, changed, moved, err := s.pass()
		if err != nil {
			return err
		}
		to := from
		if idx := s.w.ro.Status.CurrentStepIndex; idx != nil {
			to = *idx
		}
		for i := from; i < to && int(i) < len(steps); i++ {
			s.add(s.stepPoint(pre, int(i)))
			pre.Peak = 0 // steps done in the same pass: nothing moved between them
		}
		s.peak = max(s.peak, moved)
		if changed {
			s.w.now = s.w.now.Add(simPassGap)
			continue
		}
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
			p := s.stepPoint(s.point(PointStep, 0), int(to))
			p.Stalled, s.tr.Stalled = true, true
			s.add(p)
			return nil
		}
	}
}

// stepPoint is p as the point of step i.
func (s *simulator) stepPoint(p Point, i int) Point {
	steps := s.steps()
	p.Kind, p.Index, p.Weight = PointStep, i, weightAt(steps, int32(i))
	if i < len(steps) {
		p.Step, p.Gate = stepText(steps[i]), stepGate(steps[i])
	} else {
		p.Step = PointComplete
	}
	return p
}
