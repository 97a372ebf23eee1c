package plan

import (
	"math"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestStatusOutOfRange: status values anyone with rollouts/status patch
// can write, out of range or stale, on a canary paused at step 1 of
// setWeight 20 / pause / setWeight 60 / pause 60s / setWeight 80. The plan
// never panics and never speeds the release up beyond what upstream
// does with the same status:
//   - a negative currentStepIndex is 0: the steps run again from the first
//     (upstream indexes its steps with it and panics; the end of the steps
//     would promote the release, which no one asked for), so the rollout is
//     paused at step 1 again, on the same pause;
//   - an index past the steps is the step count: the steps are done, as
//     upstream (a status writer may set the step count itself);
//   - a stableRS naming no ReplicaSet: as upstream, there is no stable to
//     keep and the new ReplicaSet takes all replicas (within maxSurge);
//   - a currentPodHash naming no ReplicaSet: a new revision, steps from 0;
//   - a canary pause condition left behind by a write that moved the step
//     is dropped when the next step that is not a pause completes (as
//     upstream removes it on every step completion), so a later timed pause
//     waits its whole duration rather than counting from the stale start.
func TestStatusOutOfRange(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*rampv1.RolloutStatus)
		want string // the status after the passes: step, phase, canary pods
	}{
		{"currentStepIndex -1", func(s *rampv1.RolloutStatus) { s.CurrentStepIndex = ptrTo(int32(-1)) }, "step=1 Paused v2=1"},
		{"currentStepIndex MinInt32", func(s *rampv1.RolloutStatus) { s.CurrentStepIndex = ptrTo(int32(math.MinInt32)) }, "step=1 Paused v2=1"},
		{"currentStepIndex past the steps", func(s *rampv1.RolloutStatus) { s.CurrentStepIndex = ptrTo(int32(99)) }, "step=5 Healthy v2=5"},
		{"currentStepIndex MaxInt32", func(s *rampv1.RolloutStatus) { s.CurrentStepIndex = ptrTo(int32(math.MaxInt32)) }, "step=5 Healthy v2=5"},
		{"unknown stableRS", func(s *rampv1.RolloutStatus) { s.StableRS = "nope" }, "step=1 Paused v2=5"},
		{"unknown currentPodHash", func(s *rampv1.RolloutStatus) { s.CurrentPodHash = "gone" }, "step=1 Paused v2=1"},
		{"stale pause condition", func(s *rampv1.RolloutStatus) {
			s.CurrentStepIndex = ptrTo(int32(2)) // moved on, the pause condition of step 1 left in place
			s.PauseConditions[0].StartTime = metav1.NewTime(simStart.Add(-time.Hour))
		}, "step=3 Paused v2=3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t, 5, weight(20), pauseForever(), weight(60), pauseFor("60s"), weight(80))
			s.run("v1", time.Minute)
			s.run("v2", time.Minute)
			if len(s.ro.Status.PauseConditions) != 1 {
				t.Fatalf("not paused at step 1: %+v", s.ro.Status)
			}
			c.edit(&s.ro.Status)
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("plan panicked: %v", r)
					}
				}()
				s.run("v2", 30*time.Second) // less than the 60 s pause
			}()
			st := s.ro.Status
			if got := sprintf("step=%d %s v2=%d", *st.CurrentStepIndex, st.Phase, s.rs["v2"].Spec); got != c.want {
				t.Errorf("got %s, want %s\n%s", got, c.want, s.log)
			}
		})
	}
}
