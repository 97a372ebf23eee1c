//go:build conformance

package conformance

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Experiments (standalone and as a canary step) and the canary's replica
// controls under traffic routing (setCanaryScale, dynamicStableScale).

// experimentTemplate renders one template of a standalone Experiment (pods
// app=exp-<name>).
func experimentTemplate(name string, replicas int) string {
	return fmt.Sprintf(`  - name: %[1]s
    replicas: %[2]d
    selector: {matchLabels: {app: exp-%[1]s}}
    template:
      metadata: {labels: {app: exp-%[1]s}}
      spec: {containers: [{name: app, image: "registry.example/app:%[1]s"}]}
`, name, replicas)
}

// experimentIs: the Experiment named name has phase p and, when running,
// every template Running.
func experimentIs(name, p string) cond {
	return cond{desc: "experiment " + name + " " + p, world: func(w *world) error {
		for _, e := range w.experiments {
			if e.GetName() != name {
				continue
			}
			if got, _, _ := unstructured.NestedString(e.Object, "status", "phase"); got != p {
				return fmt.Errorf("experiment %s phase %q", name, got)
			}
			if p == "Running" {
				return templatesRunning(&e)
			}
			return nil
		}
		return fmt.Errorf("no experiment %s", name)
	}}
}

// templatesRunning: every template of the Experiment Running, and every
// analysis it names recorded (in whatever phase: upstream records a run's
// later phases only when the Experiment is reconciled for another reason,
// see the improvement experiment-current-analysis-status).
func templatesRunning(e *unstructured.Unstructured) error {
	ts, _, _ := unstructured.NestedSlice(e.Object, "status", "templateStatuses")
	if len(ts) == 0 {
		return fmt.Errorf("experiment %s: no template statuses", e.GetName())
	}
	for _, t := range ts {
		t, _ := t.(map[string]any)
		if t["status"] != "Running" {
			return fmt.Errorf("experiment %s: template %v %v", e.GetName(), t["name"], t["status"])
		}
	}
	want, _, _ := unstructured.NestedSlice(e.Object, "spec", "analyses")
	runs, _, _ := unstructured.NestedSlice(e.Object, "status", "analysisRuns")
	if len(runs) != len(want) {
		return fmt.Errorf("experiment %s: %d of %d analyses recorded", e.GetName(), len(runs), len(want))
	}
	return nil
}

// experimentsScaledDown: every ReplicaSet without a revision (an
// experiment's) at zero.
var experimentsScaledDown = func(w *world) error {
	for _, rs := range w.replicaSets {
		if rs.GetAnnotations()["rollout.argoproj.io/revision"] != "" {
			continue
		}
		if n, _, _ := unstructured.NestedInt64(rs.Object, "spec", "replicas"); n != 0 {
			return fmt.Errorf("replicaset %s still has %d replicas", rs.GetName(), n)
		}
	}
	return nil
}

// atExperimentStep: the Rollout at step i with its experiment's templates
// running.
func atExperimentStep(i int64) cond {
	return cond{desc: fmt.Sprintf("at step %d with the experiment running", i), ok: func(r *unstructured.Unstructured) error {
		if idx, _, _ := unstructured.NestedInt64(r.Object, "status", "currentStepIndex"); idx != i {
			return fmt.Errorf("currentStepIndex %d", idx)
		}
		return nil
	}, world: func(w *world) error {
		if len(w.experiments) != 1 {
			return fmt.Errorf("%d experiments", len(w.experiments))
		}
		e := &w.experiments[0]
		if got, _, _ := unstructured.NestedString(e.Object, "status", "phase"); got != "Running" {
			return fmt.Errorf("experiment %s phase %q", e.GetName(), got)
		}
		return templatesRunning(e)
	}}
}

// experiment renders the Experiment "exp": its duration (and any further
// spec lines), the templates, and one analysis "web" of the named template.
func experiment(duration, analysisTemplate, templates string) string {
	return "apiVersion: argoproj.io/v1alpha1\nkind: Experiment\nmetadata: {name: exp}\nspec:\n  duration: " + duration +
		"\n  templates:\n" + templates + "  analyses:\n  - name: web\n    templateName: " + analysisTemplate + "\n"
}

// templateStored: the scenario's AnalysisTemplate is applied and a settled
// point has passed. Only then is the Experiment that names it created:
// upstream ends an Experiment in Error when its informer has not seen the
// template yet, a race of the two applies, not a behaviour to compare.
var templateStored = cond{desc: "the AnalysisTemplate stored", world: func(*world) error { return nil }}

// applyManifest applies a manifest in the scenario's namespace.
func applyManifest(yaml string) func(context.Context, *actor) error {
	return func(ctx context.Context, a *actor) error {
		return a.kubectl(ctx, yaml, "apply", "--server-side", "-f", "-")
	}
}

func experimentScenarios() []scenario {
	web := webTemplate("web", "experiment-standalone", "2s")
	_ = setMetric("experiment-standalone", "10")(context.Background(), nil) // passing from the start
	_ = setMetric("experiment-retry", "10")(context.Background(), nil)      // passing until the step "fail"
	return []scenario{{
		// Two templates for 10 s with a background web analysis, then the
		// templates' scale-down after the experiment's delay.
		name:    "experiment-standalone",
		yaml:    web,
		initial: templateStored,
		steps: []step{
			{name: "create", do: applyManifest(experiment("10s\n  scaleDownDelaySeconds: 5", "web",
				experimentTemplate("baseline", 1)+experimentTemplate("canary", 2))), until: experimentIs("exp", "Running")},
			{name: "duration", until: experimentIs("exp", "Successful")},
			{name: "delay over", until: cond{desc: "experiment scaled down", world: experimentsScaledDown}},
		},
	}, {
		// The plugin's `retry experiment` sends {"status":null} to the
		// main resource (Experiments have no status subresource): a failed
		// Experiment starts over. The metric passes at first, so that both
		// controllers record the run before it fails (a run failing at its
		// first measurement races the record, on either side).
		name:    "experiment-retry",
		ci:      true,
		yaml:    webTemplate("web-retry", "experiment-retry", "2s"),
		initial: templateStored,
		steps: []step{
			{name: "create", do: applyManifest(experiment("20s", "web-retry", experimentTemplate("canary", 1))),
				until: experimentIs("exp", "Running")},
			{name: "fail", do: setMetric("experiment-retry", "0"), until: experimentIs("exp", "Failed")},
			{name: "retry passing", do: then(setMetric("experiment-retry", "10"), plugin("retry", "experiment", "exp")),
				until: experimentIs("exp", "Successful")},
		},
	}, {
		name: "experiment-step",
		yaml: rollout(4, "    canary:\n      steps:\n      - setWeight: 25\n"+
			"      - experiment:\n          duration: 10s\n          templates:\n"+
			"          - {name: canary, specRef: canary, replicas: 1}\n"+
			"          - {name: baseline, specRef: stable, replicas: 1}\n"+
			"      - pause: {}"),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: atExperimentStep(1)},
			{name: "experiment", until: pausedAt(2)},
			{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")},
			{name: "delay over", until: cond{desc: "healthy with experiments scaled down", ok: healthy.ok, world: experimentsScaledDown}},
		},
	}, {
		name: "canary-scale-routed",
		pre:  canaryServices + istioHostVS,
		yaml: rollout(4, routedCanary("        istio: {virtualService: {name: vsvc, routes: [primary]}}",
			"      steps:\n"+
				"      - setCanaryScale: {replicas: 1}\n"+
				"      - setWeight: 25\n"+
				"      - pause: {}\n"+
				"      - setCanaryScale: {weight: 50}\n"+
				"      - pause: {}\n"+
				"      - setCanaryScale: {matchTrafficWeight: true}\n"+
				"      - setWeight: 75\n"+
				"      - pause: {}")),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: pausedAt(2)},
			{name: "promote", do: promote, until: pausedAt(4)},
			{name: "promote", do: promote, until: pausedAt(7)},
			{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")},
			{name: "delay over", until: oldScaledDown},
		},
	}, {
		name: "canary-dynamic-stable-scale",
		pre:  canaryServices + istioHostVS,
		yaml: rollout(4, routedCanary("        istio: {virtualService: {name: vsvc, routes: [primary]}}",
			"      dynamicStableScale: true\n"+twoPauses[len("    canary:\n"):])),
		initial: healthy,
		steps: append(abortRetrySteps(),
			step{name: "promote full", do: promoteFull, until: healthyWith("registry.example/app:v2")},
			step{name: "delay over", until: oldScaledDown}),
	}}
}
