package nginx

import (
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

func TestAnnotations(t *testing.T) {
	const p = "nginx.ingress.kubernetes.io/"
	stable := `
metadata: {name: web, namespace: shop, annotations: {kubernetes.io/ingress.class: public, ` + p + `ssl-redirect: "true"}}
spec: {}`
	tests := []struct {
		name   string
		nginx  func(*rampv1.NginxTrafficRouting)
		stable string
		want   traffic.Route
		ann    map[string]string
	}{{
		name: "weight",
		want: traffic.Route{Canary: 25, Max: 100},
		ann:  map[string]string{p + "canary": "true", p + "canary-weight": "25"},
	}, {
		name: "weight total when max is not 100",
		want: traffic.Route{Canary: 25, Max: 1000},
		ann:  map[string]string{p + "canary": "true", p + "canary-weight": "25", p + "canary-weight-total": "1000"},
	}, {
		name:   "class annotation of the stable Ingress, nothing else of it",
		stable: stable,
		want:   traffic.Route{Max: 100},
		ann:    map[string]string{p + "canary": "true", p + "canary-weight": "0", "kubernetes.io/ingress.class": "public"},
	}, {
		name: "prefix, additional and canary annotations",
		nginx: func(n *rampv1.NginxTrafficRouting) {
			n.AnnotationPrefix = "custom.example.com"
			n.AdditionalIngressAnnotations = map[string]string{"canary-by-header": "X-Canary"}
			n.CanaryIngressAnnotations = map[string]string{"example.com/team": "shop"}
		},
		want: traffic.Route{Canary: 5, Max: 100},
		ann: map[string]string{
			"custom.example.com/canary": "true", "custom.example.com/canary-weight": "5",
			"custom.example.com/canary-by-header": "X-Canary", "example.com/team": "shop",
		},
	}, {
		name: "header route, exact",
		want: traffic.Route{Canary: 0, Max: 100, Headers: []rampv1.SetHeaderRoute{headerRoute("X-Canary", rampv1.StringMatch{Exact: "yes"})}},
		ann: map[string]string{p + "canary": "true", p + "canary-weight": "0",
			p + "canary-by-header": "X-Canary", p + "canary-by-header-value": "yes"},
	}, {
		name: "header route, regex",
		want: traffic.Route{Max: 100, Headers: []rampv1.SetHeaderRoute{headerRoute("X-Canary", rampv1.StringMatch{Regex: "^(a|b)$"})}},
		ann: map[string]string{p + "canary": "true", p + "canary-weight": "0",
			p + "canary-by-header": "X-Canary", p + "canary-by-header-pattern": "^(a|b)$"},
	}, {
		name: "header route, prefix is quoted",
		want: traffic.Route{Max: 100, Headers: []rampv1.SetHeaderRoute{headerRoute("User-Agent", rampv1.StringMatch{Prefix: "Mozilla/5.0 (iPhone"})}},
		ann: map[string]string{p + "canary": "true", p + "canary-weight": "0",
			p + "canary-by-header": "User-Agent", p + "canary-by-header-pattern": `^Mozilla/5\.0 \(iPhone.*`},
	}, {
		name: "header route replaces the additional header annotations while in force",
		nginx: func(n *rampv1.NginxTrafficRouting) {
			n.AdditionalIngressAnnotations = map[string]string{"canary-by-header": "X-Beta", "canary-by-header-value": "on"}
		},
		want: traffic.Route{Max: 100, Headers: []rampv1.SetHeaderRoute{headerRoute("X-Canary", rampv1.StringMatch{Regex: "a.*"})}},
		ann: map[string]string{p + "canary": "true", p + "canary-weight": "0",
			p + "canary-by-header": "X-Canary", p + "canary-by-header-pattern": "a.*"},
	}, {
		name: "header route without matches is no route",
		want: traffic.Route{Canary: 1, Max: 100, Headers: []rampv1.SetHeaderRoute{{Name: "h"}}},
		ann:  map[string]string{p + "canary": "true", p + "canary-weight": "1"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ro := rollout()
			if tt.nginx != nil {
				ro = rollout(tt.nginx)
			}
			if tt.stable == "" {
				tt.stable = "metadata: {name: web}"
			}
			_, n := config(ro)
			got := annotations(n, obj(t, tt.stable), tt.want)
			if !apiequality.Semantic.DeepEqual(got, tt.ann) {
				t.Errorf("annotations =\n%v\nwant\n%v", got, tt.ann)
			}
		})
	}
}

func TestMergeAnnotations(t *testing.T) {
	const p = "nginx.ingress.kubernetes.io/"
	n := &rampv1.NginxTrafficRouting{CanaryIngressAnnotations: map[string]string{"example.com/team": "shop"}}
	cur := map[string]string{
		p + "canary": "true", p + "canary-weight": "10", p + "canary-weight-total": "1000",
		p + "canary-by-header": "X-Canary", p + "canary-by-header-pattern": "a",
		"example.com/team":  "old",
		"example.com/owner": "team-shop",
		"kubectl.kubernetes.io/last-applied-configuration": "{}",
	}
	want := map[string]string{p + "canary": "true", p + "canary-weight": "40", "example.com/team": "shop"}
	got := mergeAnnotations(cur, want, func(k string) bool { return owned(n, k) })
	exp := map[string]string{
		p + "canary": "true", p + "canary-weight": "40", "example.com/team": "shop",
		"example.com/owner": "team-shop",
		"kubectl.kubernetes.io/last-applied-configuration": "{}",
	}
	if !apiequality.Semantic.DeepEqual(got, exp) {
		t.Errorf("merged =\n%v\nwant\n%v", got, exp)
	}
}
