package plan

import (
	"fmt"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// How a simulated update describes the steps and gates it meets.

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
		d, _ := PauseDuration(s.Pause.Duration)
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
