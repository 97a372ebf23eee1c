package istio

import (
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// parse reads a manifest into an unstructured object with the number types
// an object read from the API server has (int64 for whole numbers).
func parse(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	m, ok := value(t, manifest).(map[string]any)
	if !ok {
		t.Fatalf("not an object: %s", manifest)
	}
	return &unstructured.Unstructured{Object: m}
}

// value reads a YAML value the way parse does.
func value(t *testing.T, doc string) any {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// assertValue fails unless got equals the YAML value want.
func assertValue(t *testing.T, got any, want string) {
	t.Helper()
	if w := value(t, want); !apiequality.Semantic.DeepEqual(got, w) {
		g, _ := yaml.Marshal(got)
		e, _ := yaml.Marshal(w)
		t.Errorf("got:\n%s\nwant:\n%s", g, e)
	}
}

// spec is u's spec.
func spec(u *unstructured.Unstructured) map[string]any {
	s, _ := u.Object["spec"].(map[string]any)
	return s
}

// rollout is a Rollout in namespace "shop" with istio trafficRouting
// configured by cfg and the stable and canary Services set.
func rollout(cfg rampv1.IstioTrafficRouting, managed ...string) *rampv1.Rollout {
	ro := &rampv1.Rollout{}
	ro.Name, ro.Namespace = "web", "shop"
	tr := &rampv1.RolloutTrafficRouting{Istio: &cfg}
	for _, m := range managed {
		tr.ManagedRoutes = append(tr.ManagedRoutes, rampv1.ManagedRoute{Name: m})
	}
	ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{CanaryService: "web-canary", StableService: "web-stable", TrafficRouting: tr}
	return ro
}

func ptr[T any](v T) *T { return &v }
