package rollout_test

import (
	"context"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
	"github.com/ramp-rollouts/ramp/internal/controller/rollout"
)

// faultScenario is a Rollout's story (deployed, then updated by a user)
// and the writes of the reconciler it exercises.
type faultScenario struct {
	objs    func(t *testing.T) []client.Object
	updates []func(*rampv1.Rollout) // a user's changes, each once the last converged
	deleted bool                    // then the user deletes the Rollout
	writes  []controllertest.Match
}

func faultScenarios() map[string]faultScenario {
	image := func(img string) func(*rampv1.Rollout) {
		return func(ro *rampv1.Rollout) { ro.Spec.Template.Spec.Containers[0].Image = img }
	}
	return map[string]faultScenario{
		"canary with analysis and an experiment": {
			objs: func(t *testing.T) []client.Object {
				ro := webRollout(t, `      canaryService: web-canary
      stableService: web-stable
      analysis: {templates: [{templateName: t}], startingStep: 1}
      steps:
      - setWeight: 50
      - analysis: {templates: [{templateName: t}]}
      - experiment: {templates: [{name: x, specRef: canary}]}
      - setWeight: 80
`)
				ro.Spec.RevisionHistoryLimit = new(int32)
				ro.Spec.Analysis = &rampv1.AnalysisRunStrategy{SuccessfulRunHistoryLimit: new(int32)}
				return []client.Object{ro, service("web-canary"), service("web-stable"), analysisTemplate("t")}
			},
			// the Experiment keeps running, so the second update stops it
			// and the first update's background run
			updates: []func(*rampv1.Rollout){image("nginx:2"), image("nginx:3")},
			writes: []controllertest.Match{{Verb: "create", Kind: "ReplicaSet"}, {Verb: "patch", Kind: "ReplicaSet"}, {Verb: "delete", Kind: "ReplicaSet"},
				{Verb: "patch", Kind: "Service"}, {Verb: "create", Kind: "AnalysisRun"}, {Verb: "patch", Kind: "AnalysisRun"},
				{Verb: "delete", Kind: "AnalysisRun"}, {Verb: "create", Kind: "Experiment"}, {Verb: "patch", Kind: "Experiment"},
				{Verb: "patch status", Kind: "Rollout"}, {Verb: "patch", Kind: "Rollout"}},
		},
		"restart": {
			objs: func(t *testing.T) []client.Object { return []client.Object{webRollout(t, "")} },
			updates: []func(*rampv1.Rollout){func(ro *rampv1.Rollout) {
				ro.Spec.RestartAt = &metav1.Time{Time: controllertest.Start.Add(30 * time.Second)}
			}},
			writes: []controllertest.Match{{Verb: "delete", Kind: "Pod"}, {Verb: "patch status", Kind: "Rollout"}},
		},
		"traffic routed": {
			objs: func(t *testing.T) []client.Object {
				ro := webRollout(t, "      canaryService: web-canary\n      stableService: web-stable\n      trafficRouting: {nginx: {stableIngress: web}}\n      steps: [{setWeight: 20}]\n")
				return []client.Object{ro, service("web-canary"), service("web-stable"), ingress("web", "web-stable")}
			},
			updates: []func(*rampv1.Rollout){image("nginx:2")},
			writes:  []controllertest.Match{{Verb: "patch", Kind: "Rollout"}, {Verb: "patch", Kind: "Service"}, {Verb: "patch status", Kind: "Rollout"}},
		},
		"traffic routed, then deleted": {
			objs: func(t *testing.T) []client.Object {
				ro := webRollout(t, "      canaryService: web-canary\n      stableService: web-stable\n      trafficRouting: {nginx: {stableIngress: web}}\n      steps: [{setWeight: 20}, {pause: {}}]\n")
				return []client.Object{ro, service("web-canary"), service("web-stable"), ingress("web", "web-stable")}
			},
			updates: []func(*rampv1.Rollout){image("nginx:2")},
			deleted: true,
			writes:  []controllertest.Match{{Verb: "patch", Kind: "Rollout"}, {Verb: "update", Kind: "Ingress"}, {Verb: "create", Kind: "Ingress"}},
		},
		"ephemeral metadata, undone": {
			objs: func(t *testing.T) []client.Object {
				return []client.Object{webRollout(t, `      canaryMetadata: {labels: {role: canary}}
      stableMetadata: {labels: {role: stable}}
      steps: [{setWeight: 50}]
`)}
			},
			updates: []func(*rampv1.Rollout){image("nginx:2"), image("nginx:1")},
			writes:  []controllertest.Match{{Verb: "patch", Kind: "ReplicaSet"}, {Verb: "patch", Kind: "Pod"}, {Verb: "create", Kind: "ReplicaSet"}},
		},
		"workloadRef scaled down": {
			objs: func(t *testing.T) []client.Object {
				ro := webRollout(t, "")
				ro.Spec.Template, ro.Spec.Selector = nil, nil
				ro.Spec.WorkloadRef = &rampv1.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", ScaleDown: rampv1.ScaleDownOnSuccess}
				return []client.Object{ro, deployment("web")}
			},
			writes: []controllertest.Match{{Verb: "patch", Kind: "Deployment"}, {Verb: "create", Kind: "ReplicaSet"}},
		},
	}
}

// TestWriteFaults: for every write the reconciler makes in each scenario,
// a conflict, a 500 and a timeout injected at that write fail the pass (an
// error or a requeue; a conflict may end it quietly, as the change that
// conflicted queues the next pass), nothing is written after it in that
// pass (no later write, no status, no Event; but a route object's conflict,
// which leaves the route not in force and the pass planning with that), and
// passes without errors then reach the state a run without errors reaches.
func TestWriteFaults(t *testing.T) {
	for name, sc := range faultScenarios() {
		t.Run(name, func(t *testing.T) {
			want, log := runScenario(t, sc, nil)
			for _, m := range sc.writes {
				if !slices.ContainsFunc(log, func(w controllertest.Write) bool { return w.Verb == m.Verb && w.Kind == m.Kind }) {
					t.Fatalf("the scenario never writes %s; it wrote %v", m, log)
				}
				for errName, apiErr := range controllertest.Errors() {
					t.Run(m.String()+"/"+errName, func(t *testing.T) {
						if got, _ := runScenario(t, sc, &fault{m, apiErr}); got != want {
							t.Errorf("after the fault the state is\n%s\nwant (as without it)\n%s", got, want)
						}
					})
				}
			}
		})
	}
}

type fault struct {
	at  controllertest.Match
	err error
}

// runScenario deploys, updates and converges the scenario's Rollout with
// the fault (if any) at its first matching write, checks the failed pass,
// and returns the final state and the write log.
func runScenario(t *testing.T, sc faultScenario, f *fault) (string, []controllertest.Write) {
	env, r := newEnv(t, sc.objs(t)...)
	if f != nil {
		env.FailAt(f.at, 0, f.err)
	}
	check := func(res time.Duration, err error, writes []controllertest.Write) {
		i := slices.IndexFunc(writes, func(w controllertest.Write) bool { return w.Err != nil })
		if i < 0 {
			return
		}
		if err == nil && res == 0 && !apierrors.IsConflict(writes[i].Err) {
			t.Errorf("the pass that failed at %v returned no error and no requeue", writes[i])
		}
		if routeConflict := writes[i].Kind == "Ingress" && apierrors.IsConflict(writes[i].Err); routeConflict {
			return // by design (traffic/objects): the route is not in force, and the plan keeps what carries traffic
		}
		if after := writes[i+1:]; len(after) > 0 {
			t.Errorf("the pass that failed at %v went on to %v", writes[i], after)
		}
	}
	drive(t, env, r, check)
	for _, u := range sc.updates {
		update(t, env, "web", u)
		drive(t, env, r, check)
	}
	if sc.deleted {
		if err := env.API.Delete(context.Background(), getRollout(t, env, "web")); err != nil {
			t.Fatal(err)
		}
		drive(t, env, r, check)
	}
	if f != nil && env.Pending() {
		t.Fatalf("the fault at %s never fired", f.at)
	}
	return state(t, env), env.Log()
}

// drive runs passes (settling the world after each, the clock jumping to
// each wake-up within a minute) until one writes nothing and asks for no
// early wake-up, handing each pass to check.
func drive(t *testing.T, env *controllertest.Env, r *rollout.Reconciler, check func(time.Duration, error, []controllertest.Write)) {
	t.Helper()
	for range 60 {
		mark := len(env.Log())
		res, err := pass(r, "web")
		writes := env.Since(mark)
		check(res.RequeueAfter, err, writes)
		settle(t, env)
		finishRuns(t, env)
		if err != nil || len(writes) > 0 {
			continue
		}
		if res.RequeueAfter <= 0 || res.RequeueAfter > time.Minute {
			return
		}
		env.Clock.Step(res.RequeueAfter)
	}
	t.Fatalf("no fixed point after 60 passes; last writes %v", env.Log()[max(len(env.Log())-10, 0):])
}
