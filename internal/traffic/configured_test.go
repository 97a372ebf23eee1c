package traffic

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestNeedsServices(t *testing.T) {
	istio := func(dr *rampv1.IstioDestinationRule) *rampv1.IstioTrafficRouting {
		return &rampv1.IstioTrafficRouting{VirtualService: &rampv1.IstioVirtualService{Name: "vs"}, DestinationRule: dr}
	}
	subsets := &rampv1.IstioDestinationRule{Name: "dr", CanarySubsetName: "c", StableSubsetName: "s"}
	pingPong := &rampv1.PingPongSpec{PingService: "ping", PongService: "pong"}
	for _, tc := range []struct {
		name     string
		tr       *rampv1.RolloutTrafficRouting
		pingPong *rampv1.PingPongSpec
		want     bool
	}{
		{name: "no trafficRouting"},
		{name: "istio by host", tr: &rampv1.RolloutTrafficRouting{Istio: istio(nil)}, want: true},
		{name: "istio by subset", tr: &rampv1.RolloutTrafficRouting{Istio: istio(subsets)}},
		{name: "istio by host with pingPong", tr: &rampv1.RolloutTrafficRouting{Istio: istio(nil)}, pingPong: pingPong},
		{name: "istio by subset and nginx", tr: &rampv1.RolloutTrafficRouting{Istio: istio(subsets), Nginx: &rampv1.NginxTrafficRouting{}}, want: true},
		{name: "nginx", tr: &rampv1.RolloutTrafficRouting{Nginx: &rampv1.NginxTrafficRouting{}}, want: true},
		{name: "alb", tr: &rampv1.RolloutTrafficRouting{ALB: &rampv1.ALBTrafficRouting{}}, want: true},
		{name: "alb with pingPong", tr: &rampv1.RolloutTrafficRouting{ALB: &rampv1.ALBTrafficRouting{}}, pingPong: pingPong},
		{name: "smi with pingPong", tr: &rampv1.RolloutTrafficRouting{SMI: &rampv1.SMITrafficRouting{}}, pingPong: pingPong, want: true},
		{name: "plugin only", tr: &rampv1.RolloutTrafficRouting{Plugins: map[string]apiextensionsv1.JSON{"argoproj-labs/gatewayAPI": {}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &rampv1.CanaryStrategy{TrafficRouting: tc.tr, PingPong: tc.pingPong}
			if got := NeedsServices(c); got != tc.want {
				t.Errorf("NeedsServices = %v, want %v", got, tc.want)
			}
		})
	}
}
