package plan

import (
	"strings"
	"time"
)

// SimOptions shape a simulated update.
type SimOptions struct {
	// Replicas plans for this many replicas instead of spec.replicas (0:
	// spec.replicas), e.g. what an HPA scaled the Rollout to.
	Replicas int32
	// HPA: an HPA targets the Rollout (Input.HPAs).
	HPA bool
}

// Strategies of a Trajectory.
const (
	StrategyCanary    = "canary"
	StrategyBlueGreen = "blueGreen"
)

// Trajectory is one update of a Rollout as the controller's own planner
// (Canary or BlueGreen) runs it in the simulator: from a first revision
// deployed and settled (Initial) to the next one, one Point per settled
// point on the way.
type Trajectory struct {
	Strategy string // StrategyCanary or StrategyBlueGreen
	Replicas int32
	// Surge and Unavailable are the canary's maxSurge and maxUnavailable
	// resolved for Replicas.
	Surge, Unavailable int32
	// Routed is set with trafficRouting; MaxWeight is maxTrafficWeight.
	Routed    bool
	MaxWeight int32
	// TakesFromStable: the canary's pods come from stable (an HPA targets a
	// routed canary without hpa-accounting: surge), which keeps MinPods.
	TakesFromStable bool
	MinPods         int32
	// Background names the templates of the canary's background analysis
	// (none when unset), which starts at step BackgroundFrom.
	Background     []string
	BackgroundFrom int32
	// Preview is a blue-green update's ReplicaSet size before promotion.
	Preview int32
	Initial Point
	Points  []Point
	// Stalled: the last point is a step the planner never moves past.
	Stalled bool
}

// Kinds of Point.
const (
	PointStep       = "step"      // canary step Index done
	PointComplete   = "complete"  // the new ReplicaSet became stable
	PointScaledDown = "scaleDown" // the previous ReplicaSet at 0 (after its delay)
	PointInitial    = "initial"   // the first revision deployed
	// blue-green phases before completion, in order
	PhasePreview       = "preview"       // the new ReplicaSet available at its preview size
	PhasePrePromotion  = "prePromotion"  // prePromotionAnalysis runs
	PhasePromotion     = "promotion"     // paused for promotion (manual or autoPromotionSeconds)
	PhaseScaleUp       = "scaleUp"       // the new ReplicaSet grown from previewReplicaCount to replicas
	PhaseSwitch        = "switch"        // the active Service selects the new ReplicaSet
	PhasePostPromotion = "postPromotion" // postPromotionAnalysis runs
)

// RSState is one ReplicaSet at a point: .spec.replicas and available pods.
type RSState struct{ Spec, Available int32 }

// Point is the world at one settled point of a Trajectory.
type Point struct {
	Kind string
	// Index is the canary step (the number of steps at completion); -1 for
	// blue-green points.
	Index int
	// Step is the step as written ("setWeight: 20"), or the Kind.
	Step string
	// Weight is the canary setWeight in force (units of MaxWeight).
	Weight int32
	// New is the update's ReplicaSet (the canary), Old the previous stable.
	New, Old RSState
	// Traffic is the canary weight the routers hold (trafficRouting).
	Traffic int32
	// HPAPods are the pods an HPA targeting the Rollout counts (the /scale
	// view: every pod of a canary, the active ReplicaSet's of a blue-green).
	HPAPods int32
	// Active is what a blue-green active Service selects: "old" or "new".
	Active string
	// Peak is the most pods at once while moving into this point (0 when
	// no ReplicaSet changed size).
	Peak int32
	// Gate is what held the update here and the simulator opened.
	Gate Gate
	// Delay is how long the previous ReplicaSet waits before going to 0
	// (scaleDownDelaySeconds), at PointComplete.
	Delay   time.Duration
	Stalled bool
}

// Gate is what holds an update at a step or phase until it may go on.
type Gate struct {
	// Pause is set when the update pauses: for Duration, or until promoted
	// when Duration is nil.
	Pause    bool
	Duration *time.Duration
	// Analysis names the AnalysisTemplates whose run must succeed.
	Analysis []string
	// Other is a step kind that waits on something else (experiment,
	// setHeaderRoute, setMirrorRoute): what it waits for.
	Other string
}

// SpecError is a Rollout the controller would not run: the InvalidSpec
// messages it would report, each naming its field.
type SpecError struct{ Messages []string }

func (e *SpecError) Error() string { return strings.Join(e.Messages, "; ") }

// Unsupported reports whether a SpecError message is a limit of this
// version of Ramp rather than a mistake in the manifest.
func Unsupported(msg string) bool {
	return strings.Contains(msg, "not supported by this version of Ramp")
}
