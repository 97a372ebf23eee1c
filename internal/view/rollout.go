package view

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Rollout builds the display model of ro. rss are its ReplicaSets, pods the
// pods they own and runs its AnalysisRuns; the caller selects them (by owner).
// now only computes ages and remaining delays.
func Rollout(ro *rampv1.Rollout, rss []appsv1.ReplicaSet, pods []corev1.Pod, runs []rampv1.AnalysisRun, now time.Time) RolloutView {
	st := &ro.Status
	v := RolloutView{
		Name:      ro.Name,
		Namespace: ro.Namespace,
		Strategy:  strategyOf(ro),
		Replicas: Replicas{
			Desired:   ro.Replicas(),
			Current:   st.Replicas,
			Updated:   st.UpdatedReplicas,
			Ready:     st.ReadyReplicas,
			Available: st.AvailableReplicas,
		},
		Age: Age(ro.CreationTimestamp.Time, now),
	}
	v.Status, v.Message = phaseOf(ro)
	if c := ro.Spec.Strategy.Canary; c != nil {
		if n := len(c.Steps); n > 0 {
			v.Step = fmt.Sprintf("%d/%d", stepIndex(ro), n)
		}
		set := setWeight(ro)
		actual := actualWeight(ro, rss)
		v.SetWeight, v.ActualWeight = &set, &actual
	}
	v.Revisions, v.AnalysisRuns = revisions(ro, rss, pods, runs, now)
	v.Images = images(v.Revisions, rss)
	return v
}

// Row is ro's line in the list table; it needs only the Rollout.
func Row(ro *rampv1.Rollout) RolloutRow {
	st := &ro.Status
	status, _ := phaseOf(ro)
	r := RolloutRow{
		Namespace: ro.Namespace,
		Name:      ro.Name,
		Strategy:  strategyOf(ro),
		Status:    status.Name,
		Step:      "-",
		SetWeight: "-",
		Ready:     fmt.Sprintf("%d/%d", st.ReadyReplicas, st.Replicas),
		Desired:   ro.Replicas(),
		UpToDate:  st.UpdatedReplicas,
		Available: st.AvailableReplicas,
	}
	if c := ro.Spec.Strategy.Canary; c != nil {
		if n := len(c.Steps); n > 0 {
			r.Step = fmt.Sprintf("%d/%d", stepIndex(ro), n)
		}
		r.SetWeight = strconv.Itoa(int(setWeight(ro)))
	}
	return r
}

func strategyOf(ro *rampv1.Rollout) string {
	if ro.Spec.Strategy.BlueGreen != nil {
		return "BlueGreen"
	}
	return "Canary"
}

// phaseOf is status.phase with its symbol and status.message; until the
// controller has seen the current generation the Rollout is Progressing.
func phaseOf(ro *rampv1.Rollout) (Status, string) {
	if ro.Generation != 0 && ro.Status.ObservedGeneration != strconv.FormatInt(ro.Generation, 10) {
		return Status{Name: string(rampv1.RolloutPhaseProgressing), Icon: IconProgressing},
			"waiting for rollout spec update to be observed"
	}
	p := ro.Status.Phase
	switch p {
	case rampv1.RolloutPhaseHealthy:
		return Status{Name: string(p), Icon: IconOK}, ro.Status.Message
	case rampv1.RolloutPhasePaused:
		return Status{Name: string(p), Icon: IconPaused}, ro.Status.Message
	case rampv1.RolloutPhaseDegraded:
		return Status{Name: string(p), Icon: IconBad}, ro.Status.Message
	case rampv1.RolloutPhaseProgressing, "":
		return Status{Name: string(rampv1.RolloutPhaseProgressing), Icon: IconProgressing}, ro.Status.Message
	}
	return Status{Name: string(p), Icon: IconUnknown}, ro.Status.Message
}

// stepIndex is status.currentStepIndex, 0 when unset.
func stepIndex(ro *rampv1.Rollout) int32 {
	if i := ro.Status.CurrentStepIndex; i != nil {
		return *i
	}
	return 0
}

// setWeight is the canary weight in force: 0 while aborted, the last
// setWeight at or before the current step, 100 once every step is done.
func setWeight(ro *rampv1.Rollout) int32 {
	if ro.Status.Abort {
		return 0
	}
	steps := ro.Spec.Strategy.Canary.Steps
	i := int(stepIndex(ro))
	if i >= len(steps) {
		return 100
	}
	for j := i; j >= 0; j-- {
		if w := steps[j].SetWeight; w != nil {
			return *w
		}
	}
	return 0
}

// actualWeight is the share of traffic the canary gets: all of it once the
// update is promoted; with a traffic router, the weight last set on it;
// without one, the canary's share of the available pods.
func actualWeight(ro *rampv1.Rollout, rss []appsv1.ReplicaSet) int32 {
	st := &ro.Status
	if st.CurrentPodHash != "" && st.CurrentPodHash == st.StableRS {
		return 100
	}
	if ro.Spec.Strategy.Canary.TrafficRouting != nil {
		if w := st.Canary.Weights; w != nil {
			return w.Canary.Weight
		}
		return 0
	}
	if st.AvailableReplicas == 0 {
		return 0
	}
	for i := range rss {
		if rss[i].Labels[rampv1.DefaultRolloutUniqueLabelKey] == st.CurrentPodHash {
			return rss[i].Status.AvailableReplicas * 100 / st.AvailableReplicas
		}
	}
	return 0
}
