package nginx

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// CanaryName is the name of the canary Ingress Ramp keeps for the stable
// Ingress stable of Rollout rollout: "<rollout>-<stable>-canary". A name
// longer than an object name may be is cut and made unique again with a
// hash of the full name, so it is the same on every reconcile.
func CanaryName(rollout, stable string) string {
	name := rollout + "-" + stable + "-canary"
	if len(name) <= validation.DNS1123SubdomainMaxLength {
		return name
	}
	sum := sha256.Sum256([]byte(rollout + "/" + stable))
	suffix := "-" + hex.EncodeToString(sum[:5]) + "-canary"
	base := (rollout + "-" + stable)[:validation.DNS1123SubdomainMaxLength-len(suffix)]
	return strings.TrimRight(base, "-.") + suffix
}

// canaryIngress is the canary Ingress of stable as ro wants it for want.
func canaryIngress(ro *rampv1.Rollout, stable *unstructured.Unstructured, want traffic.Route) (*unstructured.Unstructured, error) {
	cs, n := config(ro)
	spec, err := canarySpec(stable, cs.StableService, cs.CanaryService)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: map[string]interface{}{"spec": spec}}
	u.SetGroupVersionKind(objects.IngressGVK)
	u.SetNamespace(ro.Namespace)
	u.SetName(CanaryName(ro.Name, stable.GetName()))
	u.SetAnnotations(annotations(n, stable, want))
	u.SetOwnerReferences([]metav1.OwnerReference{ownerRef(ro)})
	return u, nil
}

// canarySpec copies the spec of stable (class, TLS, rules and default
// backend) keeping only the backends of Service from, renamed to to; rules
// and paths that route elsewhere are dropped. It is an error if nothing
// routes to from.
func canarySpec(stable *unstructured.Unstructured, from, to string) (map[string]interface{}, error) {
	spec, _, _ := unstructured.NestedMap(stable.Object, "spec") // a deep copy
	out := map[string]interface{}{}
	for _, k := range []string{"ingressClassName", "tls"} {
		if v, ok := spec[k]; ok {
			out[k] = v
		}
	}
	if b, ok := spec["defaultBackend"].(map[string]interface{}); ok && rename(b, from, to) {
		out["defaultBackend"] = b
	}
	var rules []interface{}
	for _, r := range asSlice(spec["rules"]) {
		rule, ok := r.(map[string]interface{})
		if !ok {
			continue
		}
		http, ok := rule["http"].(map[string]interface{})
		if !ok {
			continue
		}
		var paths []interface{}
		for _, p := range asSlice(http["paths"]) {
			if path, ok := p.(map[string]interface{}); ok {
				if b, ok := path["backend"].(map[string]interface{}); ok && rename(b, from, to) {
					paths = append(paths, path)
				}
			}
		}
		if len(paths) > 0 {
			http["paths"] = paths
			rules = append(rules, rule)
		}
	}
	if rules != nil {
		out["rules"] = rules
	}
	if rules == nil && out["defaultBackend"] == nil {
		return nil, fmt.Errorf("ingress %s/%s routes nothing to Service %s", stable.GetNamespace(), stable.GetName(), from)
	}
	return out, nil
}

// rename points backend b at Service to if it points at Service from.
func rename(b map[string]interface{}, from, to string) bool {
	svc, ok := b["service"].(map[string]interface{})
	if !ok || svc["name"] != from {
		return false
	}
	svc["name"] = to
	return true
}

func asSlice(v interface{}) []interface{} {
	s, _ := v.([]interface{})
	return s
}

// ownerRef makes ro the controller of a canary Ingress.
func ownerRef(ro *rampv1.Rollout) metav1.OwnerReference {
	return *metav1.NewControllerRef(ro, rampv1.GroupVersion.WithKind("Rollout"))
}

// controlledBy says whether ro is the controller of u.
func controlledBy(u *unstructured.Unstructured, ro *rampv1.Rollout) bool {
	ref := metav1.GetControllerOf(u)
	return ref != nil && ref.UID == ro.UID
}

// apply gives the existing canary Ingress u the spec, owned annotations and
// owner reference of desired, keeping everything else.
func apply(u, desired *unstructured.Unstructured, owned func(string) bool) {
	u.Object["spec"] = runtime.DeepCopyJSONValue(desired.Object["spec"])
	u.SetAnnotations(mergeAnnotations(u.GetAnnotations(), desired.GetAnnotations(), owned))
	want := desired.GetOwnerReferences()[0]
	refs := u.GetOwnerReferences()
	for i, ref := range refs {
		if ref.UID == want.UID {
			if !apiequality.Semantic.DeepEqual(ref, want) {
				refs[i] = want
				u.SetOwnerReferences(refs)
			}
			return
		}
	}
	u.SetOwnerReferences(append(refs, want))
}
