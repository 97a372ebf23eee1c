package plan

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// sim drives the planner through the simulator's world (simWorld:
// ReplicaSets whose pods become available at once, runs and Experiments
// created Running) one test step at a time, with a clock that jumps to each
// requeue, and logs what changes.
type sim struct {
	*simWorld
	t    *testing.T
	log  []string
	last string
	plan func(Input) Output
}

func newSim(t *testing.T, replicas int32, steps ...rampv1.CanaryStep) *sim {
	ro := &rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 1}}
	ro.Spec.Replicas = &replicas
	ro.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{Steps: steps}
	return &sim{simWorld: newSimWorld(ro), t: t, plan: Canary}
}

// run plans until nothing changes and no requeue is pending within limit.
func (s *sim) run(hash string, limit time.Duration) {
	end := s.now.Add(limit)
	for i := 0; i < 500 && !s.now.After(end); i++ {
		out := s.plan(s.input(hash))
		changed := s.apply(hash, out)
		s.record()
		if changed {
			s.now = s.now.Add(10 * time.Millisecond)
			continue
		}
		if out.RequeueAfter == 0 || out.RequeueAfter > limit {
			return
		}
		s.now = s.now.Add(out.RequeueAfter)
	}
}

// input is what the reconciler reads, without Services or routes (the
// routed sim adds its own).
func (s *sim) input(hash string) Input {
	in := s.simWorld.input(hash)
	in.ServiceHash, in.Traffic = nil, nil
	return in
}

// apply makes the output true at once (pods available immediately) and
// logs the runs started and terminated and the Events but scaling ones.
func (s *sim) apply(hash string, out Output) bool {
	changed, started, terminated := s.simWorld.apply(hash, &out)
	for _, name := range started {
		s.log = append(s.log, fmt.Sprintf("%6.2fs run %s started", s.elapsed(), name))
	}
	for _, name := range terminated {
		s.log = append(s.log, fmt.Sprintf("%6.2fs run %s terminated", s.elapsed(), name))
	}
	for _, e := range out.Events {
		if e.Reason != rampv1.RolloutReasonScalingReplicaSet {
			s.log = append(s.log, fmt.Sprintf("%6.2fs event %s", s.elapsed(), e.Reason))
		}
	}
	return changed
}

func (s *sim) elapsed() float64 { return s.now.Sub(simStart).Seconds() }

func (s *sim) record() {
	var parts []string
	for _, h := range []string{"v1", "v2", "v3"} {
		if rs := s.rs[h]; rs != nil {
			parts = append(parts, fmt.Sprintf("%s=%d", h, rs.Spec))
		}
	}
	st := s.ro.Status
	step := "-"
	if st.CurrentStepIndex != nil {
		step = fmt.Sprint(*st.CurrentStepIndex)
	}
	line := fmt.Sprintf("%s step=%s phase=%s stable=%s", strings.Join(parts, " "), step, st.Phase, st.StableRS)
	if bg := st.BlueGreen; bg.ActiveSelector != "" {
		line += fmt.Sprintf(" active=%s preview=%s", bg.ActiveSelector, bg.PreviewSelector)
	}
	if line != s.last {
		s.log = append(s.log, fmt.Sprintf("%6.2fs %s", s.elapsed(), line))
		s.last = line
	}
}

func (s *sim) expect(want string) {
	s.t.Helper()
	got := strings.Join(s.log, "\n")
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		s.t.Errorf("simulation log:\n%s\n\nwant:\n%s", got, want)
	}
	s.log = nil
}

func weight(w int32) rampv1.CanaryStep { return rampv1.CanaryStep{SetWeight: &w} }
func pauseFor(d string) rampv1.CanaryStep {
	v := intstr.Parse(d)
	return rampv1.CanaryStep{Pause: &rampv1.RolloutPause{Duration: &v}}
}
func pauseForever() rampv1.CanaryStep { return rampv1.CanaryStep{Pause: &rampv1.RolloutPause{}} }

// finish ends a run with phase and message, as its controller would.
func (s *sim) finish(name string, phase rampv1.AnalysisPhase, msg string) {
	s.t.Helper()
	run, ok := s.runs[name]
	if !ok {
		s.t.Fatalf("no run %s (have %v)", name, s.runs)
	}
	run.Phase, run.Message = phase, msg
	s.runs[name] = run
}
