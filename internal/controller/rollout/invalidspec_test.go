package rollout_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// invalidCase is one cause of InvalidSpec: the Rollout and the objects
// around it.
type invalidCase struct {
	canary string // webRollout's canary body
	change func(*rampv1.Rollout)
	objs   []client.Object
}

func invalidCases() map[string]invalidCase {
	services := []client.Object{service("web-canary"), service("web-stable")}
	withServices := "      canaryService: web-canary\n      stableService: web-stable\n"
	lacking := service("web-stable")
	lacking.Spec.Selector = map[string]string{"tier": "front", "app": "web", "zone": "a", "team": "x"}
	managed := service("web-stable")
	managed.Annotations = map[string]string{rampv1.ManagedByRolloutsAnnotation: "other"}
	return map[string]invalidCase{
		"invalid selector": {change: func(ro *rampv1.Rollout) {
			ro.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}
		}},
		"selector does not match the labels": {change: func(ro *rampv1.Rollout) { ro.Spec.Template.Labels = map[string]string{"app": "x", "b": "y", "c": "z"} }},
		"selector selects everything":        {change: func(ro *rampv1.Rollout) { ro.Spec.Selector = &metav1.LabelSelector{} }},
		"no template":                        {change: func(ro *rampv1.Rollout) { ro.Spec.Template = nil }},
		"no strategy":                        {change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary = nil }},
		"missing Service":                    {canary: withServices, objs: []client.Object{service("web-canary")}},
		"Service selects a label pods lack":  {canary: withServices, objs: []client.Object{service("web-canary"), lacking}},
		"Service managed by another Rollout": {canary: withServices, objs: []client.Object{service("web-canary"), managed}},
		"unsupported router":                 {canary: withServices + "      trafficRouting: {ambassador: {mappings: [web]}}\n", objs: services},
		"route object missing": {canary: withServices + "      trafficRouting: {nginx: {stableIngress: web}}\n      steps: [{setWeight: 20}]\n",
			objs: services},
		"invalid step":                  {canary: "      steps: [{setWeight: 150}, {pause: {duration: -1}}]\n"},
		"maxSurge and maxUnavailable 0": {canary: "      maxSurge: 0\n      maxUnavailable: 0\n"},
		"missing AnalysisTemplate":      {canary: "      steps: [{analysis: {templates: [{templateName: gone}, {templateName: gone2}]}}]\n"},
		"missing analysis argument": {canary: "      analysis: {templates: [{templateName: needs-arg}]}\n",
			objs: []client.Object{&rampv1.AnalysisTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "needs-arg"},
				Spec: rampv1.AnalysisTemplateSpec{Args: []rampv1.Argument{{Name: "a"}, {Name: "b"}}, Metrics: []rampv1.Metric{{Name: "m",
					Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x/{{args.a}}/{{args.b}}"}}}}}}}},
		"workloadRef to a missing Deployment": {change: func(ro *rampv1.Rollout) {
			ro.Spec.Template, ro.Spec.WorkloadRef = nil, &rampv1.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "gone"}
		}},
		"workloadRef to another kind": {change: func(ro *rampv1.Rollout) {
			ro.Spec.Template, ro.Spec.WorkloadRef = nil, &rampv1.ObjectRef{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web"}
		}},
		"blue-green without its active Service": {change: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy = rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{ActiveService: "active", PreviewService: "preview"}}
		}},
	}
}

// TestInvalidSpecIsStable: for every cause of InvalidSpec, once the
// condition is written, another pass writes nothing: no status patch, no
// Event. The message is deterministic (a message built from a map's order
// rewrote the status and repeated the Event on every pass).
func TestInvalidSpecIsStable(t *testing.T) {
	for name, c := range invalidCases() {
		t.Run(name, func(t *testing.T) {
			ro := webRollout(t, c.canary)
			if c.change != nil {
				c.change(ro)
			}
			env, r := newEnv(t, append(c.objs, ro)...)
			var msg string
			for range 3 { // a routed Rollout's first pass adds its finalizer
				if _, err := pass(r, "web"); err != nil {
					t.Fatal(err)
				}
				if cond := condition(getRollout(t, env, "web").Status, rampv1.RolloutInvalidSpec); cond != nil {
					msg = cond.Message
					break
				}
			}
			if msg == "" {
				t.Fatalf("no InvalidSpec; writes %v", env.Log())
			}
			for i := range 3 {
				mark := len(env.Log())
				if _, err := pass(r, "web"); err != nil {
					t.Fatal(err)
				}
				if w := env.Since(mark); len(w) > 0 {
					t.Errorf("pass %d after InvalidSpec %q wrote %v", i+2, msg, w)
				}
			}
		})
	}
}
