package dashboard

import (
	"strconv"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
	"github.com/ramp-rollouts/ramp/internal/view"
)

// Row is a rollout's line in the dashboard's list: the CLI's row and what
// the list shows beyond it, all read from the Rollout alone (the list and
// every live change cost no other lookup).
type Row struct {
	view.RolloutRow
	Message string `json:"message,omitempty"`
	// ActualWeight is the canary's traffic share: the router's weight with
	// traffic routing, else the updated pods' share; "-" for blue-green.
	ActualWeight string `json:"actualWeight"`
	// Images are the pod template's container images.
	Images []string `json:"images,omitempty"`
	// StepSince is when the current pause began (the age of the current
	// step while paused); the Rollout records no start of other steps.
	StepSince *time.Time `json:"stepSince,omitempty"`
}

func rowOf(ro *rampv1.Rollout) Row {
	r := Row{RolloutRow: view.Row(ro), Message: ro.Status.Message, ActualWeight: "-"}
	if c := ro.Spec.Strategy.Canary; c != nil {
		r.ActualWeight = strconv.Itoa(int(routedWeight(ro)))
	}
	if t := ro.Spec.Template; t != nil {
		for _, c := range t.Spec.Containers {
			r.Images = append(r.Images, c.Image)
		}
	}
	for _, pc := range ro.Status.PauseConditions {
		if t := pc.StartTime.Time; r.StepSince == nil || t.After(*r.StepSince) {
			r.StepSince = &t
		}
	}
	return r
}

// routedWeight is the canary's share of traffic as the Rollout alone says
// it: all once promoted, the router's weight, or the updated pods' share.
func routedWeight(ro *rampv1.Rollout) int32 {
	st := &ro.Status
	switch {
	case st.CurrentPodHash != "" && st.CurrentPodHash == st.StableRS:
		return 100
	case ro.Spec.Strategy.Canary.TrafficRouting != nil:
		if w := st.Canary.Weights; w != nil {
			return w.Canary.Weight
		}
		return 0
	case st.Replicas == 0:
		return 0
	}
	return st.UpdatedReplicas * 100 / st.Replicas
}

// Step is one canary step of the rollout page's timeline.
type Step struct {
	Text string `json:"text"`
	// Pause is the step's pause duration as written, "" for a pause until
	// promoted; absent for other steps.
	Pause *string `json:"pause,omitempty"`
}

// Timeline is the canary's steps, where the rollout is among them, and
// when a running timed pause ends.
type Timeline struct {
	Steps   []Step `json:"steps"`
	Current int32  `json:"current"`
	// PauseEndsAt is when the current timed pause step ends.
	PauseEndsAt *time.Time `json:"pauseEndsAt,omitempty"`
}

func timelineOf(ro *rampv1.Rollout) *Timeline {
	c := ro.Spec.Strategy.Canary
	if c == nil || len(c.Steps) == 0 {
		return nil
	}
	tl := &Timeline{Steps: make([]Step, 0, len(c.Steps))}
	if i := ro.Status.CurrentStepIndex; i != nil {
		tl.Current = *i
	}
	for _, st := range c.Steps {
		s := Step{Text: plan.DescribeStep(st)}
		if st.Pause != nil {
			d := ""
			if st.Pause.Duration != nil {
				d = st.Pause.Duration.String()
			}
			s.Pause = &d
		}
		tl.Steps = append(tl.Steps, s)
	}
	tl.PauseEndsAt = pauseEnd(ro, c.Steps, tl.Current)
	return tl
}

// pauseEnd is when the timed pause step at index i ends, nil unless the
// rollout is paused there. The start is the precise one the controller
// records, else the end of the condition's second (as the controller counts).
func pauseEnd(ro *rampv1.Rollout, steps []rampv1.CanaryStep, i int32) *time.Time {
	if i < 0 || int(i) >= len(steps) || steps[i].Pause == nil {
		return nil
	}
	d, err := plan.PauseDuration(steps[i].Pause.Duration)
	if err != nil || d == nil {
		return nil
	}
	for _, pc := range ro.Status.PauseConditions {
		if pc.Reason != rampv1.PauseReasonCanaryPauseStep {
			continue
		}
		start := pc.StartTime.Add(time.Second)
		if p := ro.Status.Canary.PauseStartTime; p != nil {
			start = p.Time
		}
		end := start.Add(*d)
		return &end
	}
	return nil
}
