package rollout_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestReadErrorsAreRetried: an API error reading a Service or an
// AnalysisTemplate (a timeout, a 500) fails the pass, which is retried; it
// is never taken for "the Service selects nothing" or "the template is
// missing" (InvalidSpec). Nothing is written in that pass. Before the fix
// the Service read error was ignored and the template's became InvalidSpec.
func TestReadErrorsAreRetried(t *testing.T) {
	tmpl := &rampv1.AnalysisTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ok"},
		Spec: rampv1.AnalysisTemplateSpec{Metrics: []rampv1.Metric{{Name: "m", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}}}
	for _, kind := range []string{"Service", "AnalysisTemplate"} {
		for name, apiErr := range controllertest.Errors() {
			t.Run(kind+"/"+name, func(t *testing.T) {
				ro := webRollout(t, `      canaryService: web-canary
      stableService: web-stable
      analysis: {templates: [{templateName: ok}]}
      steps: [{setWeight: 50}]
`)
				env, r := newEnv(t, ro, service("web-canary"), service("web-stable"), tmpl)
				env.FailAt(controllertest.Match{Verb: "get", Kind: kind}, 0, apiErr)
				if _, err := pass(r, "web"); err == nil {
					t.Error("pass: no error, want the read error")
				}
				if env.Pending() {
					t.Fatalf("no %s was read", kind)
				}
				if w := env.Log(); len(w) != 0 {
					t.Errorf("writes in the failed pass: %v", w)
				}
				if c := condition(getRollout(t, env, "web").Status, rampv1.RolloutInvalidSpec); c != nil {
					t.Errorf("InvalidSpec %q from a read error", c.Message)
				}
				converge(t, env, r, "web")
				for _, svc := range []string{"web-canary", "web-stable"} {
					s := &corev1.Service{}
					if err := env.API.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: svc}, s); err != nil || s.Spec.Selector[rampv1.DefaultRolloutUniqueLabelKey] == "" {
						t.Errorf("Service %s selects %v (%v), want the hash after the retry", svc, s.Spec.Selector, err)
					}
				}
			})
		}
	}
}
