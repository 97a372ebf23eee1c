package plan

import (
	"slices"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestWorkloadScale: the Deployment a workloadRef names goes to 0 on
// success, down by the available pods progressively, never when asked
// so, and is never scaled up.
func TestWorkloadScale(t *testing.T) {
	healthy := rampv1.RolloutStatus{Phase: rampv1.RolloutPhaseHealthy, StableRS: "v2", CurrentPodHash: "v2", AvailableReplicas: 5}
	updating := rampv1.RolloutStatus{Phase: rampv1.RolloutPhaseProgressing, StableRS: "v1", CurrentPodHash: "v2", AvailableReplicas: 2}
	for _, tc := range []struct {
		name      string
		scaleDown rampv1.WorkloadScaleDown
		st        rampv1.RolloutStatus
		current   *int32
		want      int32
		ok        bool
	}{
		{"onsuccess, healthy", rampv1.ScaleDownOnSuccess, healthy, ptrTo(int32(5)), 0, true},
		{"onsuccess, replicas unset", rampv1.ScaleDownOnSuccess, healthy, nil, 0, true},
		{"onsuccess, already 0", rampv1.ScaleDownOnSuccess, healthy, ptrTo(int32(0)), 0, false},
		{"onsuccess, updating", rampv1.ScaleDownOnSuccess, updating, ptrTo(int32(5)), 0, false},
		{"onsuccess, healthy on the old template", rampv1.ScaleDownOnSuccess,
			rampv1.RolloutStatus{Phase: rampv1.RolloutPhaseHealthy, StableRS: "v1", CurrentPodHash: "v2"}, ptrTo(int32(5)), 0, false},
		{"progressively", rampv1.ScaleDownProgressively, updating, ptrTo(int32(5)), 3, true},
		{"progressively, never up", rampv1.ScaleDownProgressively, updating, ptrTo(int32(1)), 0, false},
		{"progressively, all available", rampv1.ScaleDownProgressively, healthy, ptrTo(int32(5)), 0, true},
		{"progressively, more available than replicas", rampv1.ScaleDownProgressively,
			rampv1.RolloutStatus{AvailableReplicas: 7}, ptrTo(int32(2)), 0, true},
		{"never", rampv1.ScaleDownNever, healthy, ptrTo(int32(5)), 0, false},
		{"unset", "", healthy, ptrTo(int32(5)), 0, false},
	} {
		ro := &rampv1.Rollout{}
		ro.Spec.Replicas = ptrTo(int32(5))
		ro.Spec.WorkloadRef = &rampv1.ObjectRef{Kind: "Deployment", Name: "web", ScaleDown: tc.scaleDown}
		got, ok := WorkloadScale(ro, &tc.st, tc.current)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: WorkloadScale = %d, %v, want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := WorkloadScale(&rampv1.Rollout{}, &healthy, ptrTo(int32(5))); ok {
		t.Error("no workloadRef: scaled")
	}
}

// TestPlanRecordsIntents: the plan's Output carries the workloadRef
// scale-down and the history clean-up, computed on its final status; an
// invalid spec records the Deployment's generation and nothing else.
func TestPlanRecordsIntents(t *testing.T) {
	s := newSim(t, 3)
	s.ro.Spec.RevisionHistoryLimit = ptrTo(int32(1))
	s.ro.Spec.WorkloadRef = &rampv1.ObjectRef{Kind: "Deployment", Name: "web", ScaleDown: rampv1.ScaleDownOnSuccess}
	s.run("v1", time.Minute)
	in := s.input("v1")
	in.Workload = &Workload{Generation: 4, Replicas: ptrTo(int32(3))}
	in.Others = []ReplicaSet{{Name: "web-v0", Hash: "v0", Revision: 1}, {Name: "web-vb", Hash: "vb", Revision: 3},
		{Name: "web-va", Hash: "va", Revision: 2}, {Name: "web-vx", Hash: "vx", Revision: 0, Deleting: true}}
	out := Canary(in)
	if out.Status.Phase != rampv1.RolloutPhaseHealthy || out.ScaleWorkload == nil || *out.ScaleWorkload != 0 ||
		out.Status.WorkloadObservedGeneration != "4" {
		t.Errorf("healthy: phase %s, scale workload %v, generation %q", out.Status.Phase, out.ScaleWorkload, out.Status.WorkloadObservedGeneration)
	}
	if want := []string{"web-v0", "web-va"}; !slices.Equal(out.DeleteReplicaSets, want) {
		t.Errorf("DeleteReplicaSets = %q, want %q", out.DeleteReplicaSets, want)
	}
	in.Invalid = "spec.replicas: must not be negative"
	out = Canary(in)
	if out.ScaleWorkload != nil || out.DeleteReplicaSets != nil || out.DeleteRuns != nil || out.Status.WorkloadObservedGeneration != "4" {
		t.Errorf("invalid: scale workload %v, delete %q %q, generation %q", out.ScaleWorkload, out.DeleteReplicaSets, out.DeleteRuns,
			out.Status.WorkloadObservedGeneration)
	}
}
