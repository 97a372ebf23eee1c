package plan

import (
	"fmt"
	"strings"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Gate is what holds an update at a step or phase until it may go on.
type Gate struct {
	// Pause is set when the update pauses: for Duration, or until promoted
	// when Duration is nil.
	Pause    bool
	Duration *time.Duration
	// Analysis names the AnalysisTemplates whose run must succeed.
	Analysis []string
	// Other is a step kind that waits on something else (experiment, plugin,
	// setHeaderRoute, setMirrorRoute): its name.
	Other string
}

// CanaryForecast is what one update of a canary Rollout does, step by step,
// from a settled stable revision to the new one: the sizes the controller's
// replica math (Budget, Basic) gives, or with trafficRouting its routed
// scaling (routedScale), with every pod available at once.
type CanaryForecast struct {
	Replicas           int32
	Surge, Unavailable int32 // maxSurge and maxUnavailable resolved for Replicas
	// Routed is set with trafficRouting; MaxWeight is maxTrafficWeight.
	Routed    bool
	MaxWeight int32
	// FromStable is set when the canary's pods are taken from stable (an HPA
	// targets a routed canary without hpa-accounting: surge), keeping
	// MinPods each; Dynamic when stable shrinks as the canary grows (that,
	// or dynamicStableScale).
	FromStable, Dynamic bool
	MinPods             int32
	Steps               []ForecastStep
	// Background names the templates of the background analysis (none when
	// unset) and From the step at which it starts.
	Background     []string
	BackgroundFrom int32
}

// ForecastStep is one canary step, or the completion after the last step
// (Index == number of steps, Step "complete").
type ForecastStep struct {
	Index int
	Step  string // the step as written, e.g. "setWeight: 20", "pause: 10s"
	// Weight is the setWeight in force (percent, or units of maxTrafficWeight).
	Weight int32
	// Canary and Stable are the pods once the step has settled; Traffic is
	// the canary weight the routers then hold (trafficRouting only).
	Canary, Stable, Traffic int32
	// Upstream is the pods Argo Rollouts would run once the step settles.
	Upstream int32
	// Stalled is set when the step cannot complete: a dynamic canary with no
	// room to grow to its pods within replicas+1. The forecast ends there.
	Stalled bool
	// Delay is how long the previous stable stays up after the hand-over of
	// a traffic-routed canary (scaleDownDelaySeconds; 0 when it is already
	// going to 0 as the stable Service leaves it).
	Delay time.Duration
	// Peak is the most pods that exist at once while moving into this step,
	// pods being scaled down included (0 when nothing moves); Rounds counts
	// the reconciles the move takes.
	Peak   int32
	Rounds int
	Gate   Gate
}

// ForecastCanary walks an update of a canary Rollout through its steps with
// replicas pods (0: spec.replicas), hpa telling whether an HPA targets it.
// It fails when maxSurge or maxUnavailable is malformed, as the controller
// would (InvalidSpec).
func ForecastCanary(ro *rampv1.Rollout, replicas int32, hpa bool) (CanaryForecast, error) {
	c := ro.Spec.Strategy.Canary
	if c == nil {
		return CanaryForecast{}, fmt.Errorf("spec.strategy.canary: not set")
	}
	n := replicas
	if n <= 0 {
		n = ro.Replicas()
	}
	surge, unavailable, err := Budget(n, c.MaxSurge, c.MaxUnavailable)
	if err != nil {
		return CanaryForecast{}, fmt.Errorf("spec.strategy.canary: %w", err)
	}
	f := CanaryForecast{Replicas: n, Surge: surge, Unavailable: unavailable, MaxWeight: c.MaxTrafficWeight()}
	if a := c.Analysis; a != nil {
		f.Background = templateNames(&a.RolloutAnalysis)
		if a.StartingStep != nil {
			f.BackgroundFrom = *a.StartingStep
		}
	}
	if c.TrafficRouting != nil {
		forecastRouted(&f, ro, hpa)
		return f, nil
	}
	canary, stable := int32(0), n
	for i := 0; i <= len(c.Steps); i++ {
		st := ForecastStep{Index: i, Step: "complete", Weight: weightAt(c.Steps, int32(i))}
		if i < len(c.Steps) {
			st.Step, st.Gate = stepText(c.Steps[i]), stepGate(c.Steps[i])
		}
		canary, stable, st.Peak, st.Rounds = settle(Basic{N: n, Surge: surge, Unavailable: unavailable, Weight: st.Weight}, canary, stable)
		st.Canary, st.Stable, st.Upstream = canary, stable, canary+stable
		f.Steps = append(f.Steps, st)
	}
	return f, nil
}

// settle repeats Basic.Next from settled sizes until nothing moves,
// growing only into room that is free now (as the reconciler does), every
// pod available at once. It returns the new sizes, the peak pod count and
// the rounds.
func settle(b Basic, canary, stable int32) (c, s, peak int32, rounds int) {
	for ; rounds < 1000; rounds++ {
		b.Canary = RS{Spec: canary, Replicas: canary, Available: canary}
		b.Stable = &RS{Spec: stable, Replicas: stable, Available: stable}
		nc, ns := b.Next()
		room := max(b.N+b.Surge-canary-stable, 0)
		if grow := ns - stable; grow > 0 {
			ns = stable + min(grow, room)
			room -= min(grow, room)
		}
		if grow := nc - canary; grow > 0 {
			nc = canary + min(grow, room)
		}
		if nc == canary && ns == stable {
			break
		}
		peak = max(peak, max(canary, nc)+max(stable, ns))
		canary, stable = nc, ns
	}
	return canary, stable, peak, rounds
}

// stepText is a step as written in the manifest, in short.
func stepText(s rampv1.CanaryStep) string {
	switch {
	case s.SetWeight != nil:
		return fmt.Sprintf("setWeight: %d", *s.SetWeight)
	case s.Pause != nil && s.Pause.Duration != nil:
		return "pause: " + s.Pause.Duration.String()
	case s.Pause != nil:
		return "pause"
	case s.SetCanaryScale != nil:
		sc := s.SetCanaryScale
		switch {
		case sc.Replicas != nil:
			return fmt.Sprintf("setCanaryScale: replicas %d", *sc.Replicas)
		case sc.Weight != nil:
			return fmt.Sprintf("setCanaryScale: weight %d", *sc.Weight)
		}
		return "setCanaryScale: matchTrafficWeight"
	case s.Analysis != nil:
		return "analysis"
	case s.Experiment != nil:
		return "experiment"
	case s.SetHeaderRoute != nil:
		return "setHeaderRoute: " + s.SetHeaderRoute.Name
	case s.SetMirrorRoute != nil:
		return "setMirrorRoute: " + s.SetMirrorRoute.Name
	case s.Plugin != nil:
		return "plugin: " + s.Plugin.Name
	}
	return "(empty step)"
}

// stepGate is what a step waits for besides its pods.
func stepGate(s rampv1.CanaryStep) Gate {
	switch {
	case s.Pause != nil:
		d, _ := PauseDuration(s.Pause.Duration) // invalid: forecast as a pause until promoted, and ValidateRollout reports it
		return Gate{Pause: true, Duration: d}
	case s.Analysis != nil:
		return Gate{Analysis: templateNames(s.Analysis)}
	case s.Experiment != nil:
		return Gate{Other: experimentGate(s.Experiment)}
	case s.SetHeaderRoute != nil, s.SetMirrorRoute != nil:
		return Gate{Other: strings.SplitN(stepText(s), ":", 2)[0]}
	case s.Plugin != nil:
		return Gate{Other: "plugin " + s.Plugin.Name}
	}
	return Gate{}
}

// templateNames lists an analysis' templates, cluster-scoped ones marked.
func templateNames(a *rampv1.RolloutAnalysis) []string {
	var out []string
	for _, t := range a.Templates {
		name := t.TemplateName
		if t.IsClusterScope() {
			name = "cluster/" + name
		}
		out = append(out, name)
	}
	return out
}

// experimentGate is "Experiment of baseline (stable), canary (canary) for
// 10m, analyses mw: ends Successful".
func experimentGate(e *rampv1.RolloutExperimentStep) string {
	var ts, as []string
	for _, t := range e.Templates {
		ts = append(ts, fmt.Sprintf("%s (%s)", t.Name, t.SpecRef))
	}
	g := "an Experiment of " + strings.Join(ts, ", ")
	if e.Duration != "" {
		g += " for " + string(e.Duration)
	}
	for _, a := range e.Analyses {
		as = append(as, a.Name)
	}
	if len(as) > 0 {
		g += ", analyses " + strings.Join(as, ", ")
	}
	return g + " to succeed (otherwise abort)"
}
