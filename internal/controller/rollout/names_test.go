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
// a run of this same try still going is reused (this Rollout its controller,
// the spec it would create, recorded in the spec-hash annotation); any other
// holder moves the new run to name.1, and one still going is reported
// (Warning AnalysisRunNotReused) and its verdict not used: another
// Rollout's, one owned but not controlled, one whose spec differs from what
// the Rollout would create (its annotation copied). An error reading the
// holder fails the pass.
func TestRunNameTaken(t *testing.T) {
	want := rampv1.AnalysisRunSpec{Metrics: analysisTemplate("t").Spec.Metrics}
	always := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{{Name: "m", SuccessCondition: "true", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}}
	for _, tc := range []struct {
		name       string
		owner      types.UID
		controller bool
		spec       rampv1.AnalysisRunSpec
		phase      rampv1.AnalysisPhase
		readErr    bool
		want       string // suffix of the run the status records
		reported   string // part of the Warning's message, "" for none
	}{
		{"an earlier try's, ended", "web-uid", true, want, rampv1.AnalysisPhaseFailed, false, ".1", ""},
		{"another rollout's", "other-uid", true, want, rampv1.AnalysisPhaseRunning, false, ".1", "its controller is Rollout web (uid other-uid)"},
		{"this try's, going", "web-uid", true, want, rampv1.AnalysisPhaseRunning, false, "", ""},
		{"owned, not controlled", "web-uid", false, want, rampv1.AnalysisPhaseRunning, false, ".1", "it has no controller"},
		{"controlled, another spec", "web-uid", true, always, rampv1.AnalysisPhaseRunning, false, ".1", "its spec differs from the one its rollout.ramp.dev/spec-hash annotation records"},
		{"unreadable", "other-uid", true, want, rampv1.AnalysisPhaseRunning, true, "", ""},
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
				Annotations:     map[string]string{rampv1.RunSpecHashAnnotation: plan.RunSpecHash(want)}, // copied: the spec may differ
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web", UID: tc.owner, Controller: &tc.controller}}},
				Spec: tc.spec}
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
			switch got := notReusedEvents(env); {
			case tc.reported == "" && got != "":
				t.Errorf("Warning events %q, want none", got)
			case tc.reported != "" && !strings.Contains(got, base+" is not reused: "+tc.reported):
				t.Errorf("Warning events %q, want one naming %s and %q", got, base, tc.reported)
			}
		})
	}
}

// notReusedEvents is the messages of the AnalysisRunNotReused Events so far.
func notReusedEvents(env *controllertest.Env) string {
	var msgs []string
	for len(env.Recorder.Events) > 0 {
		if e := <-env.Recorder.Events; strings.Contains(e, rampv1.RunNotReusedReason) {
			msgs = append(msgs, e)
		}
	}
	return strings.Join(msgs, "\n")
}

// TestUnrecordedForeignRunNotTakenUp: a run still going that looks like
// this revision's background run (its labels, this Rollout its controller)
// under another name, whose spec is not the one the Rollout would create,
// is not taken up as a run whose status write was lost: a new run starts
// and the status records it, and the Warning names the one not reused.
func TestUnrecordedForeignRunNotTakenUp(t *testing.T) {
	ro := webRollout(t, "      analysis: {templates: [{templateName: t}]}\n      steps: [{setWeight: 50}, {pause: {}}]\n")
	env, r := newEnv(t, ro, analysisTemplate("t"))
	converge(t, env, r, "web")
	update(t, env, "web", func(ro *rampv1.Rollout) { ro.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	cur := getRollout(t, env, "web")
	hash := plan.TemplateHash(cur.Spec.Template.DeepCopy(), nil)
	always := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{{Name: "m", SuccessCondition: "true", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}}
	squat := &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-" + hash + "-2.7", Labels: map[string]string{
		rampv1.DefaultRolloutUniqueLabelKey: hash, rampv1.RolloutTypeLabel: string(plan.RunBackground)},
		Annotations:     map[string]string{rampv1.RunSpecHashAnnotation: plan.RunSpecHash(always)},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cur, rampv1.GroupVersion.WithKind("Rollout"))}},
		Spec: always}
	squat.Status.Phase = rampv1.AnalysisPhaseRunning
	if err := env.API.Create(context.Background(), squat); err != nil {
		t.Fatal(err)
	}
	if _, err := pass(r, "web"); err != nil {
		t.Fatal(err)
	}
	ref := getRollout(t, env, "web").Status.Canary.CurrentBackgroundAnalysisRunStatus
	if ref == nil || ref.Name != "web-"+hash+"-2" {
		t.Fatalf("background run %+v, want a new web-%s-2", ref, hash)
	}
	if got := notReusedEvents(env); !strings.Contains(got, squat.Name+" is not reused: it was created for another spec") {
		t.Errorf("Warning events %q, want one naming %s", got, squat.Name)
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
