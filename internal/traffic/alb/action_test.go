package alb

import (
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

func TestValue(t *testing.T) {
	tests := []struct {
		name     string
		alb      func(*rampv1.ALBTrafficRouting)
		want     traffic.Route
		key, val string
	}{{
		name: "weights",
		want: traffic.Route{Canary: 30, Max: 100},
		key:  "alb.ingress.kubernetes.io/actions.web-stable",
		val:  `{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"web-canary","ServicePort":"80","Weight":30},{"ServiceName":"web-stable","ServicePort":"80","Weight":70}]}}`,
	}, {
		name: "weights sum to max",
		want: traffic.Route{Canary: 5, Max: 200},
		key:  "alb.ingress.kubernetes.io/actions.web-stable",
		val:  `{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"web-canary","ServicePort":"80","Weight":5},{"ServiceName":"web-stable","ServicePort":"80","Weight":195}]}}`,
	}, {
		name: "stickiness",
		alb: func(a *rampv1.ALBTrafficRouting) {
			a.StickinessConfig = &rampv1.StickinessConfig{Enabled: true, DurationSeconds: 3600}
		},
		want: traffic.Route{Canary: 100, Max: 100},
		key:  "alb.ingress.kubernetes.io/actions.web-stable",
		val:  `{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"web-canary","ServicePort":"80","Weight":100},{"ServiceName":"web-stable","ServicePort":"80","Weight":0}],"TargetGroupStickinessConfig":{"Enabled":true,"DurationSeconds":3600}}}`,
	}, {
		name: "stickiness disabled is not written (as upstream)",
		alb: func(a *rampv1.ALBTrafficRouting) {
			a.StickinessConfig = &rampv1.StickinessConfig{DurationSeconds: 3600}
		},
		want: traffic.Route{Canary: 10, Max: 100},
		key:  "alb.ingress.kubernetes.io/actions.web-stable",
		val:  `{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"web-canary","ServicePort":"80","Weight":10},{"ServiceName":"web-stable","ServicePort":"80","Weight":90}]}}`,
	}, {
		name: "root service and prefix",
		alb: func(a *rampv1.ALBTrafficRouting) {
			a.RootService, a.AnnotationPrefix, a.ServicePort = "web", "custom.example.com", 8443
		},
		want: traffic.Route{Canary: 0, Max: 100},
		key:  "custom.example.com/actions.web",
		val:  `{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"web-canary","ServicePort":"8443","Weight":0},{"ServiceName":"web-stable","ServicePort":"8443","Weight":100}]}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			act := newAction(rollout())
			if tt.alb != nil {
				act = newAction(rollout(tt.alb))
			}
			val, err := act.value(tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if act.key() != tt.key || val != tt.val {
				t.Errorf("action = %s: %s\nwant %s: %s", act.key(), val, tt.key, tt.val)
			}
		})
	}
}

func TestCheckIngress(t *testing.T) {
	tests := []struct {
		name, ingress string
		root          string
		err           string
	}{
		{name: "rule", ingress: ingressYAML},
		{name: "root service rule", root: "web", ingress: `
metadata: {name: web, namespace: shop}
spec:
  rules:
  - http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {name: use-annotation}}}}]}`},
		{name: "default backend", ingress: `
metadata: {name: web, namespace: shop}
spec: {defaultBackend: {service: {name: web-stable, port: {name: use-annotation}}}}`},
		{name: "numbered port", ingress: `
metadata: {name: web, namespace: shop}
spec:
  rules:
  - http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web-stable, port: {number: 80}}}}]}`,
			err: "ingress shop/web has no rule with backend service web-stable and port name use-annotation"},
		{name: "other service", root: "web", ingress: ingressYAML,
			err: "ingress shop/web has no rule with backend service web and port name use-annotation"},
		{name: "no rules", ingress: `metadata: {name: web, namespace: shop}`,
			err: "ingress shop/web has no rule with backend service web-stable and port name use-annotation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			act := newAction(rollout(func(a *rampv1.ALBTrafficRouting) { a.RootService = tt.root }))
			err := act.check(obj(t, tt.ingress))
			if (err == nil) != (tt.err == "") || err != nil && err.Error() != tt.err {
				t.Errorf("check = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestApply(t *testing.T) {
	const key = "alb.ingress.kubernetes.io/actions.web-stable"
	act := newAction(rollout())
	route := traffic.Route{Canary: 30, Max: 100}
	val, err := act.value(route)
	if err != nil {
		t.Fatal(err)
	}
	// The same action as written by another tool: keys reordered, spaced.
	reordered := `{"ForwardConfig": {"TargetGroups": [{"Weight": 30, "ServicePort": "80", "ServiceName": "web-canary"},
		{"ServiceName": "web-stable", "Weight": 70, "ServicePort": "80"}]}, "Type": "forward"}`
	tests := []struct {
		name     string
		ann, out map[string]string // out nil: unchanged
		err      string
	}{{
		name: "no annotations yet",
		ann:  nil,
		out:  map[string]string{key: val, rampv1.ManagedALBAnnotationsAnnotation: `{"web":["` + key + `"]}`},
	}, {
		name: "other annotations kept",
		ann:  map[string]string{"alb.ingress.kubernetes.io/scheme": "internal", key: `{"Type":"forward"}`},
		out:  map[string]string{"alb.ingress.kubernetes.io/scheme": "internal", key: val, rampv1.ManagedALBAnnotationsAnnotation: `{"web":["` + key + `"]}`},
	}, {
		name: "same JSON in another key order is left as it is",
		ann:  map[string]string{key: reordered, rampv1.ManagedALBAnnotationsAnnotation: `{"web":["` + key + `"]}`},
	}, {
		name: "other Rollouts' entries kept",
		ann:  map[string]string{key: val, rampv1.ManagedALBAnnotationsAnnotation: `{"api":["alb.ingress.kubernetes.io/actions.api-stable"]}`},
		out: map[string]string{key: val,
			rampv1.ManagedALBAnnotationsAnnotation: `{"api":["alb.ingress.kubernetes.io/actions.api-stable"],"web":["` + key + `"]}`},
	}, {
		name: "own entry among others, spaced: unchanged",
		ann:  map[string]string{key: val, rampv1.ManagedALBAnnotationsAnnotation: `{"api": ["alb.ingress.kubernetes.io/actions.api-stable"], "web": ["` + key + `"]}`},
	}, {
		name: "the Rollout's other managed annotations are kept (as upstream)",
		ann:  map[string]string{key: val, rampv1.ManagedALBAnnotationsAnnotation: `{"myweb":["x"],"web":["alb.ingress.kubernetes.io/conditions.web-stable"]}`},
		out: map[string]string{key: val,
			rampv1.ManagedALBAnnotationsAnnotation: `{"myweb":["x"],"web":["alb.ingress.kubernetes.io/conditions.web-stable","` + key + `"]}`},
	}, {
		name: "action of another Rollout",
		ann:  map[string]string{rampv1.ManagedALBAnnotationsAnnotation: `{"other":["` + key + `"]}`},
		err:  key + " is managed by Rollout other",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := obj(t, ingressYAML)
			u.SetAnnotations(tt.ann)
			before := u.DeepCopy()
			_, err := act.apply(u, route)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("apply = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.out == nil {
				if !apiequality.Semantic.DeepEqual(u.Object, before.Object) {
					t.Errorf("changed: %v", u.GetAnnotations())
				}
				return
			}
			if !apiequality.Semantic.DeepEqual(u.GetAnnotations(), tt.out) {
				t.Errorf("annotations =\n%v\nwant\n%v", u.GetAnnotations(), tt.out)
			}
			before.SetAnnotations(u.GetAnnotations())
			if !apiequality.Semantic.DeepEqual(u.Object, before.Object) {
				t.Errorf("changed more than annotations")
			}
		})
	}
}

func TestSameJSON(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2], "a":1.0}`, true},
		{`{"a":1,"b":[1,2]}`, `{"a":1,"b":[2,1]}`, false},
		{``, `{}`, false},
		{`not json`, `not json`, false},
	} {
		if got := sameJSON(tt.a, tt.b); got != tt.same {
			t.Errorf("sameJSON(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}
