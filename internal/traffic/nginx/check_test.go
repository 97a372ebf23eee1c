package nginx

import (
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		mut  func(*rampv1.Rollout)
		err  string // a substring; "" for valid
	}{
		{name: "valid"},
		{name: "several stable Ingresses", mut: func(ro *rampv1.Rollout) {
			n := ro.Spec.Strategy.Canary.TrafficRouting.Nginx
			n.StableIngress, n.StableIngresses = "", []string{"a", "b"}
		}},
		{name: "no nginx", mut: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.TrafficRouting.Nginx = nil },
			err: "spec.strategy.canary.trafficRouting.nginx: not set"},
		{name: "no stable Ingress", mut: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.TrafficRouting.Nginx.StableIngress = "" },
			err: "spec.strategy.canary.trafficRouting.nginx: stableIngress or stableIngresses required"},
		{name: "both", mut: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.TrafficRouting.Nginx.StableIngresses = []string{"b"} },
			err: "set stableIngress or stableIngresses, not both"},
		{name: "duplicate", mut: func(ro *rampv1.Rollout) {
			n := ro.Spec.Strategy.Canary.TrafficRouting.Nginx
			n.StableIngress, n.StableIngresses = "", []string{"a", "a"}
		}, err: `spec.strategy.canary.trafficRouting.nginx.stableIngresses[1]: "a" listed twice`},
		{name: "no canary Service", mut: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.CanaryService = "" },
			err: "spec.strategy.canary.canaryService: required"},
		{name: "no stable Service", mut: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.StableService = "" },
			err: "spec.strategy.canary.stableService: required"},
		{name: "same Service", mut: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.CanaryService = "web-stable" },
			err: "must differ from stableService"},
		{name: "additional annotation Ramp sets", mut: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.TrafficRouting.Nginx.AdditionalIngressAnnotations = map[string]string{"canary-weight": "5"}
		}, err: `spec.strategy.canary.trafficRouting.nginx.additionalIngressAnnotations["canary-weight"]: set by Ramp`},
		{name: "canary annotation Ramp sets", mut: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.TrafficRouting.Nginx.CanaryIngressAnnotations = map[string]string{"nginx.ingress.kubernetes.io/canary": "false"}
		}, err: `canaryIngressAnnotations["nginx.ingress.kubernetes.io/canary"]: set by Ramp`},
		{name: "annotation set twice", mut: func(ro *rampv1.Rollout) {
			n := ro.Spec.Strategy.Canary.TrafficRouting.Nginx
			n.AdditionalIngressAnnotations = map[string]string{"canary-by-header": "A"}
			n.CanaryIngressAnnotations = map[string]string{"nginx.ingress.kubernetes.io/canary-by-header": "B"}
		}, err: "conflicts with additionalIngressAnnotations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ro := rollout()
			if tt.mut != nil {
				tt.mut(ro)
			}
			err := New(nil).Check(ro)
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Check = %v, want %q", err, tt.err)
			}
		})
	}
	if err := New(nil).Check(&rampv1.Rollout{}); err == nil {
		t.Errorf("Check of a Rollout without canary strategy passed")
	}
}

func TestCheckHeaderRoute(t *testing.T) {
	m := func(name string, v *rampv1.StringMatch) rampv1.HeaderRoutingMatch {
		return rampv1.HeaderRoutingMatch{HeaderName: name, HeaderValue: v}
	}
	tests := []struct {
		name  string
		route *rampv1.SetHeaderRoute
		err   string
	}{
		{name: "nil"},
		{name: "no match removes", route: &rampv1.SetHeaderRoute{Name: "h"}},
		{name: "exact", route: &rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{m("X", &rampv1.StringMatch{Exact: "a"})}}},
		{name: "prefix", route: &rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{m("X", &rampv1.StringMatch{Prefix: "a"})}}},
		{name: "regex", route: &rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{m("X", &rampv1.StringMatch{Regex: "a+"})}}},
		{name: "two matches", route: &rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{
			m("X", &rampv1.StringMatch{Exact: "a"}), m("Y", &rampv1.StringMatch{Exact: "b"})}},
			err: `setHeaderRoute "h": nginx matches one header, got 2`},
		{name: "no header name", route: &rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{m("", &rampv1.StringMatch{Exact: "a"})}},
			err: "match[0].headerName required"},
		{name: "no value", route: &rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{m("X", nil)}},
			err: "set exactly one of exact, prefix, regex"},
		{name: "two kinds", route: &rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{m("X", &rampv1.StringMatch{Exact: "a", Regex: "b"})}},
			err: "set exactly one of exact, prefix, regex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckHeaderRoute(tt.route)
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Errorf("CheckHeaderRoute = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestCheckRoute(t *testing.T) {
	h := headerRoute("X", rampv1.StringMatch{Exact: "a"})
	tests := []struct {
		name string
		want traffic.Route
		err  string
	}{
		{name: "weight", want: traffic.Route{Canary: 10, Max: 100}},
		{name: "one header route", want: traffic.Route{Max: 100, Headers: []rampv1.SetHeaderRoute{h}}},
		{name: "no max", want: traffic.Route{}, err: "out of range"},
		{name: "over max", want: traffic.Route{Canary: 101, Max: 100}, err: "out of range"},
		{name: "negative", want: traffic.Route{Canary: -1, Max: 100}, err: "out of range"},
		{name: "two header routes", want: traffic.Route{Max: 100, Headers: []rampv1.SetHeaderRoute{h, h}}, err: "one header route, got 2"},
		{name: "mirror", want: traffic.Route{Max: 100, Mirrors: []rampv1.SetMirrorRoute{{Name: "m"}}}, err: "cannot mirror"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkRoute(tt.want)
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Errorf("checkRoute = %v, want %q", err, tt.err)
			}
		})
	}
}
