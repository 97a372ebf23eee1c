package rollout_test

import (
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestInvalidSpecKeepsCounts: a Rollout serving 3 ready pods whose template
// becomes invalid reports InvalidSpec with the 3 replicas it still runs
// (an HPA reads them through /scale), and its ReplicaSet keeps 3. Before the
// fix the status went to 0 replicas.
func TestInvalidSpecKeepsCounts(t *testing.T) {
	for name, breakIt := range map[string]func(*rampv1.Rollout){
		"selector does not match the template": func(ro *rampv1.Rollout) { ro.Spec.Template.Labels = map[string]string{"app": "other"} },
		"no template":                          func(ro *rampv1.Rollout) { ro.Spec.Template = nil },
		"workloadRef to another kind": func(ro *rampv1.Rollout) {
			ro.Spec.Template, ro.Spec.WorkloadRef = nil, &rampv1.ObjectRef{Kind: "StatefulSet", Name: "web", APIVersion: "apps/v1"}
		},
		"workloadRef to a missing Deployment": func(ro *rampv1.Rollout) {
			ro.Spec.Template, ro.Spec.WorkloadRef = nil, &rampv1.ObjectRef{Kind: "Deployment", Name: "gone", APIVersion: "apps/v1"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			env, r := newEnv(t, webRollout(t, ""))
			converge(t, env, r, "web")
			if st := getRollout(t, env, "web").Status; st.AvailableReplicas != 3 || st.StableRS == "" {
				t.Fatalf("before: status %+v, want 3 available on a stable ReplicaSet", st)
			}
			update(t, env, "web", breakIt)
			converge(t, env, r, "web")
			st := getRollout(t, env, "web").Status
			if c := condition(st, rampv1.RolloutInvalidSpec); c == nil {
				t.Fatalf("no InvalidSpec condition: %+v", st.Conditions)
			}
			if st.Replicas != 3 || st.AvailableReplicas != 3 || st.ReadyReplicas != 3 || st.HPAReplicas != 3 {
				t.Errorf("status replicas %d available %d ready %d hpa %d, want 3 each", st.Replicas, st.AvailableReplicas, st.ReadyReplicas, st.HPAReplicas)
			}
			rss := replicaSets(t, env)
			if len(rss) != 1 || *rss[0].Spec.Replicas != 3 {
				t.Errorf("ReplicaSets %d, want the one of 3 untouched", len(rss))
			}
		})
	}
}

func condition(st rampv1.RolloutStatus, typ rampv1.RolloutConditionType) *rampv1.RolloutCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == typ {
			return &st.Conditions[i]
		}
	}
	return nil
}
