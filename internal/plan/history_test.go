package plan

import (
	"slices"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestHistoryCleanup: only scaled-down ReplicaSets (spec and status at 0,
// not being deleted) count toward revisionHistoryLimit; the lowest
// revisions go first.
func TestHistoryCleanup(t *testing.T) {
	idle := func(name string, rev int64) ReplicaSet { return ReplicaSet{Name: name, Revision: rev} }
	scaling := ReplicaSet{Name: "scaling", Revision: 1, Spec: 0, Replicas: 2}
	up := ReplicaSet{Name: "up", Revision: 1, Spec: 3, Replicas: 3}
	gone := ReplicaSet{Name: "gone", Revision: 1, Deleting: true}
	for _, tc := range []struct {
		name   string
		limit  int32
		others []ReplicaSet
		want   []string
	}{
		{"within the limit", 2, []ReplicaSet{idle("a", 1), idle("b", 2)}, nil},
		{"one over", 1, []ReplicaSet{idle("b", 2), idle("a", 1)}, []string{"a"}},
		{"limit 0", 0, []ReplicaSet{idle("c", 3), idle("a", 1), idle("b", 2)}, []string{"a", "b", "c"}},
		{"negative limit counts as 0", -1, []ReplicaSet{idle("a", 1)}, []string{"a"}},
		{"equal revisions by name", 0, []ReplicaSet{idle("y", 1), idle("x", 1)}, []string{"x", "y"}},
		{"not idle, not counted", 1, []ReplicaSet{scaling, up, gone, idle("a", 4), idle("b", 5)}, []string{"a"}},
		{"nothing old", 10, nil, nil},
	} {
		if got := HistoryCleanup(tc.limit, tc.others); !slices.Equal(got, tc.want) {
			t.Errorf("%s: HistoryCleanup = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestRunCleanup: completed runs beyond the history limits (successful and
// unsuccessful apart, oldest first) go; running runs, runs being deleted
// and the runs the status refers to stay.
func TestRunCleanup(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(name string, phase rampv1.AnalysisPhase, age int) Run {
		return Run{Name: name, Phase: phase, Created: t0.Add(time.Duration(age) * time.Minute)}
	}
	runs := map[string]Run{}
	for _, r := range []Run{
		run("ok1", rampv1.AnalysisPhaseSuccessful, 1), run("ok2", rampv1.AnalysisPhaseSuccessful, 2),
		run("ok3", rampv1.AnalysisPhaseSuccessful, 3), run("ok4", rampv1.AnalysisPhaseSuccessful, 3),
		run("bad1", rampv1.AnalysisPhaseFailed, 1), run("bad2", rampv1.AnalysisPhaseError, 2),
		run("bad3", rampv1.AnalysisPhaseInconclusive, 3), run("running", rampv1.AnalysisPhaseRunning, 0),
		{Name: "deleting", Phase: rampv1.AnalysisPhaseSuccessful, Deleting: true},
	} {
		runs[r.Name] = r
	}
	ro := &rampv1.Rollout{}
	ro.Spec.Analysis = &rampv1.AnalysisRunStrategy{SuccessfulRunHistoryLimit: ptrTo(int32(1)), UnsuccessfulRunHistoryLimit: ptrTo(int32(2))}
	st := &rampv1.RolloutStatus{}
	if got, want := RunCleanup(ro, runs, st), []string{"ok1", "ok2", "ok3", "bad1"}; !slices.Equal(got, want) {
		t.Errorf("RunCleanup = %q, want %q", got, want)
	}
	st.Canary.CurrentStepAnalysisRunStatus = &rampv1.RolloutAnalysisRunStatus{Name: "ok1"}
	st.BlueGreen.PostPromotionAnalysisRunStatus = &rampv1.RolloutAnalysisRunStatus{Name: "bad1"}
	if got, want := RunCleanup(ro, runs, st), []string{"ok2", "ok3"}; !slices.Equal(got, want) {
		t.Errorf("with runs in the status: RunCleanup = %q, want %q", got, want)
	}
	if got := RunCleanup(&rampv1.Rollout{}, runs, &rampv1.RolloutStatus{}); len(got) != 0 {
		t.Errorf("default limits (5 each): RunCleanup = %q, want none", got)
	}
}

// TestRunStarted: a started run's name goes into the status field of its
// type, as Pending.
func TestRunStarted(t *testing.T) {
	var out Output
	for _, tc := range []struct {
		t    RunType
		get  func(*rampv1.RolloutStatus) *rampv1.RolloutAnalysisRunStatus
		name string
	}{
		{RunStep, func(s *rampv1.RolloutStatus) *rampv1.RolloutAnalysisRunStatus {
			return s.Canary.CurrentStepAnalysisRunStatus
		}, "web-1-2"},
		{RunBackground, func(s *rampv1.RolloutStatus) *rampv1.RolloutAnalysisRunStatus {
			return s.Canary.CurrentBackgroundAnalysisRunStatus
		}, "web-1"},
		{RunPrePromotion, func(s *rampv1.RolloutStatus) *rampv1.RolloutAnalysisRunStatus {
			return s.BlueGreen.PrePromotionAnalysisRunStatus
		}, "web-1-pre"},
		{RunPostPromotion, func(s *rampv1.RolloutStatus) *rampv1.RolloutAnalysisRunStatus {
			return s.BlueGreen.PostPromotionAnalysisRunStatus
		}, "web-1-post.1"},
	} {
		out.RunStarted(tc.t, tc.name)
		if ref := tc.get(&out.Status); ref == nil || ref.Name != tc.name || ref.Status != rampv1.AnalysisPhasePending {
			t.Errorf("%s: status ref %+v, want %s Pending", tc.t, ref, tc.name)
		}
	}
	out.ExperimentStarted("web-1-3")
	if out.Status.Canary.CurrentExperiment != "web-1-3" {
		t.Errorf("currentExperiment %q", out.Status.Canary.CurrentExperiment)
	}
}
