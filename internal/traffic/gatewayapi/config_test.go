package gatewayapi

import (
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// rollout is a canary Rollout web in shop with the given plugin
// configuration (no plugin at all when config is "").
func rollout(config string) *rampv1.Rollout {
	tr := &rampv1.RolloutTrafficRouting{ManagedRoutes: []rampv1.ManagedRoute{{Name: "header"}, {Name: "mirror"}}}
	if config != "" {
		tr.Plugins = map[string]apiextensionsv1.JSON{Name: {Raw: []byte(config)}}
	}
	return &rampv1.Rollout{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-web"},
		Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{
			CanaryService: "web-canary", StableService: "web-stable", TrafficRouting: tr,
		}}},
	}
}

func TestHTTPRoutes(t *testing.T) {
	field := `spec.strategy.canary.trafficRouting.plugins["argoproj-labs/gatewayAPI"]`
	for _, tc := range []struct {
		name, config string
		want         []httpRoute
		err          string
	}{
		{name: "single", config: `{"httpRoute": "web"}`,
			want: []httpRoute{{namespace: "shop", name: "web", headerRoutes: true}}},
		{name: "multiple", config: `{"httpRoutes": [{"name": "a", "useHeaderRoutes": true}, {"name": "b"}]}`,
			want: []httpRoute{{namespace: "shop", name: "a", headerRoutes: true}, {namespace: "shop", name: "b"}}},
		{name: "namespace", config: `{"httpRoute": "web", "namespace": "gateways"}`,
			want: []httpRoute{{namespace: "gateways", name: "web", headerRoutes: true}}},
		{name: "both are a union, each name once", config: `{"httpRoute": "a", "httpRoutes": [{"name": "b"}, {"name": "a"}]}`,
			want: []httpRoute{{namespace: "shop", name: "a", headerRoutes: true}, {namespace: "shop", name: "b"}}},
		{name: "unknown keys are ignored", config: `{"httpRoute": "web", "grpcRoute": "g", "configMap": "cm"}`,
			want: []httpRoute{{namespace: "shop", name: "web", headerRoutes: true}}},
		{name: "neither", config: `{"namespace": "shop"}`, err: field + ".httpRoute: required"},
		{name: "empty", config: `{}`, err: field + ".httpRoute: required"},
		{name: "unnamed httpRoutes entry", config: `{"httpRoutes": [{"name": "a"}, {}]}`, err: field + ".httpRoutes[1].name: required"},
		{name: "invalid JSON", config: `{"httpRoute": `, err: field + ": invalid JSON"},
		{name: "wrong type", config: `{"httpRoute": ["web"]}`, err: field + ": invalid JSON"},
		{name: "no plugin", err: field + ": required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := httpRoutes(rollout(tc.config))
			checkErr(t, err, tc.err)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*rampv1.Rollout)
		err    string // "" for valid
	}{
		{name: "valid", change: func(*rampv1.Rollout) {}},
		{name: "no trafficRouting", change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.TrafficRouting = nil },
			err: `plugins["argoproj-labs/gatewayAPI"]: required`},
		{name: "no canary service", change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.CanaryService = "" },
			err: "spec.strategy.canary.canaryService: required with trafficRouting"},
		{name: "no stable service", change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.StableService = "" },
			err: "spec.strategy.canary.stableService: required with trafficRouting"},
		{name: "same services", change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.StableService = "web-canary" },
			err: "spec.strategy.canary.stableService: must differ from canaryService"},
		{name: "weight above the HTTPRoute limit", change: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.TrafficRouting.MaxTrafficWeight = ptr.To[int32](2000000)
		}, err: "spec.strategy.canary.trafficRouting.maxTrafficWeight: at most 1000000"},
		{name: "managed route name not a rule name", change: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.TrafficRouting.ManagedRoutes[1].Name = "Mirror_Route"
		}, err: `spec.strategy.canary.trafficRouting.managedRoutes[1].name: "Mirror_Route" is not a valid HTTPRoute rule name`},
		{name: "header value unset", change: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.Steps = []rampv1.CanaryStep{{SetWeight: ptr.To[int32](10)}, {SetHeaderRoute: &rampv1.SetHeaderRoute{
				Name: "header", Match: []rampv1.HeaderRoutingMatch{{HeaderName: "x-canary"}}}}}
		}, err: "spec.strategy.canary.steps[1].setHeaderRoute.match[0].headerValue: required"},
		{name: "mirror method by prefix", change: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.Steps = []rampv1.CanaryStep{{SetMirrorRoute: &rampv1.SetMirrorRoute{
				Name: "mirror", Match: []rampv1.RouteMatch{{Method: &rampv1.StringMatch{Prefix: "GE"}}}}}}
		}, err: "spec.strategy.canary.steps[0].setMirrorRoute.match[0].method: Gateway API matches a method exactly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := rollout(`{"httpRoute": "web"}`)
			tc.change(ro)
			checkErr(t, New(nil).Check(ro), tc.err)
		})
	}
}

func TestRefs(t *testing.T) {
	got := New(nil).Refs(rollout(`{"httpRoutes": [{"name": "a"}, {"name": "b"}], "namespace": "gw"}`))
	want := []traffic.Ref{{GVK: httpRouteGVK, Namespace: "gw", Name: "a"}, {GVK: httpRouteGVK, Namespace: "gw", Name: "b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Refs = %+v, want %+v", got, want)
	}
	if got := New(nil).Refs(rollout(`{}`)); got != nil {
		t.Errorf("Refs of an invalid configuration = %+v, want none", got)
	}
}
