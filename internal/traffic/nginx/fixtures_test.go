package nginx

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

const stableIngressYAML = `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: shop
  labels: {app: web}
  annotations:
    kubernetes.io/ingress.class: nginx
    nginx.ingress.kubernetes.io/rewrite-target: /
spec:
  ingressClassName: nginx
  tls:
  - hosts: [shop.example.com]
    secretName: shop-tls
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend: {service: {name: web-stable, port: {number: 80}}}
      - path: /admin
        pathType: Prefix
        backend: {service: {name: admin, port: {number: 80}}}
  - host: admin.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend: {service: {name: admin, port: {name: http}}}
`

// rollout is a Rollout routed with nginx over the stable Ingress "web".
func rollout(mut ...func(*rampv1.NginxTrafficRouting)) *rampv1.Rollout {
	n := &rampv1.NginxTrafficRouting{StableIngress: "web"}
	for _, m := range mut {
		m(n)
	}
	return &rampv1.Rollout{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "ro-uid"},
		Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{
			CanaryService:  "web-canary",
			StableService:  "web-stable",
			TrafficRouting: &rampv1.RolloutTrafficRouting{Nginx: n},
		}}},
	}
}

func headerRoute(name string, v rampv1.StringMatch) rampv1.SetHeaderRoute {
	return rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{{HeaderName: name, HeaderValue: &v}}}
}
