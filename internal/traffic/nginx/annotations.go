package nginx

import (
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// Canary annotations, without the prefix.
const (
	annCanary          = "canary"
	annWeight          = "canary-weight"
	annWeightTotal     = "canary-weight-total"
	annByHeader        = "canary-by-header"
	annByHeaderValue   = "canary-by-header-value"
	annByHeaderPattern = "canary-by-header-pattern"
)

// ingressClassAnnotation is the legacy way to pick the ingress controller;
// the canary Ingress must be served by the same one as the stable Ingress.
const ingressClassAnnotation = "kubernetes.io/ingress.class"

// reserved are the annotations only Ramp sets; the user may not.
var reserved = map[string]bool{annCanary: true, annWeight: true, annWeightTotal: true}

// prefix is the NGINX Ingress Controller's annotation prefix.
func prefix(n *rampv1.NginxTrafficRouting) string {
	if n.AnnotationPrefix != "" {
		return n.AnnotationPrefix
	}
	return rampv1.DefaultNginxAnnotationPrefix
}

// cutPrefix returns key without "<p>/", and whether it had it.
func cutPrefix(p, key string) (string, bool) { return strings.CutPrefix(key, p+"/") }

// annotations are the annotations of the canary Ingress of stable for want:
// the stable Ingress's class annotation, the user's additional (prefixed)
// and canary annotations, the canary flag and weight, and the header route.
func annotations(n *rampv1.NginxTrafficRouting, stable *unstructured.Unstructured, want traffic.Route) map[string]string {
	p := prefix(n) + "/"
	a := map[string]string{}
	if class, ok := stable.GetAnnotations()[ingressClassAnnotation]; ok {
		a[ingressClassAnnotation] = class
	}
	for k, v := range n.AdditionalIngressAnnotations {
		a[p+k] = v
	}
	for k, v := range n.CanaryIngressAnnotations {
		a[k] = v
	}
	a[p+annCanary] = "true"
	a[p+annWeight] = strconv.Itoa(int(want.Canary))
	if want.Max != rampv1.DefaultMaxTrafficWeight {
		a[p+annWeightTotal] = strconv.Itoa(int(want.Max))
	}
	if len(want.Headers) == 1 && len(want.Headers[0].Match) == 1 {
		m := want.Headers[0].Match[0]
		delete(a, p+annByHeaderValue)
		delete(a, p+annByHeaderPattern)
		a[p+annByHeader] = m.HeaderName
		switch v := m.HeaderValue; {
		case v.Exact != "":
			a[p+annByHeaderValue] = v.Exact
		case v.Regex != "":
			a[p+annByHeaderPattern] = v.Regex
		case v.Prefix != "":
			a[p+annByHeaderPattern] = "^" + regexp.QuoteMeta(v.Prefix) + ".*"
		}
	}
	return a
}

// owned says whether Ramp decides annotation key of a canary Ingress: every
// key under the prefix (additionalIngressAnnotations is how a user sets
// them), the user's canaryIngressAnnotations and the class annotation. Any
// other annotation was added by someone else and is kept.
func owned(n *rampv1.NginxTrafficRouting, key string) bool {
	if _, ok := cutPrefix(prefix(n), key); ok || key == ingressClassAnnotation {
		return true
	}
	_, ok := n.CanaryIngressAnnotations[key]
	return ok
}

// mergeAnnotations returns cur with the owned keys set as in want: owned
// keys want lacks are removed, the rest of cur is kept.
func mergeAnnotations(cur, want map[string]string, owned func(string) bool) map[string]string {
	out := make(map[string]string, len(cur)+len(want))
	for k, v := range cur {
		if !owned(k) {
			out[k] = v
		}
	}
	for k, v := range want {
		out[k] = v
	}
	return out
}
