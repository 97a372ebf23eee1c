//go:build conformance

package conformance

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A migration is a scenario begun under one controller and finished under
// the other on the same control plane: the first controller takes it to a
// stop point, is stopped, the CRDs are replaced by the other project's and
// the other controller is started (docs/user-guide.md, "Migrating from
// Argo Rollouts"). Nothing may change at the switch (no pod recreated, no
// ReplicaSet resized, no Service selector or route rewritten, no step moved,
// no AnalysisRun or Experiment added) until the next step is due, and the
// rest of the script must then play out under the new controller.
type migration struct {
	name   string
	ci     bool
	pre    string
	yaml   string
	before []step // under the first controller, after the apply; the last ends at the stop point
	after  []step // under the second
}

func migrations() []migration {
	v2 := setImage("registry.example/app:v2")
	web := webTemplate("web", "migration-analysis", "2s")                // starts the metric server
	_ = setMetric("migration-analysis", "10")(context.Background(), nil) // passing
	return []migration{{
		name:   "canary-paused",
		ci:     true,
		yaml:   rollout(4, twoPauses),
		before: []step{{name: "set image", do: v2, until: pausedAt(1)}},
		after: []step{{name: "promote", do: promote, until: pausedAt(3)},
			{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")}},
	}, {
		name:   "canary-aborted",
		yaml:   rollout(4, twoPauses),
		before: []step{{name: "set image", do: v2, until: pausedAt(1)}, {name: "abort", do: abort, until: aborted}},
		after:  []step{{name: "retry", do: retry, until: pausedAt(1)}, {name: "promote full", do: promoteFull, until: healthyWith("registry.example/app:v2")}},
	}, {
		name: "analysis-running",
		pre:  web,
		yaml: rollout(4, "    canary:\n      analysis: {templates: [{templateName: web}]}\n"+
			"      steps: [{setWeight: 25}, {pause: {}}]"),
		before: []step{{name: "set image", do: v2,
			until: cond{desc: "paused at 1 with the background analysis running", ok: pausedAt(1).ok, world: runPhase("", "Running")}}},
		after: []step{{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")}},
	}, {
		name: "experiment-running",
		yaml: rollout(4, "    canary:\n      steps:\n      - setWeight: 25\n"+
			"      - experiment:\n          duration: 40s\n          templates:\n"+
			"          - {name: canary, specRef: canary, replicas: 1}\n"+
			"      - pause: {}"),
		before: []step{{name: "set image", do: v2, until: atExperimentStep(1)}},
		after: []step{{name: "experiment over", until: pausedAt(2)},
			{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")}},
	}, {
		name:   "bluegreen-preview",
		ci:     true,
		pre:    bgServices,
		yaml:   rollout(3, blueGreen("autoPromotionEnabled: false")),
		before: []step{{name: "set image", do: v2, until: bgPaused}},
		after:  []step{{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")}},
	}, {
		name:   "bluegreen-delay-pending",
		pre:    bgServices,
		yaml:   rollout(3, blueGreen("autoPromotionEnabled: false", "scaleDownDelaySeconds: 50")),
		before: []step{{name: "set image", do: v2, until: bgPaused}, {name: "promote", do: promote, until: healthyWith("registry.example/app:v2")}},
		after:  []step{{name: "delay over", until: oldScaledDown}},
	}, {
		name:   "istio-weighted",
		ci:     true,
		pre:    canaryServices + istioHostVS,
		yaml:   rollout(4, routedCanary("        istio: {virtualService: {name: vsvc, routes: [primary]}}", twoWeights)),
		before: twoWeightSteps[:1:1],
		after:  twoWeightSteps[1:],
	}, {
		name:   "nginx-weighted",
		pre:    canaryServices + nginxIngress,
		yaml:   rollout(4, routedCanary("        nginx: {stableIngress: ing}", twoWeights)),
		before: twoWeightSteps[:1:1],
		after:  twoWeightSteps[1:],
	}}
}

// TestMigration runs after the scenarios (its file sorts after
// main_test.go) and moves each plane to the other controller: upstream's
// plane from Argo Rollouts to Ramp, Ramp's plane from Ramp to Argo
// Rollouts, both at once.
func TestMigration(t *testing.T) {
	ms := migrations()
	if os.Getenv("RAMP_CONF_SUBSET") == "ci" {
		ms = slices.DeleteFunc(ms, func(m migration) bool { return !m.ci })
	}
	rampCRDs, err := filepath.Glob("../../config/crd/bases/*.yaml")
	if err != nil || len(rampCRDs) != 5 {
		t.Fatalf("Ramp's CRDs: %v %v", rampCRDs, err)
	}
	upCRDs, err := filepath.Glob(filepath.Join(os.Getenv("RAMP_CONF_UPSTREAM_MODULE"), "manifests/crds/*-crd.yaml"))
	if err != nil || len(upCRDs) != 5 {
		t.Fatalf("upstream's CRDs: %v %v", upCRDs, err)
	}
	t.Run("upstream-to-ramp", func(t *testing.T) {
		t.Parallel()
		migrate(t, ms, upstreamSide, rampSide, os.Getenv("RAMP_CONF_RAMP_CONTROLLER"), rampCRDs)
	})
	t.Run("ramp-to-upstream", func(t *testing.T) {
		t.Parallel()
		migrate(t, ms, rampSide, upstreamSide, os.Getenv("RAMP_CONF_UPSTREAM_CONTROLLER"), upCRDs)
	})
}

// migrate plays ms on plane (whose controller is from's kind) up to their
// stop points, switches the plane to the controller bin with crds, checks
// that nothing moved and plays the rest.
func migrate(t *testing.T, ms []migration, plane, to *side, bin string, crds []string) {
	ctx := context.Background()
	// reads without a metrics scrape: the controller changes under it
	quiet := &side{name: plane.name, kubeconfig: plane.kubeconfig, dyn: plane.dyn}
	actors := make([]*actor, len(ms))
	for i, m := range ms {
		ns := fmt.Sprintf("m-%s-%04x", m.name, rand.IntN(1<<16))
		if _, err := quiet.run(ctx, "", cfg.kubectl, "create", "namespace", ns); err != nil {
			t.Fatal(err)
		}
		actors[i] = &actor{side: quiet, ns: ns}
	}
	// stop points, all cases at once
	snaps := make([]map[string]string, len(ms))
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() {
			a := actors[i]
			apply := step{name: "apply", until: healthy, do: func(ctx context.Context, a *actor) error {
				if m.pre != "" {
					if err := a.kubectl(ctx, m.pre, "apply", "--server-side", "-f", "-"); err != nil {
						return err
					}
				}
				return a.kubectl(ctx, m.yaml, "apply", "--server-side", "-f", "-")
			}}
			for _, st := range append([]step{apply}, m.before...) {
				if _, err := a.stepTo(ctx, st); err != nil {
					errs[i] = fmt.Errorf("%s under %s: %s: %w", m.name, plane.name, st.name, err)
					return
				}
			}
			w, err := a.read(ctx, a.ns)
			if err != nil {
				errs[i] = err
				return
			}
			snaps[i] = frozen(w)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// the switch, as docs/user-guide.md says
	plane.stop()
	if plane.name == "ramp" {
		for _, a := range actors { // Ramp's finalizer, which Argo Rollouts would never remove
			if err := dropRampFinalizers(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
	}
	args := []string{"apply", "--server-side", "--force-conflicts"}
	for _, f := range crds {
		args = append(args, "-f", f)
	}
	if _, err := quiet.run(ctx, "", cfg.kubectl, args...); err != nil {
		t.Fatal(err)
	}
	if _, err := quiet.run(ctx, "", cfg.kubectl, "wait", "--for=condition=Established", "crd", "--all", "--timeout=30s"); err != nil {
		t.Fatal(err)
	}
	next := &side{name: to.name, kubeconfig: plane.kubeconfig, dyn: plane.dyn}
	if err := next.start(bin, filepath.Join(cfg.logs, "migration-to-"+to.name)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(next.stop)
	for _, a := range actors {
		t.Cleanup(func() { // before next.stop (cleanups run last first)
			if _, err := quiet.run(context.Background(), "", cfg.kubectl, "delete", "namespace", a.ns, "--wait=true", "--timeout=50s"); err != nil {
				t.Logf("namespace %s not deleted: %v", a.ns, err)
			}
		})
	}
	// nothing moves at the switch, then the rest plays out
	for i, m := range ms {
		wg.Go(func() {
			a := actors[i]
			if err := unchanged(ctx, a, snaps[i]); err != nil {
				errs[i] = fmt.Errorf("%s after the switch to %s: %w", m.name, to.name, err)
				return
			}
			for _, st := range m.after {
				if _, err := a.stepTo(ctx, st); err != nil {
					errs[i] = fmt.Errorf("%s under %s: %s: %w", m.name, to.name, st.name, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// unchanged waits until the new controller has had its say (its first
// passes: quietReadings identical readings, after at least switchWindow)
// and compares with the stop point.
func unchanged(ctx context.Context, a *actor, before map[string]string) error {
	start := time.Now()
	var last map[string]string
	same := 0
	for time.Since(start) < settleTimeout {
		w, err := a.read(ctx, a.ns)
		if err != nil {
			return err
		}
		now := frozen(w)
		if !maps.Equal(now, before) {
			var diffs []string
			for _, k := range slices.Sorted(maps.Keys(mergeKeys(now, before))) {
				if now[k] != before[k] {
					diffs = append(diffs, fmt.Sprintf("%s: %q -> %q", k, before[k], now[k]))
				}
			}
			return fmt.Errorf("changed at the switch:\n  %s", strings.Join(diffs, "\n  "))
		}
		if last != nil && maps.Equal(now, last) {
			same++
		} else {
			same = 1
		}
		if same >= quietReadings && time.Since(start) > switchWindow {
			return nil
		}
		last = now
		time.Sleep(quietGap) // polling: the quiet window between identical readings
	}
	return fmt.Errorf("never settled after the switch")
}

// switchWindow is how long the new controller gets to act before the
// check ends: several of its passes (its informers sync within a second).
const switchWindow = 8 * time.Second

func mergeKeys(a, b map[string]string) map[string]string {
	m := maps.Clone(a)
	maps.Copy(m, b)
	return m
}

// frozen is what must not change at a switch: the pods (by name), each
// ReplicaSet's size and pod-template hash, the Services' selectors, the
// routes, the Rollout's step, stable ReplicaSet, pause and abort, and the
// AnalysisRuns and Experiments (by name).
func frozen(w *world) map[string]string {
	f := map[string]string{}
	var pods []string
	for _, p := range w.pods {
		if p.GetDeletionTimestamp() == nil {
			pods = append(pods, p.GetName())
		}
	}
	sort.Strings(pods)
	f["pods"] = strings.Join(pods, " ")
	for _, rs := range w.replicaSets {
		n, _, _ := unstructured.NestedInt64(rs.Object, "spec", "replicas")
		f["replicaset/"+rs.GetName()] = fmt.Sprint(n)
	}
	for _, s := range w.services {
		sel, _, _ := unstructured.NestedStringMap(s.Object, "spec", "selector")
		f["service/"+s.GetName()] = fmt.Sprint(sel)
	}
	for kind, items := range w.routes {
		for _, r := range items {
			f[kind+"/"+r.GetName()] = fmt.Sprint(r.Object["spec"])
		}
	}
	for _, r := range w.rollouts {
		for _, field := range [][]string{{"status", "currentStepIndex"}, {"status", "stableRS"}, {"status", "abort"},
			{"status", "controllerPause"}, {"spec", "paused"}, {"status", "blueGreen", "activeSelector"}} {
			v, _, _ := unstructured.NestedFieldNoCopy(r.Object, field...)
			f["rollout/"+r.GetName()+" "+strings.Join(field, ".")] = fmt.Sprint(v)
		}
		pcs, _, _ := unstructured.NestedSlice(r.Object, "status", "pauseConditions")
		var reasons []string
		for _, pc := range pcs {
			pc, _ := pc.(map[string]any)
			reasons = append(reasons, fmt.Sprint(pc["reason"]))
		}
		f["rollout/"+r.GetName()+" pauseConditions"] = strings.Join(reasons, ",")
	}
	for _, l := range []struct {
		kind  string
		items []unstructured.Unstructured
	}{{"analysisruns", w.runs}, {"experiments", w.experiments}} {
		var names []string
		for _, u := range l.items {
			names = append(names, u.GetName())
		}
		sort.Strings(names)
		f[l.kind] = strings.Join(names, " ")
	}
	return f
}

// dropRampFinalizers removes Ramp's finalizer from the namespace's
// Rollouts (the documented step before handing a plane to Argo Rollouts).
func dropRampFinalizers(ctx context.Context, a *actor) error {
	w, err := a.read(ctx, a.ns)
	if err != nil {
		return err
	}
	for _, r := range w.rollouts {
		fs := r.GetFinalizers()
		if !slices.Contains(fs, "rollout.ramp.dev/traffic-routes") {
			continue
		}
		if err := a.kubectl(ctx, "", "patch", "rollout", r.GetName(), "--type=json",
			"-p", `[{"op":"remove","path":"/metadata/finalizers"}]`); err != nil {
			return err
		}
	}
	return nil
}
