//go:build conformance

package conformance

// The `ramp plan` check: for every scenario that is a plain update of a
// Rollout without analysis, the points plan.Simulate walks (what `ramp
// plan` prints) must be upstream's settled points: the ReplicaSets' desired
// and available replicas of canary and stable and, with trafficRouting, the
// canary weight on the route objects. This is the one file of the harness
// that imports Ramp's code: it checks the controller's planner as `ramp
// plan` runs it offline against upstream's recorded trajectory, not one
// controller against the other.
//
// Compared: canary-1-w50, canary-3-w20, canary-5-w40, canary-10-w33,
// canary-2-w1, canary-2-w99, canary-5-w40-surge0, canary-5-w40-unavail0,
// canary-10-w90-large, canary-timed-pause, canary-antiaffinity,
// canary-min-ready, canary-workload-ref, canary-workload-ref-no-selector,
// bluegreen-preview, bluegreen-scaledown-0 (its intended difference,
// bluegreen-zero-scale-down-delay, is explained as in the harness),
// bluegreen-autopromotion-seconds, bluegreen-preview-replica-count,
// istio-host, istio-subset, istio-header-mirror, nginx, alb,
// alb-header-route, experiment-step (the Experiment taken as Successful,
// as plan does) and canary-scale-routed. With trafficRouting, a scenario
// whose route objects show no canary weight fails: nothing was compared.
//
// Skipped, because the simulation walks one update from create through
// set image, promote and waiting (planSkip says which applies):
//   - abort, retry: canary-abort-retry, canary-metadata, canary-abort-new-image,
//     canary-dynamic-stable-scale, bluegreen-abort-retry;
//   - undo: canary-undo, canary-undo-twice, canary-rollback-window, bluegreen-undo;
//   - promote --full: canary-promote-full-first-pause (and those above);
//   - scale, restart, user pause, skip-step, an unschedulable template:
//     canary-scale-paused, canary-restart, bluegreen-restart, canary-user-pause,
//     canary-skip-step, canary-progress-deadline, canary-progress-deadline-abort;
//   - several updates: bluegreen-revision-limit;
//   - analysis: every analysis-* scenario, and experiment-standalone and
//     experiment-retry (which update no Rollout either);
//   - smi: skipped by the harness itself.

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// planSteps are the step names of a plain update: the update itself, a
// promote, or waiting for the controller.
var planSteps = map[string]bool{"set image": true, "set deployment image": true, "promote": true,
	"delay over": true, "auto promote": true, "experiment": true}

// planSkip says why a scenario is not compared with `ramp plan` ("" to
// compare it).
func planSkip(sc scenario) string {
	manifests := sc.pre + sc.yaml
	switch {
	case sc.skip != "":
		return "skipped by the harness"
	case strings.Contains(manifests, "AnalysisTemplate") || regexp.MustCompile(`(?i)analysis:`).MatchString(manifests):
		return "has analysis"
	case !strings.Contains(sc.yaml, "kind: Rollout"):
		return "no Rollout"
	}
	updates := 0
	for _, st := range sc.steps {
		if !planSteps[st.name] {
			return fmt.Sprintf("step %q is not a plain update", st.name)
		}
		if strings.HasPrefix(st.name, "set ") {
			updates++
		}
	}
	if updates != 1 {
		return fmt.Sprintf("%d updates (the simulation walks one)", updates)
	}
	return ""
}

// planPointFor is the simulated point a step's settled point is: by the
// condition that ended the step.
func planPointFor(tr plan.Trajectory, until string) (plan.Point, string, bool) {
	find := func(kind string, index int) (plan.Point, bool) {
		for _, p := range tr.Points {
			if p.Kind == kind && (index < 0 || p.Index == index) && !p.Stalled {
				return p, true
			}
		}
		return plan.Point{}, false
	}
	if m := regexp.MustCompile(`^(?:paused at step|at step) (\d+)(?: with the experiment running)?$`).FindStringSubmatch(until); m != nil {
		i, _ := strconv.Atoi(m[1])
		p, ok := find(plan.PointStep, i)
		return p, fmt.Sprintf("step %d", i), ok
	}
	switch {
	case until == "paused for promotion":
		p, ok := find(plan.PhasePromotion, -1)
		return p, "promotion", ok
	case until == oldScaledDown.desc:
		if p, ok := find(plan.PointScaledDown, -1); ok {
			return p, "scaleDown", true
		}
		p, ok := find(plan.PointComplete, -1)
		return p, "complete (nothing left to scale down)", ok
	case until == healthy.desc || strings.HasPrefix(until, "healthy "):
		p, ok := find(plan.PointComplete, -1)
		return p, "complete", ok
	}
	return plan.Point{}, "", false
}

// checkPlanTrajectory compares upstream's trajectory of sc with the
// simulated update `ramp plan` prints.
func checkPlanTrajectory(t *testing.T, sc scenario, steps []step, up trajectory) {
	if why := planSkip(sc); why != "" {
		t.Logf("ramp plan not compared: %s", why)
		return
	}
	ro, err := scenarioRollout(sc.yaml)
	if err != nil {
		t.Errorf("ramp plan: %v", err)
		return
	}
	tr, err := plan.Simulate(ro, plan.SimOptions{})
	if err != nil {
		t.Errorf("ramp plan: simulate: %v", err)
		return
	}
	var diffs, intended, compared []string
	routes := map[string]bool{}
	for i, obs := range up.obs {
		p, what, ok := tr.Initial, "initial", i == 0
		if i > 0 {
			p, what, ok = planPointFor(tr, steps[i].until.desc)
		}
		if !ok {
			if what != "" {
				diffs = append(diffs, fmt.Sprintf("after %-12s plan has no point %s:\n%s", steps[i].name, what, planPoints(tr)))
			}
			continue
		}
		compared = append(compared, steps[i].name+" ~ "+what)
		if tr.Routed {
			for key := range routeWeights(ro, obs) {
				routes[key] = true
			}
		}
		for _, c := range planCompare(ro, tr, p, i == 0, obs) {
			line := fmt.Sprintf("after %-12s (plan: %s) %s\n      upstream: %s\n      plan:     %s", steps[i].name, what, c.key, c.upstream, c.plan)
			if imp := explain(sc.name, steps[i].name, c.key, c.upstream, true, c.plan, true); imp != "" {
				intended = append(intended, line+"\n      (intended: "+imp+")")
				continue
			}
			diffs = append(diffs, line)
		}
	}
	t.Logf("ramp plan compared at %s", strings.Join(compared, ", "))
	if tr.Routed {
		if len(routes) == 0 {
			diffs = append(diffs, "no canary weight read on upstream's route objects: nothing to compare the plan's with")
		}
		t.Logf("ramp plan: route weights compared: %s", strings.Join(slices.Sorted(maps.Keys(routes)), ", "))
	}
	if len(intended) > 0 {
		t.Logf("ramp plan: %d intended differences:\n%s", len(intended), strings.Join(intended, "\n"))
	}
	if len(diffs) > 0 {
		t.Errorf("ramp plan differs from upstream's trajectory (%d):\n%s\nplan's points:\n%s", len(diffs), strings.Join(diffs, "\n"), planPoints(tr))
	}
}

// planDiff is one value on which plan and upstream differ.
type planDiff struct{ key, upstream, plan string }

// planCompare lists the differences between a simulated point and an
// upstream observation: the ReplicaSets of revisions 1 (stable) and 2
// (the update) and, with trafficRouting, the canary weight on the routes.
func planCompare(ro *rampv1.Rollout, tr plan.Trajectory, p plan.Point, initial bool, obs observation) []planDiff {
	var out []planDiff
	rs := map[string]plan.RSState{"H1": p.Old, "H2": p.New}
	if initial {
		rs = map[string]plan.RSState{"H1": p.New, "H2": {}}
	}
	for _, rev := range []string{"H1", "H2"} {
		key := fmt.Sprintf("replicaset/%s-%s replicas spec/ready/available", ro.Name, rev)
		want := fmt.Sprintf("%d/%d/%d", rs[rev].Spec, rs[rev].Available, rs[rev].Available)
		got, ok := obs[key]
		switch {
		case !ok && rs[rev] == (plan.RSState{}):
		case !ok:
			out = append(out, planDiff{key, "(absent)", want})
		case got != want:
			out = append(out, planDiff{key, got, want})
		}
	}
	if !tr.Routed {
		return out
	}
	for key, got := range routeWeights(ro, obs) {
		if want := fmt.Sprint(p.Traffic); got != want {
			out = append(out, planDiff{key, got, want})
		}
	}
	return out
}

// routeWeights reads the canary weight off upstream's route objects, by a
// key naming the object: Istio's VirtualService (the routes the Rollout
// names), NGINX's canary Ingress, ALB's forward action of the stable (or
// root) Service.
func routeWeights(ro *rampv1.Rollout, obs observation) map[string]string {
	c := ro.Spec.Strategy.Canary
	out := map[string]string{}
	for key, v := range obs {
		switch {
		case strings.HasPrefix(key, "virtualservice/") && strings.HasSuffix(key, " spec") && c.TrafficRouting.Istio != nil:
			if w, ok := istioCanaryWeight(c, v); ok {
				out[strings.TrimSuffix(key, " spec")+" canary weight"] = w
			}
		case strings.HasSuffix(key, " annotation nginx.ingress.kubernetes.io/canary-weight"):
			out[key] = v
		case c.TrafficRouting.ALB != nil && strings.HasSuffix(key, " annotation alb.ingress.kubernetes.io/actions."+albAction(c)):
			var action struct {
				ForwardConfig struct {
					TargetGroups []struct {
						ServiceName string
						Weight      json.Number
					}
				}
			}
			if json.Unmarshal([]byte(v), &action) == nil {
				for _, tg := range action.ForwardConfig.TargetGroups {
					if tg.ServiceName == c.CanaryService {
						out[key+" canary weight"] = tg.Weight.String()
					}
				}
			}
		}
	}
	return out
}

// albAction is the action annotation holding the weighted split (its
// rootService, or the stable Service); header routes have actions of their
// own, which send everything to the canary.
func albAction(c *rampv1.CanaryStrategy) string {
	if a := c.TrafficRouting.ALB; a.RootService != "" {
		return a.RootService
	}
	return c.StableService
}

// istioCanaryWeight is the weight of the canary destination (its Service,
// or its DestinationRule subset) in the first route the Rollout names.
func istioCanaryWeight(c *rampv1.CanaryStrategy, spec string) (string, bool) {
	var vs struct {
		HTTP []struct {
			Name  string
			Route []struct {
				Destination struct{ Host, Subset string }
				Weight      json.Number
			}
		}
	}
	if json.Unmarshal([]byte(spec), &vs) != nil {
		return "", false
	}
	is := c.TrafficRouting.Istio
	var routes []string
	if is.VirtualService != nil {
		routes = is.VirtualService.Routes
	}
	canarySubset := ""
	if is.DestinationRule != nil {
		canarySubset = is.DestinationRule.CanarySubsetName
	}
	for _, h := range vs.HTTP {
		if len(routes) > 0 && h.Name != routes[0] {
			continue
		}
		for _, d := range h.Route {
			if (canarySubset != "" && d.Destination.Subset == canarySubset) || (canarySubset == "" && d.Destination.Host == c.CanaryService) {
				if d.Weight == "" {
					return "0", true
				}
				return d.Weight.String(), true
			}
		}
	}
	return "", false
}

// scenarioRollout decodes the Rollout among a scenario's manifests.
func scenarioRollout(manifests string) (*rampv1.Rollout, error) {
	for _, doc := range strings.Split(manifests, "\n---\n") {
		if !regexp.MustCompile(`(?m)^kind: Rollout$`).MatchString(doc) {
			continue
		}
		ro := &rampv1.Rollout{}
		if err := yaml.UnmarshalStrict([]byte(doc), ro); err != nil {
			return nil, fmt.Errorf("the scenario's Rollout: %w", err)
		}
		return ro, nil
	}
	return nil, fmt.Errorf("no Rollout among the scenario's manifests")
}

// planPoints renders the simulated points as plan's rows, for a failure.
func planPoints(tr plan.Trajectory) string {
	var b strings.Builder
	for _, p := range append([]plan.Point{tr.Initial}, tr.Points...) {
		fmt.Fprintf(&b, "  %-13s %-24s new %d/%d  old %d/%d  route %d", p.Kind, p.Step, p.New.Spec, p.New.Available, p.Old.Spec, p.Old.Available, p.Traffic)
		if p.Stalled {
			b.WriteString("  (stalls)")
		}
		b.WriteString("\n")
	}
	return b.String()
}
