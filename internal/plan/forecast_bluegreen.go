package plan

import (
	"fmt"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Phases of a blue-green update, in order.
const (
	PhasePreview       = "preview"       // the new ReplicaSet comes up behind the preview Service
	PhasePrePromotion  = "prePromotion"  // prePromotionAnalysis runs
	PhasePromotion     = "promotion"     // the promotion gate: auto, timed or manual
	PhaseScaleUp       = "scaleUp"       // the new ReplicaSet grows from previewReplicaCount to replicas
	PhaseSwitch        = "switch"        // the active Service selects the new ReplicaSet
	PhasePostPromotion = "postPromotion" // postPromotionAnalysis runs
	PhaseScaleDown     = "scaleDown"     // the previous ReplicaSet goes to 0
)

// BlueGreenForecast is what one update of a blue-green Rollout does, phase
// by phase, as the controller's blue-green planner runs it.
type BlueGreenForecast struct {
	Replicas int32
	// Preview is the new ReplicaSet's size before promotion.
	Preview                       int32
	ActiveService, PreviewService string
	Phases                        []ForecastPhase
}

// ForecastPhase is one phase of a blue-green update.
type ForecastPhase struct {
	Phase string // one of the Phase* constants
	// Old and New are the pods of the previously active and of the new
	// ReplicaSet during the phase.
	Old, New int32
	// Active is the ReplicaSet the active Service selects: "old" or "new".
	Active string
	Gate   Gate
	// Delay is how long the phase waits before it acts (scale-down delay).
	Delay time.Duration
}

// ForecastBlueGreen walks an update of a blue-green Rollout with replicas
// pods (0: spec.replicas).
func ForecastBlueGreen(ro *rampv1.Rollout, replicas int32) (BlueGreenForecast, error) {
	b := ro.Spec.Strategy.BlueGreen
	if b == nil {
		return BlueGreenForecast{}, fmt.Errorf("spec.strategy.blueGreen: not set")
	}
	n := replicas
	if n <= 0 {
		n = ro.Replicas()
	}
	preview := n
	if p := b.PreviewReplicaCount; p != nil {
		preview = min(max(*p, 0), n)
	}
	f := BlueGreenForecast{Replicas: n, Preview: preview, ActiveService: b.ActiveService, PreviewService: b.PreviewService}
	add := func(phase string, newPods int32, active string, g Gate) {
		f.Phases = append(f.Phases, ForecastPhase{Phase: phase, Old: n, New: newPods, Active: active, Gate: g})
	}
	add(PhasePreview, preview, "old", Gate{})
	if a := b.PrePromotionAnalysis; a != nil {
		add(PhasePrePromotion, preview, "old", Gate{Analysis: templateNames(a)})
	}
	add(PhasePromotion, preview, "old", promotionPause(b))
	if preview < n {
		add(PhaseScaleUp, n, "old", Gate{})
	}
	add(PhaseSwitch, n, "new", Gate{})
	if a := b.PostPromotionAnalysis; a != nil {
		add(PhasePostPromotion, n, "new", Gate{Analysis: templateNames(a)})
	}
	f.Phases = append(f.Phases, ForecastPhase{Phase: PhaseScaleDown, Old: 0, New: n, Active: "new",
		Delay: time.Duration(ro.ScaleDownDelaySeconds()) * time.Second})
	return f, nil
}

// promotionPause is the pause before promotion, decided as the planner's
// promotionGate does: autoPromotionEnabled: false pauses until promoted,
// autoPromotionSeconds pauses for that long, otherwise no pause.
func promotionPause(b *rampv1.BlueGreenStrategy) Gate {
	switch {
	case b.AutoPromotionSeconds > 0:
		d := time.Duration(b.AutoPromotionSeconds) * time.Second
		return Gate{Pause: true, Duration: &d}
	case !b.AutoPromotionEnabledOrDefault():
		return Gate{Pause: true}
	}
	return Gate{}
}
