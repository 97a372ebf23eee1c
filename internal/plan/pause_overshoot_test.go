package plan

import (
	"testing"
	"time"
)

// TestPauseOvershootReported: the pass that ends a timed pause says how
// late it ended: not at all, when it runs at the requeue the pause asked
// for (the requeue is to the exact deadline, with no slack).
func TestPauseOvershootReported(t *testing.T) {
	s := newSim(t, 4, weight(25), pauseFor("5"), weight(75))
	s.run("v1", time.Minute)
	var got []time.Duration
	for i := 0; i < 500; i++ {
		out := s.plan(s.input("v2"))
		if out.PauseOvershoot != nil {
			got = append(got, *out.PauseOvershoot)
		}
		changed := s.apply("v2", out)
		if changed {
			s.now = s.now.Add(10 * time.Millisecond)
			continue
		}
		if out.RequeueAfter == 0 {
			break
		}
		s.now = s.now.Add(out.RequeueAfter)
	}
	if len(got) != 1 || got[0] != 0 {
		t.Errorf("overshoots %v, want one of 0", got)
	}
}
