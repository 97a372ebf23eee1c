package rollout_test

import (
	"context"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestExperimentEndedBeforeNextPass: an experiment step's Experiment that
// fails before the Rollout's next pass (an Experiment controller faster
// than the Rollout's cache) aborts the update; before the fix its name was
// not recorded at creation, so the next pass took it for an earlier try's
// and created another, forever.
func TestExperimentEndedBeforeNextPass(t *testing.T) {
	env, r := newEnv(t, webRollout(t, "      steps: [{experiment: {templates: [{name: x, specRef: canary}]}}]\n"))
	converge(t, env, r, "web")
	update(t, env, "web", func(ro *rampv1.Rollout) { ro.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	var exs rampv1.ExperimentList
	for range 10 {
		if _, err := pass(r, "web"); err != nil {
			t.Fatal(err)
		}
		settle(t, env)
		if err := env.API.List(context.Background(), &exs); err != nil {
			t.Fatal(err)
		}
		for i := range exs.Items {
			if ex := &exs.Items[i]; ex.Status.Phase == "" {
				ex.Status.Phase, ex.Status.Message = rampv1.AnalysisPhaseFailed, "templates [x] did not become available"
				if err := env.API.Update(context.Background(), ex); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if len(exs.Items) != 1 {
		t.Errorf("%d Experiments, want the one that failed", len(exs.Items))
	}
	if st := getRollout(t, env, "web").Status; !st.Abort {
		t.Errorf("status phase %s abort %v, want the update aborted by the failed Experiment", st.Phase, st.Abort)
	}
}
