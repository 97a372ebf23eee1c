package nginx

import (
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/ramp-rollouts/ramp/internal/traffic"
)

func TestCanaryName(t *testing.T) {
	if got := CanaryName("web", "shop"); got != "web-shop-canary" {
		t.Errorf("CanaryName = %q", got)
	}
	long := strings.Repeat("a", 200)
	a, b := CanaryName(long, long), CanaryName(long, long+"b")
	for _, n := range []string{a, b} {
		if len(n) > validation.DNS1123SubdomainMaxLength || !strings.HasSuffix(n, "-canary") {
			t.Errorf("CanaryName = %q (%d chars)", n, len(n))
		}
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			t.Errorf("CanaryName = %q: %v", n, errs)
		}
	}
	if a == b {
		t.Errorf("two stable Ingresses share the canary name %q", a)
	}
	if a != CanaryName(long, long) {
		t.Errorf("CanaryName is not deterministic")
	}
	// A cut that ends on a separator is trimmed so the name stays valid.
	for _, ro := range []string{strings.Repeat("a", 234), strings.Repeat("a", 234) + ".b"} {
		n := CanaryName(ro, strings.Repeat("w", 30))
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 || len(n) != 252 {
			t.Errorf("CanaryName = %q (%d chars): %v", n, len(n), errs)
		}
	}
}

func TestCanarySpec(t *testing.T) {
	tests := []struct {
		name, stable, want, err string
	}{{
		name:   "renames stable backends, drops other paths and rules, keeps class and tls",
		stable: stableIngressYAML,
		want: `
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
        backend: {service: {name: web-canary, port: {number: 80}}}
`,
	}, {
		name: "default backend renamed, unrelated default backend dropped",
		stable: `
metadata: {name: a, namespace: shop}
spec:
  defaultBackend: {service: {name: web-stable, port: {name: http}}}
`,
		want: `
spec:
  defaultBackend: {service: {name: web-canary, port: {name: http}}}
`,
	}, {
		name: "rule without http and resource backends are dropped",
		stable: `
metadata: {name: a, namespace: shop}
spec:
  defaultBackend: {resource: {apiGroup: k8s.example.com, kind: Bucket, name: static}}
  rules:
  - host: nohttp.example.com
  - http:
      paths:
      - path: /static
        pathType: Exact
        backend: {resource: {apiGroup: k8s.example.com, kind: Bucket, name: static}}
      - path: /api
        pathType: Exact
        backend: {service: {name: web-stable, port: {number: 8080}}}
`,
		want: `
spec:
  rules:
  - http:
      paths:
      - path: /api
        pathType: Exact
        backend: {service: {name: web-canary, port: {number: 8080}}}
`,
	}, {
		name: "nothing routes to the stable Service",
		stable: `
metadata: {name: other, namespace: shop}
spec:
  defaultBackend: {service: {name: admin, port: {number: 80}}}
  rules:
  - http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: admin, port: {number: 80}}}}
`,
		err: "ingress shop/other routes nothing to Service web-stable",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stable := obj(t, tt.stable)
			before := stable.DeepCopy()
			got, err := canarySpec(stable, "web-stable", "web-canary")
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := obj(t, tt.want).Object["spec"]
			if !apiequality.Semantic.DeepEqual(got, want) {
				t.Errorf("spec =\n%v\nwant\n%v", got, want)
			}
			if !apiequality.Semantic.DeepEqual(stable, before) {
				t.Errorf("the stable Ingress was changed")
			}
		})
	}
}

func TestCanaryIngress(t *testing.T) {
	ro := rollout()
	got, err := canaryIngress(ro, obj(t, stableIngressYAML), traffic.Route{Canary: 20, Max: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetName() != "web-web-canary" || got.GetNamespace() != "shop" || got.GetKind() != "Ingress" || got.GetAPIVersion() != "networking.k8s.io/v1" {
		t.Errorf("canary Ingress is %s %s/%s", got.GroupVersionKind(), got.GetNamespace(), got.GetName())
	}
	if got.GetLabels() != nil {
		t.Errorf("labels = %v, want none", got.GetLabels())
	}
	refs := got.GetOwnerReferences()
	tr := true
	want := metav1.OwnerReference{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web", UID: "ro-uid", Controller: &tr, BlockOwnerDeletion: &tr}
	if len(refs) != 1 || !apiequality.Semantic.DeepEqual(refs[0], want) {
		t.Errorf("ownerReferences = %+v", refs)
	}
	if !controlledBy(got, ro) {
		t.Errorf("not controlled by its Rollout")
	}
	other := rollout()
	other.UID = "other"
	if controlledBy(got, other) {
		t.Errorf("controlled by another Rollout of the same name")
	}
	if a := got.GetAnnotations(); a["nginx.ingress.kubernetes.io/canary-weight"] != "20" || a["nginx.ingress.kubernetes.io/rewrite-target"] != "" {
		t.Errorf("annotations = %v", a)
	}
}

func TestApply(t *testing.T) {
	ro := rollout()
	desired, err := canaryIngress(ro, obj(t, stableIngressYAML), traffic.Route{Canary: 30, Max: 100})
	if err != nil {
		t.Fatal(err)
	}
	_, n := config(ro)
	own := func(k string) bool { return owned(n, k) }

	cur := desired.DeepCopy()
	cur.SetResourceVersion("7")
	cur.SetLabels(map[string]string{"team": "shop"})
	cur.SetAnnotations(map[string]string{
		"nginx.ingress.kubernetes.io/canary":                 "true",
		"nginx.ingress.kubernetes.io/canary-weight":          "10",
		"nginx.ingress.kubernetes.io/canary-by-header":       "X-Old",
		"nginx.ingress.kubernetes.io/canary-by-header-value": "1",
		"kubernetes.io/ingress.class":                        "nginx",
		"example.com/owner":                                  "team-shop",
	})
	unstructured.RemoveNestedField(cur.Object, "spec", "tls")
	gc := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "keep", UID: "cm"}
	cur.SetOwnerReferences([]metav1.OwnerReference{gc, {APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web", UID: "ro-uid", Controller: ptr(true)}})

	apply(cur, desired, own)

	wantAnn := map[string]string{
		"nginx.ingress.kubernetes.io/canary":        "true",
		"nginx.ingress.kubernetes.io/canary-weight": "30",
		"kubernetes.io/ingress.class":               "nginx",
		"example.com/owner":                         "team-shop",
	}
	if !apiequality.Semantic.DeepEqual(cur.GetAnnotations(), wantAnn) {
		t.Errorf("annotations = %v, want %v", cur.GetAnnotations(), wantAnn)
	}
	if !apiequality.Semantic.DeepEqual(cur.Object["spec"], desired.Object["spec"]) {
		t.Errorf("spec not restored")
	}
	if cur.GetLabels()["team"] != "shop" || cur.GetResourceVersion() != "7" {
		t.Errorf("metadata beyond annotations and owners changed: %v", cur.Object["metadata"])
	}
	refs := cur.GetOwnerReferences()
	if len(refs) != 2 || refs[0] != gc || !apiequality.Semantic.DeepEqual(refs[1], desired.GetOwnerReferences()[0]) {
		t.Errorf("ownerReferences = %+v", refs)
	}

	// Applying again changes nothing.
	again := cur.DeepCopy()
	apply(again, desired, own)
	if !apiequality.Semantic.DeepEqual(again.Object, cur.Object) {
		t.Errorf("apply is not idempotent")
	}
}

func ptr[T any](v T) *T { return &v }
