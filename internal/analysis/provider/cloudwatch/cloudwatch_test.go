package cloudwatch

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/cloudwatch/cloudwatchtest"
)

const (
	keyID  = "AKIDRAMPTEST0001"
	secret = "s3cr3t-AWS-key/value+ramp"
	region = "eu-west-3"
)

// awsEnv points the SDK's standard configuration at srv (through the
// service-specific endpoint variable unless generic) with static keys and
// nothing from the machine's files or IMDS.
func awsEnv(t testing.TB, endpoint string, generic bool) {
	t.Helper()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": keyID, "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": region,
		"AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_PROFILE": "", "AWS_SESSION_TOKEN": "",
		"AWS_ENDPOINT_URL_CLOUDWATCH": "", "AWS_ENDPOINT_URL": "", "AWS_MAX_ATTEMPTS": "1",
	} {
		t.Setenv(k, v)
	}
	if generic {
		t.Setenv("AWS_ENDPOINT_URL", endpoint)
	} else {
		t.Setenv("AWS_ENDPOINT_URL_CLOUDWATCH", endpoint)
	}
}

// upstreamMetric is upstream's documented example (docs/analysis/cloudwatch.md).
func upstreamMetric(cond string) rampv1.Metric {
	return rampv1.Metric{
		Name:             "success-rate",
		SuccessCondition: cond,
		Provider: rampv1.MetricProvider{CloudWatch: &rampv1.CloudWatchMetric{
			Interval: "30m",
			MetricDataQueries: []rampv1.CloudWatchMetricDataQuery{
				{ID: "rate", Expression: ptr.To("errors / requests")},
				stat("errors"), stat("requests"),
			},
		}},
	}
}

func stat(name string) rampv1.CloudWatchMetricDataQuery {
	return rampv1.CloudWatchMetricDataQuery{
		ID: name,
		MetricStat: &rampv1.CloudWatchMetricStat{
			Metric: rampv1.CloudWatchMetricStatMetric{
				Namespace: ptr.To("app"), MetricName: name,
				Dimensions: []rampv1.CloudWatchMetricStatMetricDimension{{Name: "Service", Value: "checkout"}},
			},
			Period: intstr.FromInt32(300), Stat: "Sum", Unit: "Count",
		},
		ReturnData: ptr.To(false),
	}
}

var now = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func measure(t *testing.T, m rampv1.Metric) (provider.Result, error) {
	t.Helper()
	p := New(WithClock(func() time.Time { return now }))
	return p.Measure(context.Background(), provider.Request{Metric: m})
}

// TestUpstreamExample: upstream's documented template sends its three
// queries field by field over the 30m window, signed with the key id from
// the environment, and its documented condition judges the result.
func TestUpstreamExample(t *testing.T) {
	srv := cloudwatchtest.NewServer(keyID, region)
	defer srv.Close()
	awsEnv(t, srv.URL, false)
	srv.SetValues("rate", 0.001, 0.002, 0.003, 0.004, 0.005)

	m := upstreamMetric("len(result[0].Values) >= 5 and all(result[0].Values, {# <= 0.01})")
	res, err := measure(t, m)
	if err != nil {
		t.Fatalf("Measure: %v (server saw: %v)", err, srv.Problems())
	}
	if res.Display != "[[0.001 0.002 0.003 0.004 0.005]]" {
		t.Errorf("Display = %q", res.Display)
	}
	if phase, err := analysis.Evaluate(m, res.Value); phase != rampv1.AnalysisPhaseSuccessful || err != nil {
		t.Errorf("upstream's condition: %s, %v", phase, err)
	}
	m.SuccessCondition = "all(result[0].Values, {# <= 0.002})"
	if phase, _ := analysis.Evaluate(m, res.Value); phase != rampv1.AnalysisPhaseFailed {
		t.Errorf("failing condition: %s", phase)
	}
	m.SuccessCondition = `string(result[0].StatusCode) == "Complete" and len(result[0].Timestamps) == 5 and result[0].Timestamps[0].Unix() > 0`
	if phase, err := analysis.Evaluate(m, res.Value); phase != rampv1.AnalysisPhaseSuccessful {
		t.Errorf("upstream's field names (StatusCode, Timestamps): %s, %v", phase, err)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d, want 1", len(reqs))
	}
	in := reqs[0]
	if !in.EndTime.Equal(now) || !in.StartTime.Equal(now.Add(-30*time.Minute)) {
		t.Errorf("window [%s, %s], want the 30m before %s", in.StartTime, in.EndTime, now)
	}
	q := in.MetricDataQueries
	if len(q) != 3 || q[0].Id != "rate" || ptr.Deref(q[0].Expression, "") != "errors / requests" || q[0].MetricStat != nil || q[0].ReturnData != nil {
		t.Fatalf("query 0 = %+v", q[0])
	}
	ms := q[1].MetricStat
	if q[1].Id != "errors" || ms == nil || ptr.Deref(ms.Metric.Namespace, "") != "app" || ptr.Deref(ms.Metric.MetricName, "") != "errors" ||
		ptr.Deref(ms.Period, 0) != 300 || ptr.Deref(ms.Stat, "") != "Sum" || ms.Unit != "Count" || q[1].ReturnData == nil || *q[1].ReturnData ||
		len(ms.Metric.Dimensions) != 1 || ms.Metric.Dimensions[0].Name != "Service" || ms.Metric.Dimensions[0].Value != "checkout" {
		t.Errorf("query 1 = %+v, metricStat %+v", q[1], ms)
	}
}

// TestDefaultsAndFields: no interval is upstream's 5m; label and the
// query-level period go through; AWS_ENDPOINT_URL (generic) is honoured;
// messages CloudWatch returns reach metadata "messages".
func TestDefaultsAndFields(t *testing.T) {
	srv := cloudwatchtest.NewServer(keyID, region)
	defer srv.Close()
	awsEnv(t, srv.URL, true)
	srv.SetValues("q", 7)
	srv.SetMessages(cloudwatchtest.Message{Code: "MaxMetricsExceeded", Value: "too many"})
	m := rampv1.Metric{Name: "m", Provider: rampv1.MetricProvider{CloudWatch: &rampv1.CloudWatchMetric{
		MetricDataQueries: []rampv1.CloudWatchMetricDataQuery{{
			ID: "q", Expression: ptr.To(`SELECT AVG(CPUUtilization) FROM "AWS/EC2"`), Label: ptr.To("cpu"),
			Period: ptr.To(intstr.FromString("60")),
		}},
	}}}
	res, err := measure(t, m)
	if err != nil {
		t.Fatalf("Measure: %v (%v)", err, srv.Problems())
	}
	in := srv.Requests()[0]
	if got := in.EndTime.Sub(in.StartTime); got != DefaultInterval {
		t.Errorf("window %s, want %s", got, DefaultInterval)
	}
	if q := in.MetricDataQueries[0]; ptr.Deref(q.Label, "") != "cpu" || ptr.Deref(q.Period, 0) != 60 {
		t.Errorf("query = %+v", q)
	}
	got := res.Value.([]types.MetricDataResult)
	if len(got) != 1 || ptr.Deref(got[0].Label, "") != "cpu" || res.Display != "[[7]]" {
		t.Errorf("result %+v, display %q", got, res.Display)
	}
	if res.Metadata[MessagesMetadataKey] != "[{Code:MaxMetricsExceeded Value:too many}]" {
		t.Errorf("metadata = %v", res.Metadata)
	}
}

// TestBadInput: mistakes in the metric are errors naming the field, before
// any request.
func TestBadInput(t *testing.T) {
	srv := cloudwatchtest.NewServer(keyID, region)
	defer srv.Close()
	awsEnv(t, srv.URL, false)
	bad := func(edit func(*rampv1.CloudWatchMetric)) rampv1.Metric {
		m := upstreamMetric("true")
		edit(m.Provider.CloudWatch)
		return m
	}
	for name, tc := range map[string]struct {
		m    rampv1.Metric
		want string
	}{
		"interval":             {bad(func(c *rampv1.CloudWatchMetric) { c.Interval = "soon" }), `interval "soon"`},
		"no queries":           {bad(func(c *rampv1.CloudWatchMetric) { c.MetricDataQueries = nil }), "metricDataQueries is empty"},
		"stat period":          {bad(func(c *rampv1.CloudWatchMetric) { c.MetricDataQueries[1].MetricStat.Period = intstr.FromString("5m") }), `metricDataQueries[1].metricStat.period "5m"`},
		"period":               {bad(func(c *rampv1.CloudWatchMetric) { c.MetricDataQueries[0].Period = ptr.To(intstr.FromString("x")) }), `metricDataQueries[0].period "x"`},
		"negative period":      {bad(func(c *rampv1.CloudWatchMetric) { c.MetricDataQueries[0].Period = ptr.To(intstr.FromInt32(-60)) }), `metricDataQueries[0].period -60 is not a whole number of seconds`},
		"negative stat period": {bad(func(c *rampv1.CloudWatchMetric) { c.MetricDataQueries[1].MetricStat.Period = intstr.FromInt32(-1) }), `metricDataQueries[1].metricStat.period -1 is not`},
		"no provider":          {rampv1.Metric{Name: "m"}, "no cloudWatch provider"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := measure(t, tc.m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
	if n := len(srv.Requests()) + len(srv.Problems()); n != 0 {
		t.Errorf("%d requests sent for bad input", n)
	}
}

// TestErrors: every failure is an error naming its cause (the documented
// error code), and never carries the secret key, plain or base64, even
// when the server echoes it.
func TestErrors(t *testing.T) {
	echo := cloudwatchtest.AccessDenied
	echo.Message = "denied for key " + keyID + " secret " + secret + " " + base64.StdEncoding.EncodeToString([]byte(secret))
	for name, tc := range map[string]struct {
		setup func(*testing.T, *cloudwatchtest.Server)
		want  string
	}{
		"access denied": {func(_ *testing.T, s *cloudwatchtest.Server) { s.SetFault(&echo) }, "AccessDenied"},
		"throttling":    {func(_ *testing.T, s *cloudwatchtest.Server) { s.SetFault(&cloudwatchtest.Throttling) }, "api error Throttling: Rate exceeded"},
		"internal":      {func(_ *testing.T, s *cloudwatchtest.Server) { s.SetFault(&cloudwatchtest.InternalFailure) }, "StatusCode: 500"},
		"wrong key":     {func(_ *testing.T, s *cloudwatchtest.Server) { s.SetKeyID("AKIDOTHER") }, "InvalidClientTokenId"},
		"malformed":     {func(_ *testing.T, s *cloudwatchtest.Server) { s.SetRawBody([]byte("{not cbor")) }, "deserialization failed"},
		"no region":     {func(t *testing.T, _ *cloudwatchtest.Server) { t.Setenv("AWS_REGION", "") }, "no AWS region"},
		"unreachable":   {func(t *testing.T, s *cloudwatchtest.Server) { s.Close() }, "connection refused"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := cloudwatchtest.NewServer(keyID, region)
			defer srv.Close()
			awsEnv(t, srv.URL, false)
			tc.setup(t, srv)
			res, err := measure(t, upstreamMetric("true"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			noSecret(t, err.Error()+res.Display+res.Message)
			if p := srv.Problems(); len(p) > 0 {
				t.Errorf("malformed requests: %v", p)
			}
		})
	}
}

// TestThrottlingRetried: Throttling is retried as the SDK's standard
// retryer does (AWS_MAX_ATTEMPTS), then reported.
func TestThrottlingRetried(t *testing.T) {
	srv := cloudwatchtest.NewServer(keyID, region)
	defer srv.Close()
	awsEnv(t, srv.URL, false)
	t.Setenv("AWS_MAX_ATTEMPTS", "2")
	srv.SetFault(&cloudwatchtest.Throttling)
	_, err := measure(t, upstreamMetric("true"))
	if err == nil || !strings.Contains(err.Error(), "Throttling") {
		t.Fatalf("error %v", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("requests = %d, want 2 (one retry)", n)
	}
}

// TestTimeout: a server that never answers gives an error once the
// caller's deadline passes.
func TestTimeout(t *testing.T) {
	srv := cloudwatchtest.NewServer(keyID, region)
	block := make(chan struct{})
	srv.Config.Handler = nil
	srv.Config.Handler = httpBlock(block)
	defer srv.Close()
	defer close(block)
	awsEnv(t, srv.URL, false)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := New().Measure(ctx, provider.Request{Metric: upstreamMetric("true")})
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("error %v, want a deadline", err)
	}
}

func noSecret(t *testing.T, s string) {
	t.Helper()
	for _, form := range []string{secret, base64.StdEncoding.EncodeToString([]byte(secret))} {
		if strings.Contains(s, form) {
			t.Errorf("secret leaked in %q", s)
		}
	}
}
