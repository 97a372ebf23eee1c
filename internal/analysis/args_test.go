package analysis

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func promMetric(query string) rampv1.Metric {
	return rampv1.Metric{Name: "m", SuccessCondition: "result[0] > {{args.min}}",
		FailureLimit: ptrIntStr(intstr.FromString("{{ args.limit }}")),
		Provider: rampv1.MetricProvider{Prometheus: &rampv1.PrometheusMetric{Address: "http://p", Query: query,
			Headers: []rampv1.WebMetricHeader{{Key: "Authorization", Value: "Bearer {{args.token}}"}}}}}
}

func ptrIntStr(v intstr.IntOrString) *intstr.IntOrString { return &v }

func TestSubstitute(t *testing.T) {
	args := Args{Values: map[string]string{"svc": `a"b\c`, "min": "0.9", "limit": "3", "token": "s3cr3t"}, Secrets: map[string]bool{"token": true}}
	got, err := Substitute(promMetric(`sum(x{service="{{args.svc}}"})`), args)
	if err != nil {
		t.Fatal(err)
	}
	if q := got.Provider.Prometheus.Query; q != `sum(x{service="a"b\c"})` {
		t.Errorf("query = %q", q)
	}
	if got.SuccessCondition != "result[0] > 0.9" || got.FailureLimit.String() != "3" {
		t.Errorf("condition %q, failureLimit %v", got.SuccessCondition, got.FailureLimit)
	}
	if h := got.Provider.Prometheus.Headers[0].Value; h != "Bearer s3cr3t" {
		t.Errorf("header = %q", h)
	}
	if r := args.Redact("401 for Bearer s3cr3t"); strings.Contains(r, "s3cr3t") {
		t.Errorf("not redacted: %q", r)
	}
	if r := args.Redact("svc a\"b\\c"); r != "svc a\"b\\c" {
		t.Errorf("a non-secret value was redacted: %q", r)
	}
}

func TestSubstituteMissing(t *testing.T) {
	_, err := Substitute(promMetric("x"), Args{Values: map[string]string{"min": "1"}})
	if err == nil || !strings.Contains(err.Error(), `metric "m"`) || !strings.Contains(err.Error(), `"limit"`) {
		t.Fatalf("err = %v, want it to name the metric and the first missing argument", err)
	}
}

func FuzzSubstitute(f *testing.F) {
	f.Add(`q{a="{{args.v}}"}`, `x"}`)
	f.Add("{{args.v}}", "\\u0000\n")
	f.Fuzz(func(t *testing.T, query, value string) {
		m := rampv1.Metric{Name: "m", Provider: rampv1.MetricProvider{Prometheus: &rampv1.PrometheusMetric{Query: query}}}
		got, err := Substitute(m, Args{Values: map[string]string{"v": value}})
		if err != nil {
			return // an undefined argument: reported, never a panic
		}
		if got.Name != "m" || got.Provider.Prometheus == nil {
			t.Fatalf("substitution changed the metric's structure: %+v", got)
		}
	})
}
