package experiment

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// TestCurrentRuns (recordedRuns, then unrecordedRuns without a spec check): the run a status names; without a record, a run of the
// analysis's name that has not completed; a completed one (the plugin's
// retry reset the status) is not taken up again, and the new run takes the
// next free name, as upstream.
func TestCurrentRuns(t *testing.T) {
	ex := &rampv1.Experiment{ObjectMeta: metav1.ObjectMeta{Name: "exp"},
		Spec: rampv1.ExperimentSpec{Analyses: []rampv1.ExperimentAnalysisTemplateRef{{Name: "web"}, {Name: "job"}, {Name: "new"}}}}
	run := func(name string, phase rampv1.AnalysisPhase) *rampv1.AnalysisRun {
		return &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: rampv1.AnalysisRunStatus{Phase: phase}}
	}
	owned := []*rampv1.AnalysisRun{run("exp-web", rampv1.AnalysisPhaseFailed), run("exp-web.1", rampv1.AnalysisPhaseSuccessful),
		run("exp-job", rampv1.AnalysisPhaseRunning), run("exp-new", rampv1.AnalysisPhaseSuccessful)}
	ex.Status.AnalysisRuns = []rampv1.ExperimentAnalysisRunStatus{{Name: "web", AnalysisRun: "exp-web.1"}}
	got := map[string]*rampv1.AnalysisRun{}
	recordedRuns(ex, owned, got)
	unrecordedRuns(ex, owned, got, nil)
	if got["web"] == nil || got["web"].Name != "exp-web.1" {
		t.Errorf("web: %v, want the recorded exp-web.1", got["web"])
	}
	if got["job"] == nil || got["job"].Name != "exp-job" {
		t.Errorf("job: %v, want the running exp-job", got["job"])
	}
	if got["new"] != nil {
		t.Errorf("new: took up the completed %s", got["new"].Name)
	}
	taken := map[string]bool{"exp-new": true, "exp-new.1": true}
	if n := freeRunName(ex, "new", taken); n != "exp-new.2" {
		t.Errorf("free name %s, want exp-new.2", n)
	}
	if n := freeRunName(ex, "other", taken); n != "exp-other" {
		t.Errorf("free name %s, want exp-other", n)
	}
	for name, want := range map[string]string{"exp-web": "web", "exp-web.12": "web", "exp-a.b": "a.b", "exp-v1.x": "v1.x"} {
		if a := analysisOf(ex, run(name, "")); a != want {
			t.Errorf("analysisOf(%s) = %s, want %s", name, a, want)
		}
	}
}

// TestRecordRunsAfterConflict: the runs a pass created are recorded in the
// Experiment as the API server holds it, next to what is there, once.
func TestRecordRunsAfterConflict(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := rampv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	ex := &rampv1.Experiment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "exp"},
		Status: rampv1.ExperimentStatus{Phase: rampv1.AnalysisPhaseRunning,
			AnalysisRuns: []rampv1.ExperimentAnalysisRunStatus{{Name: "job", AnalysisRun: "exp-job", Phase: rampv1.AnalysisPhaseRunning}}}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ex).Build()
	r := &Reconciler{Client: c, Live: c}
	key := client.ObjectKeyFromObject(ex)
	created := []rampv1.ExperimentAnalysisRunStatus{{Name: "job", AnalysisRun: "exp-job"}, {Name: "web", AnalysisRun: "exp-web", Phase: rampv1.AnalysisPhasePending}}
	for range 2 {
		if err := r.recordRuns(context.Background(), key, created); err != nil {
			t.Fatal(err)
		}
	}
	got := &rampv1.Experiment{}
	if err := c.Get(context.Background(), key, got); err != nil {
		t.Fatal(err)
	}
	if rs := got.Status.AnalysisRuns; len(rs) != 2 || rs[0].AnalysisRun != "exp-job" || rs[0].Phase != rampv1.AnalysisPhaseRunning || rs[1].AnalysisRun != "exp-web" {
		t.Errorf("records %+v, want job as it was and web added once", rs)
	}
}

// TestExpectRuns: a run this controller created stands in the status of a
// pass that reads the Experiment from a stale cache, until the cache shows
// the record; then it is forgotten (a later retry starts afresh).
func TestExpectRuns(t *testing.T) {
	r := &Reconciler{}
	ex := &rampv1.Experiment{ObjectMeta: metav1.ObjectMeta{Name: "exp", UID: "u"},
		Spec: rampv1.ExperimentSpec{Analyses: []rampv1.ExperimentAnalysisTemplateRef{{Name: "web"}}}}
	r.created.Store(createdKey(ex, "web"), "exp-web")
	stale := ex.DeepCopy()
	r.expectRuns(stale)
	if rec := runRecord(stale, "web"); rec == nil || rec.AnalysisRun != "exp-web" {
		t.Fatalf("stale pass: records %+v, want exp-web expected", stale.Status.AnalysisRuns)
	}
	fresh := ex.DeepCopy()
	fresh.Status.AnalysisRuns = []rampv1.ExperimentAnalysisRunStatus{{Name: "web", AnalysisRun: "exp-web", Phase: rampv1.AnalysisPhaseFailed}}
	r.expectRuns(fresh)
	if len(fresh.Status.AnalysisRuns) != 1 {
		t.Errorf("fresh pass: records %+v", fresh.Status.AnalysisRuns)
	}
	retried := ex.DeepCopy() // the plugin's retry cleared the status
	r.expectRuns(retried)
	if len(retried.Status.AnalysisRuns) != 0 {
		t.Errorf("after a retry: records %+v, want none (a new run starts)", retried.Status.AnalysisRuns)
	}
}

// TestUnrecordedRunsCheckSpec: with the spec hashes the analyses would be
// created with, a run of an analysis's name without a record is taken up
// only if the Experiment controls it and its spec (and spec-hash
// annotation) is that one; otherwise it is returned with the reason.
func TestUnrecordedRunsCheckSpec(t *testing.T) {
	ex := &rampv1.Experiment{ObjectMeta: metav1.ObjectMeta{Name: "exp", UID: "exp-uid"},
		Spec: rampv1.ExperimentSpec{Analyses: []rampv1.ExperimentAnalysisTemplateRef{{Name: "ours"}, {Name: "forged"}, {Name: "foreign"}}}}
	spec := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{{Name: "m", SuccessCondition: "result > 0"}}}
	always := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{{Name: "m", SuccessCondition: "true"}}}
	other := &rampv1.Experiment{ObjectMeta: metav1.ObjectMeta{Name: "exp", UID: "other-uid"}}
	run := func(name string, ctl *rampv1.Experiment, s rampv1.AnalysisRunSpec) *rampv1.AnalysisRun {
		return newRun(ctl, name, s) // controlled by ctl, annotated with the hash of s
	}
	forged := run("exp-forged", ex, always)
	forged.Annotations[rampv1.RunSpecHashAnnotation] = plan.RunSpecHash(spec) // copied
	owned := []*rampv1.AnalysisRun{run("exp-ours", ex, spec), forged, run("exp-foreign", other, spec)}
	want := map[string]string{"ours": plan.RunSpecHash(spec), "forged": plan.RunSpecHash(spec), "foreign": plan.RunSpecHash(spec)}
	got := map[string]*rampv1.AnalysisRun{}
	why := unrecordedRuns(ex, owned, got, want)
	if got["ours"] == nil || got["forged"] != nil || got["foreign"] != nil {
		t.Errorf("taken up %v, want only exp-ours", got)
	}
	if !strings.Contains(why["exp-forged"], "changed after creation") || !strings.Contains(why["exp-foreign"], "other-uid") || len(why) != 2 {
		t.Errorf("reasons %v, want exp-forged's and exp-foreign's", why)
	}
}

// TestForeignRunOfChosenName: an AnalysisRun that already holds the name
// the Experiment chose for an analysis's run and that the Experiment may
// not take up (not its controller; or its own with another spec) is not
// recorded as the analysis's run: the run is created under the next name,
// and a Warning names the one not reused.
func TestForeignRunOfChosenName(t *testing.T) {
	for name, owner := range map[string]metav1.OwnerReference{
		"another controller": {APIVersion: "argoproj.io/v1alpha1", Kind: "Experiment", Name: "exp", UID: "other-uid", Controller: new(true)},
		"no controller":      {APIVersion: "argoproj.io/v1alpha1", Kind: "Experiment", Name: "exp", UID: "exp-uid"},
	} {
		t.Run(name, func(t *testing.T) {
			ex := newExperiment()
			ex.Spec.Analyses = []rampv1.ExperimentAnalysisTemplateRef{{Name: "web", TemplateName: "t"}}
			tmpl := &rampv1.AnalysisTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "t"},
				Spec: rampv1.AnalysisTemplateSpec{Metrics: []rampv1.Metric{{Name: "m", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}}}
			squat := &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "exp-web", OwnerReferences: []metav1.OwnerReference{owner}},
				Spec:   rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{{Name: "m", SuccessCondition: "true", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}},
				Status: rampv1.AnalysisRunStatus{Phase: rampv1.AnalysisPhaseSuccessful}}
			env, r := newReconciler(t, ex, tmpl, squat)
			for range 3 {
				if _, err := pass(r); err != nil {
					t.Fatal(err)
				}
				env.ReadyReplicaSets(t)
			}
			got := get(t, env, "exp", &rampv1.Experiment{})
			if rec := runRecord(got, "web"); rec == nil || rec.AnalysisRun != "exp-web.1" {
				t.Errorf("record %+v, want exp-web.1", rec)
			}
			if !slices.ContainsFunc(env.Log(), func(w controllertest.Write) bool { return w.Verb == "event" && w.Kind == rampv1.RunNotReusedReason }) {
				t.Errorf("no %s Event; writes %v", rampv1.RunNotReusedReason, env.Log())
			}
		})
	}
}
