//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// blueGreenYAML is a blue-green Rollout (pods app=<name>) with Services
// <name>-active and <name>-preview; extra is more spec.strategy.blueGreen.
func blueGreenYAML(name string, replicas int, instance, extra string) string {
	body := fmt.Sprintf("activeService: %[1]s-active\npreviewService: %[1]s-preview\n%[2]s", name, extra)
	return rolloutYAML{name: name, replicas: replicas, instance: instance, blueGreen: body}.String() +
		"---\n" + serviceYAML(name+"-active", name) + "---\n" + serviceYAML(name+"-preview", name)
}

// activeGuard checks, on every Service and ReplicaSet event it observes, that
// the active Service never selects a hash whose ReplicaSet has fewer than
// replicas available pods (once the first revision was up).
type activeGuard struct {
	mu         sync.Mutex
	violations []string
	cancel     context.CancelFunc
	wg         sync.WaitGroup
}

func guardActive(t *testing.T, ns, svc string, replicas int32) *activeGuard {
	ctx, cancel := context.WithCancel(context.Background())
	g := &activeGuard{cancel: cancel}
	check := func(what string) {
		var s corev1.Service
		if err := env.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: svc}, &s); err != nil {
			return
		}
		hash := s.Spec.Selector[hashLabel]
		var rss appsv1.ReplicaSetList
		if err := env.client.List(ctx, &rss, client.InNamespace(ns), client.MatchingLabels{hashLabel: hash}); err != nil || len(rss.Items) == 0 {
			return
		}
		if a := rss.Items[0].Status.AvailableReplicas; a < replicas {
			g.mu.Lock()
			g.violations = append(g.violations, fmt.Sprintf("after %s: active selects %s with %d available", what, hash, a))
			g.mu.Unlock()
		}
	}
	for _, list := range []client.ObjectList{&corev1.ServiceList{}, &appsv1.ReplicaSetList{}} {
		g.wg.Add(1)
		go func(list client.ObjectList) {
			defer g.wg.Done()
			_ = watchFrom(ctx, list, ns, "", func(typ watch.EventType, obj client.Object) bool {
				check(fmt.Sprintf("%s %T %s", typ, obj, obj.GetName()))
				return false
			})
		}(list)
	}
	t.Cleanup(g.stop)
	return g
}

func (g *activeGuard) stop() { g.cancel(); g.wg.Wait() }

func (g *activeGuard) check(t *testing.T) {
	t.Helper()
	g.stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, v := range g.violations {
		t.Errorf("live traffic on an under-sized ReplicaSet %s", v)
	}
}

func pausedBlueGreen(ro *rampv1.Rollout) error {
	s := ro.Status
	switch {
	case observed(ro) != nil:
		return observed(ro)
	case s.Phase != rampv1.RolloutPhasePaused || len(s.PauseConditions) != 1 || s.PauseConditions[0].Reason != rampv1.PauseReasonBlueGreenPause:
		return fmt.Errorf("phase %q pause %v, want Paused with BlueGreenPause", s.Phase, s.PauseConditions)
	}
	return nil
}

// waitEndpoints waits until the Service's EndpointSlices list exactly the
// ready pods of hash.
func waitEndpoints(t *testing.T, ns, svc, hash string, n int) {
	t.Helper()
	eventually(t, 60*time.Second, fmt.Sprintf("EndpointSlices of %s list only the %d pods of %s", svc, n, hash), func() error {
		var slices discoveryv1.EndpointSliceList
		if err := env.client.List(context.Background(), &slices, client.InNamespace(ns), client.MatchingLabels{discoveryv1.LabelServiceName: svc}); err != nil {
			return err
		}
		count := 0
		for _, sl := range slices.Items {
			for _, ep := range sl.Endpoints {
				if ep.TargetRef == nil || !strings.Contains(ep.TargetRef.Name, hash) {
					return fmt.Errorf("endpoint %v is not a pod of %s", ep.TargetRef, hash)
				}
				count++
			}
		}
		if count != n {
			return fmt.Errorf("%d endpoints", count)
		}
		return nil
	})
}

// promoted: the new revision is stable and live (Healthy), while the old
// ReplicaSet may still wait for its scale-down delay.
func promoted(old string) func(*rampv1.Rollout) error {
	return func(ro *rampv1.Rollout) error {
		s := ro.Status
		switch {
		case newTemplate(old)(ro) != nil:
			return newTemplate(old)(ro)
		case s.Phase != rampv1.RolloutPhaseHealthy || s.StableRS != s.CurrentPodHash || s.BlueGreen.ActiveSelector != s.CurrentPodHash:
			return fmt.Errorf("phase %q stable %q active %q current %q", s.Phase, s.StableRS, s.BlueGreen.ActiveSelector, s.CurrentPodHash)
		}
		return nil
	}
}
