package rollout_test

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// TestRunNameTaken: the background run of an update is named
// <rollout>-<hash>-<revision>; when an AnalysisRun already holds that name,
// a run of this same try still going is reused, any other holder moves the
// new run to name.1, and an error reading the holder fails the pass.
func TestRunNameTaken(t *testing.T) {
	for _, tc := range []struct {
		name    string
		owner   types.UID
		phase   rampv1.AnalysisPhase
		readErr bool
		want    string // suffix of the run the status records
	}{
		{"an earlier try's, ended", "web-uid", rampv1.AnalysisPhaseFailed, false, ".1"},
		{"another rollout's", "other-uid", rampv1.AnalysisPhaseRunning, false, ".1"},
		{"this try's, going", "web-uid", rampv1.AnalysisPhaseRunning, false, ""},
		{"unreadable", "other-uid", rampv1.AnalysisPhaseRunning, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := webRollout(t, "      analysis: {templates: [{templateName: t}]}\n      steps: [{setWeight: 50}, {pause: {}}]\n")
			env, r := newEnv(t, ro, analysisTemplate("t"))
			converge(t, env, r, "web")
			update(t, env, "web", func(ro *rampv1.Rollout) { ro.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
			tmpl := getRollout(t, env, "web").Spec.Template.DeepCopy()
			base := "web-" + plan.TemplateHash(tmpl, nil) + "-2"
			holder := &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: base, Labels: map[string]string{
				rampv1.DefaultRolloutUniqueLabelKey: plan.TemplateHash(tmpl, nil), rampv1.RolloutTypeLabel: string(plan.RunBackground)},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web", UID: tc.owner}}}}
			holder.Status.Phase = tc.phase
			if err := env.API.Create(context.Background(), holder); err != nil {
				t.Fatal(err)
			}
			if tc.readErr {
				env.FailAt(controllertest.Match{Verb: "get", Kind: "AnalysisRun"}, 0, controllertest.Errors()["500"])
				if _, err := pass(r, "web"); err == nil || !strings.Contains(err.Error(), "read analysisrun "+base) {
					t.Fatalf("pass: %v, want the read error", err)
				}
				return
			}
			if _, err := pass(r, "web"); err != nil {
				t.Fatal(err)
			}
			ref := getRollout(t, env, "web").Status.Canary.CurrentBackgroundAnalysisRunStatus
			if ref == nil || ref.Name != base+tc.want {
				t.Fatalf("background run %+v, want %s", ref, base+tc.want)
			}
			if err := env.API.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ref.Name}, &rampv1.AnalysisRun{}); err != nil {
				t.Errorf("run %s: %v", ref.Name, err)
			}
		})
	}
}

// TestLostStatusWriteKeepsRun: when the status write of the pass that
// started a run fails, the next pass finds that run going (the cache shows
// it, the status names none): it records and keeps it, starting no other
// and stopping none. Before the plan adopted such a run it stopped the run
// it then recorded.
func TestLostStatusWriteKeepsRun(t *testing.T) {
	ro := webRollout(t, "      analysis: {templates: [{templateName: t}]}\n      steps: [{setWeight: 50}, {pause: {}}]\n")
	env, r := newEnv(t, ro, analysisTemplate("t"))
	converge(t, env, r, "web")
	update(t, env, "web", func(ro *rampv1.Rollout) { ro.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	env.FailAt(controllertest.Match{Verb: "patch status", Kind: "Rollout"}, 0, controllertest.Errors()["timeout"])
	if _, err := pass(r, "web"); err == nil {
		t.Fatal("pass: no error, want the status write's")
	}
	converge(t, env, r, "web")
	var runs rampv1.AnalysisRunList
	if err := env.API.List(context.Background(), &runs); err != nil {
		t.Fatal(err)
	}
	ref := getRollout(t, env, "web").Status.Canary.CurrentBackgroundAnalysisRunStatus
	if len(runs.Items) != 1 || runs.Items[0].Spec.Terminate || ref == nil || ref.Name != runs.Items[0].Name {
		for _, ar := range runs.Items {
			t.Logf("run %s terminate=%v", ar.Name, ar.Spec.Terminate)
		}
		t.Errorf("status names %+v; want the one run, going", ref)
	}
}
