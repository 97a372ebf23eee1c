package experiment

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestCurrentRuns: the run a status names; without a record, a run of the
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
	currentRuns(ex, owned, got)
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
