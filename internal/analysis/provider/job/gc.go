package job

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// MaxDeletesPerPass bounds the Jobs one measurement start deletes: a run
// that built up many Jobs (an older version kept them all) is cleaned over
// several measurements rather than in one burst of deletes.
const MaxDeletesPerPass = 5

// collect garbage-collects the metric's measurement Jobs before its next
// measurement starts, as upstream's job provider does: the Jobs of the
// measurements the run's status still retains (measurementRetention) stay,
// the older ones go, oldest first, at most MaxDeletesPerPass. Only Jobs in
// the run's namespace that the run controls are candidates; next (the Job
// about to be created) is never deleted. A Job gone or replaced since the
// cache read is no error.
func (p *Provider) collect(ctx context.Context, run *rampv1.AnalysisRun, metric, next string) error {
	var jobs batchv1.JobList
	if err := p.Client.List(ctx, &jobs, client.InNamespace(run.Namespace),
		client.MatchingLabels{rampv1.AnalysisRunNameKey: run.Name, rampv1.AnalysisRunMetricNameKey: labelValue(metric)}); err != nil {
		return fmt.Errorf("list jobs of metric %s: %w", metric, err)
	}
	for _, job := range Expired(run, metric, next, jobs.Items) {
		err := p.delete(ctx, job)
		if err != nil && !apierrors.IsConflict(err) { // conflict: the UID precondition failed, not our Job any more
			return fmt.Errorf("garbage-collect: %w", err)
		}
	}
	return nil
}

// Expired picks, from jobs, the Jobs to delete before metric's measurement
// next starts: controlled by run, in its namespace, not being deleted, not
// next, and named by none of the metric's measurements retained in the
// run's status; oldest first, at most MaxDeletesPerPass.
func Expired(run *rampv1.AnalysisRun, metric, next string, jobs []batchv1.Job) []*batchv1.Job {
	keep := map[string]bool{next: true}
	for _, r := range run.Status.MetricResults {
		if r.Name != metric {
			continue
		}
		for _, m := range r.Measurements {
			keep[m.Metadata[rampv1.JobNameMetadataKey]] = true
		}
	}
	var out []*batchv1.Job
	for i := range jobs {
		j := &jobs[i]
		if j.Namespace == run.Namespace && controlledBy(j, run) && j.DeletionTimestamp == nil && !keep[j.Name] {
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(a, b *batchv1.Job) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return compareNames(a.Name, b.Name)
	})
	return out[:min(len(out), MaxDeletesPerPass)]
}

// compareNames orders Job names <uid>.<metric>.<n> by n (then as strings):
// Jobs created in the same second keep their measurement order.
func compareNames(a, b string) int {
	na, nb := number(a), number(b)
	if na != nb {
		return cmp.Compare(na, nb)
	}
	return strings.Compare(a, b)
}

func number(name string) int {
	n, err := strconv.Atoi(name[strings.LastIndex(name, ".")+1:])
	if err != nil {
		return -1
	}
	return n
}
