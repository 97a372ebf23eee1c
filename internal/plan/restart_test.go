package plan

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// The plugin's restart replaces pods for blue-green too (it used to do
// nothing), one at a time by default (25% of 3 rounds down to 0, at least 1),
// counted against the larger of spec.replicas and the ReplicaSets' total.
func TestRestartBlueGreen(t *testing.T) {
	for _, c := range []struct {
		name           string
		replicas       int32
		maxUnavailable *intstr.IntOrString
		paused         bool
		toRestart      int32
		available      int32
		want           int32
	}{
		{"default budget: one at a time", 3, nil, false, 3, 3, 1},
		{"one already down: wait", 3, nil, false, 3, 2, 0},
		{"maxUnavailable 2", 4, ptrTo(intstr.FromInt32(2)), false, 4, 4, 2},
		{"paused: restarts too, as upstream", 3, nil, true, 3, 3, 1},
		{"done", 3, nil, false, 0, 3, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newBlueGreen(t, c.replicas, rampv1.BlueGreenStrategy{MaxUnavailable: c.maxUnavailable})
			s.run("v1", time.Minute)
			at := metav1.NewTime(s.now.Add(-time.Second))
			s.ro.Spec.RestartAt, s.ro.Spec.Paused = &at, c.paused
			in := s.input("v1")
			in.PodsToRestart, in.PodsAvailable = c.toRestart, c.available
			out := BlueGreen(in)
			if out.DeletePods != c.want {
				t.Errorf("deletes %d pods, want %d", out.DeletePods, c.want)
			}
			if done := out.Status.RestartedAt != nil; done != (c.toRestart == 0) {
				t.Errorf("restartedAt set %v with %d pods to restart", done, c.toRestart)
			}
		})
	}
}
