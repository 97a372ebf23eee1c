package alb

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// obj decodes a YAML manifest the way the API server's JSON arrives
// (integers as int64).
func obj(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(js, &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

const ingressYAML = `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: shop
  annotations:
    alb.ingress.kubernetes.io/scheme: internet-facing
spec:
  ingressClassName: alb
  rules:
  - http:
      paths:
      - path: /
        pathType: Prefix
        backend: {service: {name: web-stable, port: {name: use-annotation}}}
`

// rollout is a Rollout routed with ALB over the Ingress "web".
func rollout(mut ...func(*rampv1.ALBTrafficRouting)) *rampv1.Rollout {
	a := &rampv1.ALBTrafficRouting{Ingress: "web", ServicePort: 80}
	for _, m := range mut {
		m(a)
	}
	return &rampv1.Rollout{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "ro-uid"},
		Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{
			CanaryService:  "web-canary",
			StableService:  "web-stable",
			TrafficRouting: &rampv1.RolloutTrafficRouting{ALB: a},
		}}},
	}
}
