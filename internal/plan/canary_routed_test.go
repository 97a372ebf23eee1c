package plan

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// routedSteps: 20 / pause / 50 / header route h (x: 1) / 100.
func routedSteps() []rampv1.CanaryStep {
	h := rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{
		{HeaderName: "x", HeaderValue: &rampv1.StringMatch{Exact: "1"}}}}
	return []rampv1.CanaryStep{weight(20), pauseForever(), weight(50), {SetHeaderRoute: &h}, weight(100)}
}

// handoverRoute is the route of a finished rollout to hash.
func handoverRoute(hash string) traffic.Route {
	return traffic.Route{Max: 100, StableHash: hash, CanaryHash: hash}
}

func TestRoutedCanaryPromotes(t *testing.T) {
	for _, lag := range []bool{false, true} {
		t.Run(fmt.Sprintf("podsReadyNextPass=%v", lag), func(t *testing.T) {
			s := newRoutedSim(t, false, routedSteps()...)
			s.lag = lag
			s.run("v1", time.Minute)
			s.checking, s.routes, s.sizes = true, nil, nil
			var switched time.Time
			var deadline *time.Time
			s.each = func(in Input, out Output) {
				rt, avail := *out.Route, int32(0)
				if in.New != nil {
					avail = in.New.Available
				}
				for _, need := range []struct{ w, pods int32 }{{20, 1}, {50, 3}, {100, 5}} {
					if rt.CanaryHash == "v2" && rt.Canary >= need.w && avail < need.pods {
						t.Errorf("%s: route sends %d to the canary with %d pods available", s.at(), rt.Canary, avail)
					}
				}
				if n, ok := out.Scale["web-v1"]; ok && (n != 0 || deadline == nil || s.now.Before(*deadline)) {
					t.Errorf("%s: old stable scaled to %d before its scale-down deadline %v", s.at(), n, deadline)
				}
				if in.Rollout.Status.StableRS != "v2" && out.Status.StableRS == "v2" {
					switched = s.now
					if !s.inForce(in, handoverRoute("v2")) || in.ServiceHash["stable"] != "v2" || in.ServiceHash["canary"] != "v2" {
						t.Errorf("%s: stableRS switched with traffic %+v, services %v", s.at(), in.Traffic, in.ServiceHash)
					}
				}
				if d := out.ScaleDownAt["web-v1"]; d != nil {
					if switched.IsZero() || d.Before(switched.Add(30*time.Second)) {
						t.Errorf("%s: scale-down deadline %v, stableRS switched at %v", s.at(), d, switched)
					}
					deadline = d
				}
				if len(rt.Headers) > 0 && !reflect.DeepEqual(rt.Headers, []rampv1.SetHeaderRoute{*routedSteps()[3].SetHeaderRoute}) {
					t.Errorf("%s: header routes %+v", s.at(), rt.Headers)
				}
				w := out.Status.Canary.Weights
				if w == nil || w.Verified == nil || w.Canary.Weight != rt.Canary || w.Stable.Weight != rt.Stable() ||
					w.Canary.PodTemplateHash != rt.CanaryHash || *w.Verified != s.inForce(in, rt) {
					t.Errorf("%s: status.canary.weights %+v for route %+v, traffic %+v", s.at(), w, rt, in.Traffic)
				}
			}
			s.run("v2", time.Minute)
			if st := s.ro.Status; len(st.PauseConditions) == 0 || !s.traffic.InForce || s.traffic.Route.Canary != 20 {
				t.Fatalf("want a pause at weight 20, got status %+v, route %+v", st.PauseConditions, s.traffic)
			}
			s.ro.Status.PauseConditions = nil // promote
			s.run("v2", time.Minute)

			wantRoutes := []string{"0 v1/v1", "20 v1/v2", "50 v1/v2", "50+h v1/v2", "100+h v1/v2", "0 v2/v2"}
			if !slices.Equal(s.routes, wantRoutes) {
				t.Errorf("routes:\n got %q\nwant %q", s.routes, wantRoutes)
			}
			wantSizes := []string{"v1=5 v2=1", "v1=5 v2=3", "v1=5 v2=5", "v1=0 v2=5"}
			if !slices.Equal(s.sizes, wantSizes) {
				t.Errorf("ReplicaSet sizes:\n got %q\nwant %q", s.sizes, wantSizes)
			}
			s.expectEnd("v2", 5, "v1", handoverRoute("v2"))
			if deadline == nil || s.now.Before(*deadline) {
				t.Errorf("old ReplicaSet scaled down at %v, deadline %v", s.now, deadline)
			}
		})
	}
}

func TestRoutedCanaryAbort(t *testing.T) {
	for _, lag := range []bool{false, true} {
		t.Run(fmt.Sprintf("podsReadyNextPass=%v", lag), func(t *testing.T) {
			s := newRoutedSim(t, false, routedSteps()...)
			s.ro.Spec.Strategy.Canary.AbortScaleDownDelaySeconds = ptrTo(int32(2))
			s.lag = lag
			s.run("v1", time.Minute)
			s.checking = true
			s.run("v2", time.Minute)
			s.ro.Status.PauseConditions = nil
			s.runUntil("v2", time.Minute, func() bool { return s.traffic.Route.Canary == 50 })
			s.ro.Status.Abort = true
			abortedAt := s.now
			s.each = func(in Input, out Output) {
				if out.Route.Canary != 0 || len(out.Route.Headers) != 0 {
					t.Errorf("%s: aborted, yet the wanted route is %+v", s.at(), *out.Route)
				}
				n, ok := out.Scale["web-v2"]
				if !ok || n >= in.New.Spec {
					return
				}
				held0 := in.Traffic != nil && in.Traffic.InForce && in.Traffic.Route.Canary == 0
				if !held0 || in.ServiceHash["canary"] == "v2" || s.now.Before(abortedAt.Add(2*time.Second)) {
					t.Errorf("%s: aborted canary scaled %d -> %d with traffic %+v, services %v, %v after the abort",
						s.at(), in.New.Spec, n, in.Traffic, in.ServiceHash, s.now.Sub(abortedAt))
				}
			}
			s.run("v2", time.Minute)
			s.expectEnd("v1", 5, "v2", handoverRoute("v1"))
			if w := s.ro.Status.Canary.Weights; w == nil || w.Canary.PodTemplateHash != "v2" || w.Canary.Weight != 0 {
				t.Errorf("aborted: status.canary.weights %+v, want the canary v2 at 0", w)
			}
		})
	}
}

// TestRoutedCanaryDynamicStableScale: dynamicStableScale, steps 20/50/100;
// an abort must grow stable back before the route moves traffic onto it.
func TestRoutedCanaryDynamicStableScale(t *testing.T) {
	for _, tc := range []struct {
		name   string
		at50   func(*rampv1.RolloutStatus) // nil: no action, run the steps to the end
		stable string
	}{
		{name: "promote", stable: "v2"},
		{name: "abort at 50", at50: func(st *rampv1.RolloutStatus) { st.Abort = true }, stable: "v1"},
		{name: "promote full from 50", at50: func(st *rampv1.RolloutStatus) { st.PromoteFull = true }, stable: "v2"},
	} {
		for _, lag := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/lag=%v", tc.name, lag), func(t *testing.T) {
				s := newRoutedSim(t, true, weight(20), weight(50), weight(100))
				s.lag = lag // the ReplicaSet controller one pass late: Unobserved counts
				s.run("v1", time.Minute)
				s.checking = true
				s.each = func(in Input, out Output) { s.dynamicChecks(in, out) }
				if tc.at50 != nil {
					s.runUntil("v2", time.Minute, func() bool { return s.traffic.Route.Canary == 50 })
					tc.at50(&s.ro.Status)
				}
				s.run("v2", 2*time.Minute)
				if tc.stable == "v2" && !s.sawStableZero { // upstream: stable at 0 before the hand-over, also on promote --full
					t.Errorf("stable never reached 0 with weight 100 in force (sizes %q, routes %q)", s.sizes, s.routes)
				}
				gone := map[string]string{"v1": "v2", "v2": "v1"}[tc.stable]
				s.expectEnd(tc.stable, 5, gone, handoverRoute(tc.stable))
			})
		}
	}
}

// dynamicChecks: at most replicas+1 pods; stable shrinks only to what the
// weight in force leaves it; a wanted route never gives stable more than
// its available pods carry.
func (s *routedSim) dynamicChecks(in Input, out Output) {
	s.t.Helper()
	var total int32
	for _, r := range s.rs {
		total += r.Spec
	}
	if total > 6 {
		s.t.Errorf("%s: ReplicaSets hold %d pods, more than replicas+1", s.at(), total)
	}
	st := in.Stable
	if st == nil || out.Status.StableRS != st.Hash {
		return
	}
	if n, ok := out.Scale[st.Name]; ok && n < st.Spec {
		if in.Traffic == nil || !in.Traffic.InForce || n < podsFor5(in.Traffic.Route.Stable()) {
			s.t.Errorf("%s: stable %s shrunk %d -> %d with traffic %+v", s.at(), st.Hash, st.Spec, n, in.Traffic)
		}
	}
	if w := out.Route.Canary; out.Route.StableHash == st.Hash && st.Available < podsFor5(100-w) {
		s.t.Errorf("%s: route wants canary %d with %d stable pods available", s.at(), w, st.Available)
	}
	full := traffic.Route{Canary: 100, Max: 100, StableHash: st.Hash, CanaryHash: in.NewHash}
	s.sawStableZero = s.sawStableZero || (s.rs[st.Hash].Spec == 0 && s.inForce(in, full))
}

// TestRoutedCanaryRestart: after a controller restart nothing is known of
// the routes; the hand-over waits for the read-back and nothing shrinks.
func TestRoutedCanaryRestart(t *testing.T) {
	s := newRoutedSim(t, false, weight(50), weight(100))
	s.run("v1", time.Minute)
	s.checking = true
	s.runUntil("v2", time.Minute, func() bool { return s.traffic.Route.StableHash == "v2" })
	for s.blind = 3; s.blind > 0; { // each pass reads no route back
		s.now = s.now.Add(time.Second)
		s.pass("v2")
		st, v1 := s.ro.Status, s.rs["v1"]
		if st.StableRS != "v1" || *st.Canary.Weights.Verified || v1.Spec != 5 || v1.ScaleDownAt != nil {
			t.Errorf("%s: no route read back, yet stableRS %s, weights %+v, v1 %+v", s.at(), st.StableRS, st.Canary.Weights, *v1)
		}
	}
	s.run("v2", time.Minute)
	s.expectEnd("v2", 5, "v1", handoverRoute("v2"))
}

func TestValidateRoutedSteps(t *testing.T) {
	ro := &rampv1.Rollout{}
	ro.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	ro.Spec.Template = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
	ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{CanaryService: "canary", StableService: "stable",
		TrafficRouting: &rampv1.RolloutTrafficRouting{Nginx: &rampv1.NginxTrafficRouting{StableIngress: "web"},
			ManagedRoutes: []rampv1.ManagedRoute{{Name: "m"}}},
		Steps: []rampv1.CanaryStep{{SetMirrorRoute: &rampv1.SetMirrorRoute{Name: "m",
			Match: []rampv1.RouteMatch{{Path: &rampv1.StringMatch{Prefix: "/"}}}}}}}
	if got := ValidateRollout(ro); len(got) != 1 || !strings.Contains(got[0], "cannot express mirror routes") {
		t.Errorf("nginx + setMirrorRoute: %q", got)
	}
	c := ro.Spec.Strategy.Canary
	c.TrafficRouting = &rampv1.RolloutTrafficRouting{ManagedRoutes: []rampv1.ManagedRoute{{Name: "h"}},
		Istio: &rampv1.IstioTrafficRouting{VirtualService: &rampv1.IstioVirtualService{Name: "vs"}}}
	c.Steps = []rampv1.CanaryStep{weight(10), {SetHeaderRoute: &rampv1.SetHeaderRoute{Name: "other"}}}
	want := `spec.strategy.canary.steps[1].setHeaderRoute.name: "other" is not listed in spec.strategy.canary.trafficRouting.managedRoutes`
	if got := ValidateRollout(ro); !slices.Equal(got, []string{want}) {
		t.Errorf("unlisted header route:\n got %q\nwant %q", got, want)
	}
	c.Steps = routedSteps()
	if got := ValidateRollout(ro); len(got) != 0 {
		t.Errorf("routedSteps on istio: %q", got)
	}

	// ALB expresses header routes with exact values (as upstream), not
	// mirror routes.
	c.TrafficRouting = &rampv1.RolloutTrafficRouting{ManagedRoutes: []rampv1.ManagedRoute{{Name: "h"}},
		ALB: &rampv1.ALBTrafficRouting{Ingress: "web", ServicePort: 80}}
	if got := ValidateRollout(ro); len(got) != 0 {
		t.Errorf("routedSteps on alb: %q", got)
	}
	c.Steps[3].SetHeaderRoute.Match = []rampv1.HeaderRoutingMatch{{HeaderName: "x", HeaderValue: &rampv1.StringMatch{Prefix: "1"}}}
	want = "spec.strategy.canary.steps[3].setHeaderRoute.match[0].headerValue: the alb traffic router matches exact values only (ALB takes * and ? as wildcards in them)"
	if got := ValidateRollout(ro); !slices.Equal(got, []string{want}) {
		t.Errorf("prefix header match on alb:\n got %q\nwant %q", got, want)
	}
	c.Steps[3] = rampv1.CanaryStep{SetMirrorRoute: &rampv1.SetMirrorRoute{Name: "h"}}
	want = "spec.strategy.canary.steps[3].setMirrorRoute: the alb traffic router cannot express mirror routes"
	if got := ValidateRollout(ro); !slices.Equal(got, []string{want}) {
		t.Errorf("mirror route on alb:\n got %q\nwant %q", got, want)
	}
}

// routedSim runs a traffic-routed canary (Istio, Services "canary" and
// "stable", managed route h, 5 replicas): the route written in one pass is
// read back in force from the next, Services select what the plan said.
type routedSim struct {
	*sim
	traffic  *Traffic          // last route written, in force from the next pass
	svc      map[string]string // Service -> hash it selects
	svcRead  map[string]string // what the next pass reads of svc
	lag      bool              // pods ready, Service writes read back, one pass later
	blind    int               // passes still to run with Traffic nil (controller restart)
	checking bool              // check the invariants on every pass
	each     func(in Input, out Output)
	routes   []string // distinct wanted routes, in order
	sizes    []string // distinct ReplicaSet sizes, in order

	sawStableZero bool // dynamicStableScale: stable at 0 with weight 100 in force
}

func newRoutedSim(t *testing.T, dynamic bool, steps ...rampv1.CanaryStep) *routedSim {
	return newRoutedSimN(t, 5, dynamic, steps...)
}

func newRoutedSimN(t *testing.T, replicas int32, dynamic bool, steps ...rampv1.CanaryStep) *routedSim {
	s := &routedSim{sim: newSim(t, replicas, steps...), svc: map[string]string{}}
	c := s.ro.Spec.Strategy.Canary
	c.CanaryService, c.StableService, c.DynamicStableScale = "canary", "stable", dynamic
	c.TrafficRouting = &rampv1.RolloutTrafficRouting{ManagedRoutes: []rampv1.ManagedRoute{{Name: "h"}},
		Istio: &rampv1.IstioTrafficRouting{VirtualService: &rampv1.IstioVirtualService{Name: "vs"}}}
	return s
}

func (s *routedSim) run(hash string, limit time.Duration) { s.runUntil(hash, limit, nil) }

// runUntil plans until nothing changes (and no requeue is due within
// limit) or stop holds after a pass.
func (s *routedSim) runUntil(hash string, limit time.Duration, stop func() bool) {
	s.t.Helper()
	end := s.now.Add(limit)
	for i := 0; i < 500 && !s.now.After(end); i++ {
		out, changed := s.pass(hash)
		if stop != nil && stop() {
			return
		}
		if changed {
			s.now = s.now.Add(10 * time.Millisecond)
			continue
		}
		if out.RequeueAfter == 0 || out.RequeueAfter > limit {
			break
		}
		s.now = s.now.Add(out.RequeueAfter)
	}
	if stop != nil {
		s.t.Fatalf("stop condition never held (routes %q, sizes %q)", s.routes, s.sizes)
	}
}

// pass plans once on a snapshot of the world, then makes the plan true.
func (s *routedSim) pass(hash string) (Output, bool) {
	in := s.input(hash)
	in.Rollout, in.ServiceHash = s.ro.DeepCopy(), maps.Clone(s.svcRead)
	in.New, in.Stable = cloneRS(in.New), cloneRS(in.Stable)
	if s.blind > 0 {
		s.blind--
	} else if s.traffic != nil {
		in.Traffic = &Traffic{Route: s.traffic.Route, InForce: true}
	}
	out := Canary(in)
	if s.checking {
		s.restartCheck(in)
	}
	changed, before := false, map[string]int32{}
	for h, r := range s.rs {
		if s.lag && r.Available != r.Spec { // scaled last pass: ready now
			r.Available, r.Ready, changed = r.Spec, r.Spec, true
		}
		before[h] = r.Available
	}
	changed = s.apply(hash, out) || changed
	for h, r := range s.rs {
		if s.lag && r.Available > before[h] {
			r.Available, r.Ready = before[h], before[h]
		}
	}
	if s.lag {
		s.svcRead = maps.Clone(s.svc) // last pass's writes
	}
	maps.Copy(s.svc, out.Services)
	if !s.lag {
		s.svcRead = maps.Clone(s.svc)
	}
	changed = changed || !maps.Equal(in.ServiceHash, s.svcRead)
	if out.Route == nil {
		s.t.Fatalf("%s: a routed canary planned no route", s.at())
	}
	changed = changed || !s.inForce(in, *out.Route)
	s.traffic = &Traffic{Route: *out.Route, InForce: true}
	s.routes = appendDistinct(s.routes, routeString(*out.Route))
	s.sizes = appendDistinct(s.sizes, s.sizeString())
	if s.checking {
		s.invariants(in, out, before)
	}
	if s.each != nil {
		s.each(in, out)
	}
	return out, changed
}

// invariants: no route (held, or wanted, with the Services as read or as
// written) sends weight to a hash without available pods or to a
// ReplicaSet smaller than ceil(weight x 5 / 100).
func (s *routedSim) invariants(in Input, out Output, before map[string]int32) {
	s.t.Helper()
	check := func(what string, rt traffic.Route, svc map[string]string) {
		seen := map[string]bool{}
		for _, h := range []string{rt.StableHash, rt.CanaryHash, svc["stable"], svc["canary"]} {
			w := routedShare(rt, svc, h)
			if w == 0 || seen[h] {
				continue
			}
			seen[h] = true
			spec, avail := int32(0), int32(0)
			if r := s.rs[h]; r != nil {
				spec, avail = r.Spec, min(r.Available, before[h])
			}
			if avail == 0 || spec < podsFor5(w) {
				s.t.Errorf("%s: %s %+v (services %v) sends %d to %s: %d pods, %d available",
					s.at(), what, rt, svc, w, h, spec, avail)
			}
		}
	}
	check("wanted route", *out.Route, in.ServiceHash)
	check("wanted route", *out.Route, s.svc)
	if t := in.Traffic; t != nil && t.InForce {
		check("held route", t.Route, in.ServiceHash)
		check("held route", t.Route, s.svc)
	}
}

// restartCheck plans the same pass as after a restart (no route read
// back): no ReplicaSet may shrink, no weight is verified.
func (s *routedSim) restartCheck(in Input) {
	s.t.Helper()
	in.Traffic = nil
	out := Canary(in)
	for _, r := range append(append(derefRS(in.New), derefRS(in.Stable)...), in.Others...) {
		if n, ok := out.Scale[r.Name]; ok && n < r.Spec {
			s.t.Errorf("%s: with no route read back, %s is scaled %d -> %d", s.at(), r.Name, r.Spec, n)
		}
	}
	if w := out.Status.Canary.Weights; w != nil && w.Verified != nil && *w.Verified {
		s.t.Errorf("%s: with no route read back, weights are verified", s.at())
	}
}

// expectEnd checks the settled state: stable hash with n pods, the other
// ReplicaSet at 0, both Services on stable and the route held in force.
func (s *routedSim) expectEnd(stable string, n int32, gone string, route traffic.Route) {
	s.t.Helper()
	st := s.ro.Status
	if st.StableRS != stable || s.rs[stable].Spec != n || s.rs[stable].Available != n || s.rs[gone].Spec != 0 ||
		s.svc["stable"] != stable || s.svc["canary"] != stable || !sameRoute(s.traffic.Route, route) ||
		st.Canary.Weights == nil || !*st.Canary.Weights.Verified {
		s.t.Errorf("end state: stableRS %s, sizes %q, services %v, route %+v, weights verified %v",
			st.StableRS, s.sizes, s.svc, s.traffic.Route, st.Canary.Weights != nil && *st.Canary.Weights.Verified)
	}
}

// inForce reports whether the pass read back rt in force.
func (s *routedSim) inForce(in Input, rt traffic.Route) bool {
	return in.Traffic != nil && in.Traffic.InForce && sameRoute(in.Traffic.Route, rt)
}

func (s *routedSim) at() string { return fmt.Sprintf("%.2fs [%s]", s.elapsed(), s.sizeString()) }

func (s *routedSim) sizeString() string {
	var parts []string
	for _, h := range []string{"v1", "v2", "v3"} {
		if r := s.rs[h]; r != nil {
			parts = append(parts, fmt.Sprintf("%s=%d", h, r.Spec))
		}
	}
	return strings.Join(parts, " ")
}

// routedShare is the weight hash gets from rt: through the route's hashes
// (subsets) or the Services selecting it.
func routedShare(rt traffic.Route, svc map[string]string, hash string) int32 {
	var w int32
	if hash == rt.CanaryHash || (hash != "" && hash == svc["canary"]) {
		w += rt.Canary
	}
	if hash == rt.StableHash || (hash != "" && hash == svc["stable"]) {
		w += rt.Stable()
	}
	return w
}

func routeString(rt traffic.Route) string {
	h := ""
	for _, hr := range rt.Headers {
		h += "+" + hr.Name
	}
	return fmt.Sprintf("%d%s %s/%s", rt.Canary, h, rt.StableHash, rt.CanaryHash)
}

func podsFor5(w int32) int32 { return (5*max(w, 0) + 99) / 100 }

func cloneRS(r *ReplicaSet) *ReplicaSet {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

func appendDistinct(list []string, v string) []string {
	if len(list) > 0 && list[len(list)-1] == v {
		return list
	}
	return append(list, v)
}

// TestRoutedCanaryStalePodsCarryNothing: a canary ReplicaSet already scaled
// to 0 whose status (as the cache shows it) still counts an available pod
// gets no weight and no Service: that pod is on its way out (retry after an
// abort, before the ReplicaSet controller updated the status).
func TestRoutedCanaryStalePodsCarryNothing(t *testing.T) {
	s := newRoutedSim(t, false, routedSteps()...)
	ro := s.ro
	ro.Status.StableRS, ro.Status.CurrentPodHash = "v1", "v2"
	ro.Status.CurrentStepIndex = ptrTo(int32(0))
	ro.Status.CurrentStepHash = StepsHash(ro.Spec.Strategy.Canary.Steps)
	held := traffic.Route{Max: 100, StableHash: "v1", CanaryHash: "v1"}
	in := Input{Rollout: ro, NewHash: "v2", Now: time.Now(),
		New:         &ReplicaSet{Name: "web-v2", Hash: "v2", Spec: 0, Replicas: 1, Ready: 1, Available: 1},
		Stable:      &ReplicaSet{Name: "web-v1", Hash: "v1", Spec: 5, Replicas: 5, Ready: 5, Available: 5},
		Traffic:     &Traffic{Route: held, InForce: true},
		ServiceHash: map[string]string{"canary": "v1", "stable": "v1"}}
	out := Canary(in)
	if out.Route == nil || out.Route.Canary != 0 {
		t.Fatalf("route %+v, want canary weight 0 while the canary ReplicaSet is at 0", out.Route)
	}
	if h := out.Services["canary"]; h == "v2" {
		t.Fatalf("canary Service moved to v2, whose only pod is going away")
	}
	if out.Scale["web-v2"] != 1 {
		t.Fatalf("canary ReplicaSet scale %v, want 1", out.Scale)
	}
}

// TestRoutedCanaryUnobservedCountsMoveNothing: retrying after an abort,
// Ramp scaled the canary ReplicaSet 0 → 1, but its status still predates
// that spec (observedGeneration below generation) and counts the pod the
// scale-down took: neither the canary Service nor any weight moves to it
// until the ReplicaSet controller reports on the new spec. CI's traffic
// guard caught the Service selecting, and 20 % going to, a ReplicaSet with
// no available pod under load. Once observed, the step proceeds; a weight
// already held is kept while a later scale is unobserved.
func TestRoutedCanaryUnobservedCountsMoveNothing(t *testing.T) {
	s := newRoutedSim(t, false, routedSteps()...)
	ro := s.ro
	ro.Status.StableRS, ro.Status.CurrentPodHash = "v1", "v2"
	ro.Status.CurrentStepIndex = ptrTo(int32(0))
	ro.Status.CurrentStepHash = StepsHash(ro.Spec.Strategy.Canary.Steps)
	input := func(held traffic.Route, svc string, unobserved bool) Input {
		return Input{Rollout: ro, NewHash: "v2", Now: time.Now(),
			New:         &ReplicaSet{Name: "web-v2", Hash: "v2", Spec: 1, Replicas: 1, Ready: 1, Available: 1, Unobserved: unobserved},
			Stable:      &ReplicaSet{Name: "web-v1", Hash: "v1", Spec: 5, Replicas: 5, Ready: 5, Available: 5},
			Traffic:     &Traffic{Route: held, InForce: true},
			ServiceHash: map[string]string{"canary": svc, "stable": "v1"}}
	}
	out := Canary(input(traffic.Route{Max: 100, StableHash: "v1", CanaryHash: "v1"}, "v1", true))
	if out.Route != nil && out.Route.Canary != 0 {
		t.Errorf("route %+v on unobserved counts, want no weight on the canary", out.Route)
	}
	if h, ok := out.Services["canary"]; ok && h == "v2" {
		t.Error("canary Service moved to v2 on unobserved counts")
	}
	out = Canary(input(traffic.Route{Max: 100, StableHash: "v1", CanaryHash: "v1"}, "v1", false))
	if out.Services["canary"] != "v2" {
		t.Errorf("observed: canary Service %q, want v2", out.Services["canary"])
	}
	held := traffic.Route{Canary: 20, Max: 100, StableHash: "v1", CanaryHash: "v2"}
	out = Canary(input(held, "v2", true))
	if out.Route != nil && out.Route.Canary != 20 {
		t.Errorf("route %+v while a later scale is unobserved, want the held 20 kept", out.Route)
	}
	if h, ok := out.Services["canary"]; ok && h != "v2" {
		t.Errorf("canary Service moved back to %q while a later scale is unobserved", h)
	}
}

// TestRoutedCanaryUnobservedAbortKeepsStableCarried: with
// dynamicStableScale, an abort at 50 % scales stable back up and the
// canary down; while both ReplicaSets' counts predate their specs, the
// weight still only moves back to stable as its available pods carry it
// (3 of 5 carry 60: the canary keeps 40), never at once to 0.
func TestRoutedCanaryUnobservedAbortKeepsStableCarried(t *testing.T) {
	s := newRoutedSim(t, true, weight(20), weight(50), pauseForever())
	ro := s.ro
	ro.Status.StableRS, ro.Status.CurrentPodHash, ro.Status.Abort = "v1", "v2", true
	ro.Status.CurrentStepIndex = ptrTo(int32(2))
	ro.Status.CurrentStepHash = StepsHash(ro.Spec.Strategy.Canary.Steps)
	in := Input{Rollout: ro, NewHash: "v2", Now: time.Now(),
		New:         &ReplicaSet{Name: "web-v2", Hash: "v2", Spec: 2, Replicas: 3, Ready: 3, Available: 3, Unobserved: true},
		Stable:      &ReplicaSet{Name: "web-v1", Hash: "v1", Spec: 5, Replicas: 3, Ready: 3, Available: 3, Unobserved: true},
		Traffic:     &Traffic{Route: traffic.Route{Canary: 50, Max: 100, StableHash: "v1", CanaryHash: "v2"}, InForce: true},
		ServiceHash: map[string]string{"canary": "v2", "stable": "v1"}}
	out := Canary(in)
	if out.Route != nil && out.Route.Canary < 40 {
		t.Errorf("route %+v with 3 stable pods available, want the canary to keep at least 40", out.Route)
	}
}

// TestRoutedCanarySubsetsWithoutServices: Istio subset routing needs no
// canary or stable Service; the hand-over then waits only for the
// DestinationRule subsets (the route read back) to carry the new hash.
func TestRoutedCanarySubsetsWithoutServices(t *testing.T) {
	s := newRoutedSim(t, false, weight(20), pauseForever(), weight(50))
	c := s.ro.Spec.Strategy.Canary
	c.CanaryService, c.StableService = "", ""
	c.TrafficRouting.Istio.DestinationRule = &rampv1.IstioDestinationRule{Name: "dr", CanarySubsetName: "canary", StableSubsetName: "stable"}
	if got := ValidateStrategy(s.ro); got != "" {
		t.Fatalf("ValidateStrategy = %q, want no problem", got)
	}
	s.run("v1", time.Minute)
	s.checking, s.routes, s.sizes = true, nil, nil
	s.run("v2", time.Minute)
	s.ro.Status.PauseConditions = nil // promote
	s.run("v2", time.Minute)
	wantRoutes := []string{"0 v1/v1", "20 v1/v2", "50 v1/v2", "0 v2/v2"}
	if !slices.Equal(s.routes, wantRoutes) {
		t.Errorf("routes:\n got %q\nwant %q", s.routes, wantRoutes)
	}
	st := s.ro.Status
	if st.StableRS != "v2" || s.rs["v1"].Spec != 0 || len(s.svc) != 0 || !sameRoute(s.traffic.Route, handoverRoute("v2")) {
		t.Errorf("end state: stableRS %s, sizes %q, services %v, route %+v", st.StableRS, s.sizes, s.svc, s.traffic.Route)
	}
	if w := st.Canary.Weights; w == nil || w.Canary.ServiceName != "" || w.Stable.PodTemplateHash != "v2" {
		t.Errorf("status.canary.weights %+v", w)
	}
}
