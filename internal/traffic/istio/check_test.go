package istio

import (
	"reflect"
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

func TestCheck(t *testing.T) {
	vs := &rampv1.IstioVirtualService{Name: "web"}
	dr := &rampv1.IstioDestinationRule{Name: "web", CanarySubsetName: "canary", StableSubsetName: "stable"}
	noServices := func(ro *rampv1.Rollout) {
		ro.Spec.Strategy.Canary.CanaryService, ro.Spec.Strategy.Canary.StableService = "", ""
	}
	tests := []struct {
		name    string
		cfg     rampv1.IstioTrafficRouting
		edit    func(*rampv1.Rollout)
		wantErr string // "" for valid
	}{
		{name: "host-level", cfg: rampv1.IstioTrafficRouting{VirtualService: vs}},
		{name: "subset-level without Services", cfg: rampv1.IstioTrafficRouting{VirtualService: vs, DestinationRule: dr}, edit: noServices},
		{name: "several VirtualServices", cfg: rampv1.IstioTrafficRouting{VirtualServices: []rampv1.IstioVirtualService{{Name: "a"}, {Name: "b"}}}},
		{name: "no istio", edit: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.TrafficRouting.Istio = nil },
			wantErr: "spec.strategy.canary.trafficRouting.istio: required"},
		{name: "no VirtualService",
			wantErr: "spec.strategy.canary.trafficRouting.istio: virtualService or virtualServices required"},
		{name: "both forms", cfg: rampv1.IstioTrafficRouting{VirtualService: vs, VirtualServices: []rampv1.IstioVirtualService{{Name: "b"}}},
			wantErr: "set virtualService or virtualServices, not both"},
		{name: "unnamed VirtualService", cfg: rampv1.IstioTrafficRouting{VirtualService: &rampv1.IstioVirtualService{}},
			wantErr: "spec.strategy.canary.trafficRouting.istio.virtualService.name: required"},
		{name: "unnamed in the list", cfg: rampv1.IstioTrafficRouting{VirtualServices: []rampv1.IstioVirtualService{{Name: "a"}, {}}},
			wantErr: "spec.strategy.canary.trafficRouting.istio.virtualServices[1].name: required"},
		{name: "listed twice", cfg: rampv1.IstioTrafficRouting{VirtualServices: []rampv1.IstioVirtualService{{Name: "a"}, {Name: "a"}}},
			wantErr: `virtualServices[1].name: VirtualService "a" is listed twice`},
		{name: "weighting a managed route", cfg: rampv1.IstioTrafficRouting{VirtualService: &rampv1.IstioVirtualService{Name: "web", Routes: []string{"primary", "beta"}}},
			edit: func(ro *rampv1.Rollout) {
				ro.Spec.Strategy.Canary.TrafficRouting.ManagedRoutes = []rampv1.ManagedRoute{{Name: "beta"}}
			},
			wantErr: `virtualService.routes[1]: "beta" is a managed route`},
		{name: "bad tcp port", cfg: rampv1.IstioTrafficRouting{VirtualService: &rampv1.IstioVirtualService{Name: "web", TCPRoutes: []rampv1.TCPRoute{{Port: 70000}}}},
			wantErr: "virtualService.tcpRoutes[0].port: 70000 is not a port"},
		{name: "host-level without canaryService", cfg: rampv1.IstioTrafficRouting{VirtualService: vs}, edit: noServices,
			wantErr: "spec.strategy.canary.canaryService: required by spec.strategy.canary.trafficRouting.istio without destinationRule"},
		{name: "no stable subset", cfg: rampv1.IstioTrafficRouting{VirtualService: vs, DestinationRule: &rampv1.IstioDestinationRule{Name: "web", CanarySubsetName: "canary"}},
			wantErr: "istio.destinationRule.stableSubsetName: required"},
		{name: "same subsets", cfg: rampv1.IstioTrafficRouting{VirtualService: vs, DestinationRule: &rampv1.IstioDestinationRule{Name: "web", CanarySubsetName: "x", StableSubsetName: "x"}},
			wantErr: "canarySubsetName and stableSubsetName must differ"},
		{name: "canary subset as additional", cfg: rampv1.IstioTrafficRouting{VirtualService: vs, DestinationRule: &rampv1.IstioDestinationRule{Name: "web", CanarySubsetName: "c", StableSubsetName: "s", AdditionalSubsetNames: []string{"c"}}},
			wantErr: `additionalSubsetNames[0]: "c" is the canary subset`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ro := rollout(tt.cfg)
			if tt.edit != nil {
				tt.edit(ro)
			}
			err := New(nil).Check(ro)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestRefs(t *testing.T) {
	ro := rollout(rampv1.IstioTrafficRouting{
		VirtualServices: []rampv1.IstioVirtualService{{Name: "web"}, {Name: "web.internal"}},
		DestinationRule: &rampv1.IstioDestinationRule{Name: "web-dr", CanarySubsetName: "canary", StableSubsetName: "stable"},
	})
	want := []traffic.Ref{
		{GVK: DestinationRuleGVK, Namespace: "shop", Name: "web-dr"},
		{GVK: VirtualServiceGVK, Namespace: "shop", Name: "web"},
		{GVK: VirtualServiceGVK, Namespace: "shop", Name: "web.internal"},
	}
	if got := New(nil).Refs(ro); !reflect.DeepEqual(got, want) {
		t.Errorf("Refs = %v, want %v", got, want)
	}
	ro.Spec.Strategy.Canary.TrafficRouting = nil
	if got := New(nil).Refs(ro); got != nil {
		t.Errorf("Refs without istio = %v, want none", got)
	}
}
