//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// trafficGuard watches a routed Rollout's route objects, Services and
// ReplicaSets. On every event it checks the 503-race invariant: no route
// weight and no Service selector points at a ReplicaSet with zero available
// pods. It also records the distinct route states in the order they were
// observed. Route and Services are read before the ReplicaSets, so a
// ReplicaSet that shrank after the read cannot be blamed on an older route.
type trafficGuard struct {
	rc         routerCase
	ns, ro     string
	mu         sync.Mutex
	states     []routeState
	violations []string
	cancel     context.CancelFunc
	wg         sync.WaitGroup
	// extra, when set, is checked on every event too (dynamicStableScale).
	extra func(route routeState, selects map[string]string, avail map[string]int32, specSum, podSum int32) string
}

func guardTraffic(t *testing.T, rc routerCase, ns, ro string) *trafficGuard {
	ctx, cancel := context.WithCancel(context.Background())
	g := &trafficGuard{rc: rc, ns: ns, ro: ro, cancel: cancel}
	routeList := &unstructured.UnstructuredList{}
	routeList.SetGroupVersionKind(rc.gvk.GroupVersion().WithKind(rc.gvk.Kind + "List"))
	for _, list := range []client.ObjectList{routeList, &corev1.ServiceList{}, &appsv1.ReplicaSetList{}} {
		g.wg.Add(1)
		go func(list client.ObjectList) {
			defer g.wg.Done()
			_ = watchFrom(ctx, list, ns, "", func(typ watch.EventType, obj client.Object) bool {
				g.check(ctx, fmt.Sprintf("%s %T %s", typ, obj, obj.GetName()), obj)
				return false
			})
		}(list)
	}
	t.Cleanup(g.stop)
	return g
}

func (g *trafficGuard) check(ctx context.Context, what string, obj client.Object) {
	g.mu.Lock()
	defer g.mu.Unlock()
	fromEvent := false // only a route object's own events are in order: record those
	get := func(gvk schema.GroupVersionKind, ns, name string) (*unstructured.Unstructured, error) {
		if u, ok := obj.(*unstructured.Unstructured); ok && u.GroupVersionKind().GroupKind() == gvk.GroupKind() && u.GetName() == name {
			fromEvent = true
		}
		return eventGet(ctx, obj)(gvk, ns, name)
	}
	route, err := g.rc.read(get, g.ns, g.ro)
	if err != nil {
		return
	}
	if n := len(g.states); fromEvent && (n == 0 || g.states[n-1] != route) {
		g.states = append(g.states, route)
	}
	// The invariants use a live read of the route, then of the Services,
	// then of the ReplicaSets: each read is at least as new as the one
	// before, and a ReplicaSet only shrinks after the route moved away.
	if route, err = g.rc.read(liveGet(ctx), g.ns, g.ro); err != nil {
		return
	}
	selects := map[string]string{}
	for _, svc := range []string{g.ro + "-canary", g.ro + "-stable"} {
		var s corev1.Service
		if err := env.client.Get(ctx, client.ObjectKey{Namespace: g.ns, Name: svc}, &s); err != nil {
			return
		}
		selects[svc] = s.Spec.Selector[hashLabel]
	}
	var rss appsv1.ReplicaSetList
	if err := env.client.List(ctx, &rss, client.InNamespace(g.ns), client.MatchingLabels{"app": g.ro}); err != nil {
		return
	}
	avail, specSum, podSum := map[string]int32{}, int32(0), int32(0)
	for _, rs := range rss.Items {
		avail[rs.Labels[hashLabel]] = rs.Status.AvailableReplicas
		podSum += rs.Status.Replicas
		if rs.Spec.Replicas != nil {
			specSum += *rs.Spec.Replicas
		}
	}
	bad := func(format string, args ...any) {
		g.violations = append(g.violations, fmt.Sprintf("after %s: ", what)+fmt.Sprintf(format, args...))
	}
	for svc, hash := range selects {
		if hash != "" && avail[hash] == 0 {
			bad("Service %s selects %s with 0 available pods (route %s)", svc, hash, route)
		}
	}
	if h := selects[g.ro+"-canary"]; route.canary > 0 && h != "" && avail[h] == 0 {
		bad("route sends %d to the canary Service, whose %s has 0 available pods", route.canary, h)
	}
	if h := selects[g.ro+"-stable"]; route.stable > 0 && h != "" && avail[h] == 0 {
		bad("route sends %d to the stable Service, whose %s has 0 available pods", route.stable, h)
	}
	if g.extra != nil {
		if msg := g.extra(route, selects, avail, specSum, podSum); msg != "" {
			bad("%s", msg)
		}
	}
}

func (g *trafficGuard) stop() { g.cancel(); g.wg.Wait() }

// finish stops the guard, fails on any violation and returns the states.
// With last, it first waits until the guard's watch has recorded last as
// its latest state: a test that saw the route reach a state through its
// own reads may be ahead of the guard's watch.
func (g *trafficGuard) finish(t *testing.T, last ...routeState) []routeState {
	t.Helper()
	for _, want := range last {
		eventually(t, 30*time.Second, fmt.Sprintf("the guard's watch records route %s", want), func() error {
			g.mu.Lock()
			defer g.mu.Unlock()
			if n := len(g.states); n == 0 || g.states[n-1] != want {
				return fmt.Errorf("states so far %v", g.states)
			}
			return nil
		})
	}
	g.stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, v := range g.violations {
		t.Error(v)
	}
	return g.states
}
