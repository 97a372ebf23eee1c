package smi

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// rollout is a canary Rollout web in shop routed by SMI.
func rollout(smi rampv1.SMITrafficRouting) *rampv1.Rollout {
	return &rampv1.Rollout{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-web"},
		Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{
			CanaryService: "web-canary", StableService: "web-stable",
			TrafficRouting: &rampv1.RolloutTrafficRouting{SMI: &smi},
		}}},
	}
}

// obj decodes a YAML object, numbers as int64 as the API server hands them out.
func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(j); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return u
}

func toYAML(t *testing.T, u *unstructured.Unstructured) string {
	t.Helper()
	b, err := yaml.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSet(t *testing.T) {
	for _, tc := range []struct {
		name      string
		smi       rampv1.SMITrafficRouting
		want      traffic.Route
		cur, next string
	}{
		{name: "root service defaults to the stable Service", want: traffic.Route{Canary: 30, Max: 100},
			cur: `
apiVersion: split.smi-spec.io/v1alpha4
kind: TrafficSplit
metadata: {name: web, namespace: shop}
spec: {service: web-stable, backends: [{service: web-canary, weight: 0}, {service: web-stable, weight: 100}]}
`, next: `
apiVersion: split.smi-spec.io/v1alpha4
kind: TrafficSplit
metadata: {name: web, namespace: shop}
spec: {service: web-stable, backends: [{service: web-canary, weight: 30}, {service: web-stable, weight: 70}]}
`},
		{name: "root service, max weight, other fields kept", smi: rampv1.SMITrafficRouting{RootService: "web"},
			want: traffic.Route{Canary: 250, Max: 1000},
			cur: `
apiVersion: split.smi-spec.io/v1alpha3
kind: TrafficSplit
metadata: {name: web, namespace: shop, labels: {mesh: linkerd}}
spec:
  service: old
  matches: [{kind: HTTPRouteGroup, name: api}]
  backends: [{service: web-stable, weight: 1}, {service: extra, weight: 1}]
`, next: `
apiVersion: split.smi-spec.io/v1alpha3
kind: TrafficSplit
metadata: {name: web, namespace: shop, labels: {mesh: linkerd}}
spec:
  service: web
  matches: [{kind: HTTPRouteGroup, name: api}]
  backends: [{service: web-canary, weight: 250}, {service: web-stable, weight: 750}]
`},
		{name: "no spec yet", want: traffic.Route{Canary: 100, Max: 100},
			cur: `
apiVersion: split.smi-spec.io/v1alpha2
kind: TrafficSplit
metadata: {name: web, namespace: shop}
`, next: `
apiVersion: split.smi-spec.io/v1alpha2
kind: TrafficSplit
metadata: {name: web, namespace: shop}
spec: {service: web-stable, backends: [{service: web-canary, weight: 100}, {service: web-stable, weight: 0}]}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := obj(t, tc.cur)
			if err := newSplit(rollout(tc.smi), tc.want).set(u); err != nil {
				t.Fatal(err)
			}
			if got, want := toYAML(t, u), toYAML(t, obj(t, tc.next)); got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestObject(t *testing.T) {
	for _, tc := range []struct {
		name string
		smi  rampv1.SMITrafficRouting
		want string
	}{
		{name: "named after the Rollout", want: "web"},
		{name: "trafficSplitName", smi: rampv1.SMITrafficRouting{TrafficSplitName: "web-split"}, want: "web-split"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := rollout(tc.smi)
			u := newSplit(ro, traffic.Route{Canary: 10, Max: 100}).object(ro, "v1alpha2")
			if u.GetAPIVersion() != "split.smi-spec.io/v1alpha2" || u.GetKind() != "TrafficSplit" {
				t.Errorf("apiVersion, kind = %s, %s", u.GetAPIVersion(), u.GetKind())
			}
			if u.GetNamespace() != "shop" || u.GetName() != tc.want {
				t.Errorf("object %s/%s, want shop/%s", u.GetNamespace(), u.GetName(), tc.want)
			}
			if u.GetLabels() != nil || u.GetAnnotations() != nil {
				t.Errorf("labels %v, annotations %v, want none", u.GetLabels(), u.GetAnnotations())
			}
			owner := metav1.OwnerReference{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web", UID: "uid-web",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
			if got := u.GetOwnerReferences(); !reflect.DeepEqual(got, []metav1.OwnerReference{owner}) {
				t.Errorf("ownerReferences = %+v, want %+v", got, owner)
			}
			backends, _, _ := unstructured.NestedSlice(u.Object, "spec", "backends")
			want := []any{map[string]any{"service": "web-canary", "weight": int64(10)}, map[string]any{"service": "web-stable", "weight": int64(90)}}
			if !reflect.DeepEqual(backends, want) {
				t.Errorf("backends = %v, want %v", backends, want)
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
		{name: "no smi", change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.TrafficRouting.SMI = nil },
			err: "spec.strategy.canary.trafficRouting.smi: required"},
		{name: "no canary strategy", change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary = nil },
			err: "spec.strategy.canary.trafficRouting.smi: required"},
		{name: "no canary service", change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.CanaryService = "" },
			err: "spec.strategy.canary.canaryService: required with trafficRouting"},
		{name: "no stable service", change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.StableService = "" },
			err: "spec.strategy.canary.stableService: required with trafficRouting"},
		{name: "same services", change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.CanaryService = "web-stable" },
			err: "spec.strategy.canary.stableService: must differ from canaryService"},
		{name: "invalid split name", change: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.TrafficRouting.SMI.TrafficSplitName = "Web_Split" },
			err: `spec.strategy.canary.trafficRouting.smi.trafficSplitName: "Web_Split" is not a valid object name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := rollout(rampv1.SMITrafficRouting{})
			tc.change(ro)
			checkErr(t, New(nil).Check(ro), tc.err)
		})
	}
}

func TestRefs(t *testing.T) {
	got := New(nil).Refs(rollout(rampv1.SMITrafficRouting{TrafficSplitName: "split"}))
	want := []traffic.Ref{{GVK: splitGK.WithVersion("v1alpha4"), Namespace: "shop", Name: "split"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Refs = %+v, want %+v", got, want)
	}
}

// checkErr fails t unless err contains want, or is nil when want is "".
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("err = %v, want it to contain %q", err, want)
	}
}
