package plan

import (
	"cmp"
	"slices"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// HistoryCleanup names the old ReplicaSets to delete: those scaled down
// (spec and status at 0, not already being deleted) beyond limit
// (spec.revisionHistoryLimit), lowest revision first.
func HistoryCleanup(limit int32, others []ReplicaSet) []string {
	var idle []ReplicaSet
	for _, rs := range others {
		if rs.Spec == 0 && rs.Replicas == 0 && !rs.Deleting {
			idle = append(idle, rs)
		}
	}
	return beyond(idle, limit, func(a, b ReplicaSet) int {
		if c := cmp.Compare(a.Revision, b.Revision); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	}, func(rs ReplicaSet) string { return rs.Name })
}

// RunCleanup names the AnalysisRuns to delete: completed runs beyond
// spec.analysis's history limits (successful and unsuccessful counted
// apart, oldest first), never one the status st refers to nor one being
// deleted.
func RunCleanup(ro *rampv1.Rollout, runs map[string]Run, st *rampv1.RolloutStatus) []string {
	keep := map[string]bool{}
	for _, ref := range []*rampv1.RolloutAnalysisRunStatus{st.Canary.CurrentStepAnalysisRunStatus,
		st.Canary.CurrentBackgroundAnalysisRunStatus, st.BlueGreen.PrePromotionAnalysisRunStatus,
		st.BlueGreen.PostPromotionAnalysisRunStatus} {
		if ref != nil {
			keep[ref.Name] = true
		}
	}
	var ok, bad []Run
	for _, run := range runs {
		switch {
		case keep[run.Name] || !run.Phase.Completed() || run.Deleting:
		case run.Phase == rampv1.AnalysisPhaseSuccessful:
			ok = append(ok, run)
		default:
			bad = append(bad, run)
		}
	}
	byAge := func(a, b Run) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	}
	name := func(run Run) string { return run.Name }
	return append(beyond(ok, ro.SuccessfulRunHistoryLimit(), byAge, name), beyond(bad, ro.UnsuccessfulRunHistoryLimit(), byAge, name)...)
}

// beyond names the items past the newest limit (a negative limit keeps
// none), oldest first as order sorts them.
func beyond[T any](items []T, limit int32, order func(a, b T) int, name func(T) string) []string {
	extra := len(items) - int(max(limit, 0))
	if extra <= 0 {
		return nil
	}
	slices.SortFunc(items, order)
	names := make([]string, extra)
	for i, it := range items[:extra] {
		names[i] = name(it)
	}
	return names
}
