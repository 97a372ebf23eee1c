package analysis

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Upstream's rollout-inline-analysis example: count and interval come from
// arguments. They are checked as the values they will be, not as the
// placeholder text.
func TestValidateMetricsWithArgs(t *testing.T) {
	templated := func(count, interval string) rampv1.Metric {
		m := spec()
		c := intstr.FromString(count)
		m.Count, m.Interval = &c, rampv1.DurationString(interval)
		return m
	}
	val := func(name, v string) rampv1.Argument { return rampv1.Argument{Name: name, Value: &v} }
	secret := rampv1.Argument{Name: "token", ValueFrom: &rampv1.ValueFrom{SecretKeyRef: &rampv1.SecretKeyRef{Name: "s", Key: "k"}}}
	for _, c := range []struct {
		name   string
		metric rampv1.Metric
		args   []rampv1.Argument
		want   string
	}{
		{"count and interval from args", templated("{{args.count}}", "{{ args.interval }}"), []rampv1.Argument{val("count", "3"), val("interval", "5s")}, ""},
		{"a bad value is still an error", templated("{{args.count}}", "{{args.interval}}"), []rampv1.Argument{val("count", "3"), val("interval", "soon")}, "invalid interval string"},
		{"count from args below failureLimit", func() rampv1.Metric {
			m := templated("{{args.count}}", "1s")
			m.FailureLimit = ptrIntStr(intstr.FromInt32(2))
			return m
		}(), []rampv1.Argument{val("count", "1")}, "count must be >= failureLimit"},
		{"a Secret argument waits for the run", templated("{{args.token}}", "{{args.token}}"), []rampv1.Argument{secret}, ""},
		{"an undeclared argument", templated("3", "{{args.interval}}"), nil, `metric "m" uses argument "interval", which is not declared`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateMetricsWithArgs([]rampv1.Metric{c.metric}, c.args)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestResolveKnownKeepsSecrets(t *testing.T) {
	m := spec()
	m.Interval = "{{args.interval}}"
	m.Provider.Web = &rampv1.WebMetric{URL: "http://x/{{args.token}}"}
	v := "2s"
	run := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{m}, Args: []rampv1.Argument{
		{Name: "interval", Value: &v},
		{Name: "token", ValueFrom: &rampv1.ValueFrom{SecretKeyRef: &rampv1.SecretKeyRef{Name: "s", Key: "k"}}},
	}}
	got := ResolveKnown(run)
	if got.Metrics[0].Interval != "2s" {
		t.Errorf("interval %q, want 2s", got.Metrics[0].Interval)
	}
	if got.Metrics[0].Provider.Web.URL != "http://x/{{args.token}}" {
		t.Errorf("secret placeholder resolved early: %q", got.Metrics[0].Provider.Web.URL)
	}
	if run.Metrics[0].Interval != "{{args.interval}}" {
		t.Error("ResolveKnown changed its input")
	}
}
