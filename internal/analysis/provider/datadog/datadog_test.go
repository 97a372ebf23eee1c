package datadog

import (
	"context"
	"encoding/base64"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// TestMeasureV1: the default API (v1) asks GET /api/v1/query for the
// window [now-interval, now] in unix seconds (interval 5m by default) with
// both keys, and the value is the last point of the first series.
func TestMeasureV1(t *testing.T) {
	for _, tc := range []struct {
		interval rampv1.DurationString
		from     time.Time
	}{{"", now.Add(-5 * time.Minute)}, {"10m", now.Add(-10 * time.Minute)}} {
		q := "sum:requests.error.rate{service:web}"
		want := map[string]string{"query": q, "from": strconv.FormatInt(tc.from.Unix(), 10), "to": strconv.FormatInt(now.Unix(), 10)}
		srv := fakeDatadog(t, want, answer{status: 200, body: `{"status":"ok","res_type":"time_series","series":[{"metric":"requests.error.rate","pointlist":[[1699999700000,0.5],[1699999990000,0.0025]]}]}`})
		res, err := measure(deps(srv.URL), rampv1.DatadogMetric{Query: q, Interval: tc.interval})
		if err != nil || res.Value != 0.0025 || res.Display != "0.0025" {
			t.Errorf("interval %q: %#v, %v", tc.interval, res, err)
		}
	}
}

// TestMeasureV2: apiVersion v2 posts a scalar_request with the window in
// milliseconds; a lone query is named "query" with the default aggregator
// "last"; queries go sorted by name with the metric's aggregator and the
// formula; the value is the number column's value.
func TestMeasureV2(t *testing.T) {
	for name, tc := range map[string]struct {
		m    rampv1.DatadogMetric
		want map[string]any
	}{
		"query": {
			rampv1.DatadogMetric{APIVersion: "v2", Query: "avg:cpu{*}"},
			v2Body([]map[string]string{{"data_source": "metrics", "name": "query", "query": "avg:cpu{*}", "aggregator": "last"}}, ""),
		},
		"formula": {
			rampv1.DatadogMetric{APIVersion: "v2", Queries: map[string]string{"b": "sum:req{*}", "a": "sum:err{*}"}, Formula: "a / b", Aggregator: "sum"},
			v2Body([]map[string]string{
				{"data_source": "metrics", "name": "a", "query": "sum:err{*}", "aggregator": "sum"},
				{"data_source": "metrics", "name": "b", "query": "sum:req{*}", "aggregator": "sum"},
			}, "a / b"),
		},
	} {
		srv := fakeDatadog(t, tc.want, answer{status: 200, body: `{"data":{"type":"scalar_response","attributes":{"columns":[{"name":"a","type":"number","values":[0.25],"meta":{"unit":null}}]}}}`})
		res, err := measure(deps(srv.URL), tc.m)
		if err != nil || res.Value != 0.25 || res.Display != "0.25" {
			t.Errorf("%s: %#v, %v", name, res, err)
		}
	}
}

// TestDecode: what each documented answer shape gives conditions and the
// stored value; upstream's nil for an empty result included.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		v2      bool
		body    string
		value   any
		display string
		err     string
	}{
		{"v1 last point", false, `{"series":[{"pointlist":[[1,1.5],[2,2.5]]},{"pointlist":[[1,9]]}]}`, 2.5, "2.5", ""},
		{"v1 no series", false, `{"status":"ok","series":[]}`, nil, "[]", ""},
		{"v1 no points", false, `{"series":[{"pointlist":[]}]}`, nil, "[]", ""},
		{"v1 null point", false, `{"series":[{"pointlist":[[1,null]]}]}`, nil, "null", ""},
		{"v1 short point", false, `{"series":[{"pointlist":[[1]]}]}`, nil, "", "a point has 1 values"},
		{"v1 query error", false, `{"status":"error","error":"Rule 'unknown_fn' not found"}`, nil, "", "the query was refused: Rule 'unknown_fn' not found"},
		{"v1 not JSON", false, `<html>`, nil, "", "malformed response"},
		{"v1 wrong type", false, `{"series":[{"pointlist":"x"}]}`, nil, "", "malformed response"},
		{"v2 value", true, `{"data":{"attributes":{"columns":[{"name":"q","type":"number","values":[3]}]}}}`, 3.0, "3", ""},
		{"v2 grouped", true, `{"data":{"attributes":{"columns":[{"name":"resource_name","type":"group","values":[["GET /a"],["GET /b"]]},{"name":"q","type":"number","values":[0.1,null]}]}}}`, []float64{0.1, math.NaN()}, "[0.1,NaN]", ""},
		{"v2 empty values", true, `{"data":{"attributes":{"columns":[{"name":"q","type":"number","values":[]}]}}}`, nil, "[]", ""},
		{"v2 no columns", true, `{"data":{"attributes":{"columns":[]}}}`, nil, "[]", ""},
		{"v2 null", true, `{"data":{"attributes":{"columns":[{"name":"q","type":"number","values":[null]}]}}}`, nil, "null", ""},
		{"v2 errors", true, `{"errors":"query parse error"}`, nil, "", "the query was refused: query parse error"},
		{"v2 only groups", true, `{"data":{"attributes":{"columns":[{"name":"g","type":"group","values":[["a"]]}]}}}`, nil, "", "no number column"},
		{"v2 bad values", true, `{"data":{"attributes":{"columns":[{"name":"q","type":"number","values":"x"}]}}}`, nil, "", `column "q"`},
	} {
		decode := decodeV1
		if tc.v2 {
			decode = decodeV2
		}
		res, err := decode([]byte(tc.body))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || res.Display != tc.display || !sameValue(res.Value, tc.value) {
			t.Errorf("%s: %#v, %v; want %#v %q", tc.name, res, err, tc.value, tc.display)
		}
	}
}

// sameValue is reflect.DeepEqual with NaN equal to NaN.
func sameValue(a, b any) bool {
	as, ok1 := a.([]float64)
	bs, ok2 := b.([]float64)
	if !ok1 || !ok2 {
		return reflect.DeepEqual(a, b)
	}
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		if as[i] != bs[i] && !(math.IsNaN(as[i]) && math.IsNaN(bs[i])) {
			return false
		}
	}
	return true
}

// TestFieldChecks: the combinations upstream refuses are errors naming the
// fields, before any Secret is read or request sent.
func TestFieldChecks(t *testing.T) {
	for _, tc := range []struct {
		m    rampv1.DatadogMetric
		want string
	}{
		{rampv1.DatadogMetric{}, "one of query or queries"},
		{rampv1.DatadogMetric{APIVersion: "v2", Query: "a", Queries: map[string]string{"a": "b"}}, "exclusive"},
		{rampv1.DatadogMetric{Queries: map[string]string{"a": "b"}}, "v1 takes query only"},
		{rampv1.DatadogMetric{Query: "q", Formula: "a"}, "v1 takes no formula"},
		{rampv1.DatadogMetric{Query: "q", Aggregator: "sum"}, "v1 takes no aggregator"},
		{rampv1.DatadogMetric{APIVersion: "v2", Query: "q", Formula: "a"}, "formula needs queries"},
		{rampv1.DatadogMetric{APIVersion: "v2", Queries: map[string]string{"a": "x", "b": "y"}}, "need a formula"},
		{rampv1.DatadogMetric{APIVersion: "v3", Query: "q"}, "apiVersion must be v1 or v2"},
		{rampv1.DatadogMetric{Query: "q", Interval: "soon"}, "interval"},
	} {
		if _, err := measure(nil, tc.m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.m, err, tc.want)
		}
	}
}

// TestCredentialLookup: secretRef.namespaced reads the named Secret from
// the run's namespace; without it (or when that Secret is missing or lacks
// a key) the controller's namespace is read; a Secret without keys is an
// error naming each Secret tried and the keys, never a value; a Secret
// without address means api.datadoghq.com.
func TestCredentialLookup(t *testing.T) {
	keys := func(addr string) map[string][]byte {
		return map[string][]byte{"address": []byte(addr), "api-key": []byte(testAPIKey), "app-key": []byte(testAppKey)}
	}
	p := func(d secrets, ref rampv1.DatadogSecretRef) (credentials, error) {
		req := provider.Request{Run: &rampv1.AnalysisRun{}, Metric: rampv1.Metric{Provider: rampv1.MetricProvider{Datadog: &rampv1.DatadogMetric{SecretRef: ref}}}}
		req.Run.Namespace = "team"
		return New(d.Deps()).credentials(context.Background(), req)
	}
	d := secrets{"team/mine": keys("https://team.example"), "ctl/datadog": keys("https://ctl.example"), "ctl/mine": keys("https://ctlmine.example")}
	for _, tc := range []struct {
		ref  rampv1.DatadogSecretRef
		want string
	}{
		{rampv1.DatadogSecretRef{}, "https://ctl.example"},
		{rampv1.DatadogSecretRef{Name: "mine", Namespaced: true}, "https://team.example"},
		{rampv1.DatadogSecretRef{Name: "mine"}, "https://ctlmine.example"},
		{rampv1.DatadogSecretRef{Name: "other", Namespaced: true}, ""}, // neither team/other nor ctl/other
	} {
		c, err := p(d, tc.ref)
		if c.address != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("%+v: %q, %v; want %q", tc.ref, c.address, err, tc.want)
		}
	}
	c, err := p(secrets{"ctl/datadog": {"api-key": []byte(testAPIKey), "app-key": []byte(testAppKey)}}, rampv1.DatadogSecretRef{})
	if err != nil || c.address != DefaultAddress {
		t.Errorf("no address: %q, %v", c.address, err)
	}
	_, err = p(secrets{"team/mine": {"api-key": []byte(testAPIKey)}, "ctl/mine": {"app-key": []byte(testAppKey)}}, rampv1.DatadogSecretRef{Name: "mine", Namespaced: true})
	if err == nil || !strings.Contains(err.Error(), "team/mine has no app-key") || !strings.Contains(err.Error(), "ctl/mine has no api-key") ||
		strings.Contains(err.Error(), testAPIKey) || strings.Contains(err.Error(), testAppKey) {
		t.Errorf("missing keys: %v", err)
	}
}

// TestErrorsNameCauseNotSecret: bad keys (403), 401, 429 with Datadog's
// rate-limit headers, 5xx, a malformed body, an unreachable address and a
// timeout are errors naming the cause; a vendor echoing the keys in its
// error body leaks neither key, plain or base64.
func TestErrorsNameCauseNotSecret(t *testing.T) {
	echo := `{"errors":["bad key ` + testAPIKey + ` / ` + testAppKey + `"]}`
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer slow.Close()
	v1 := map[string]string{"query": "q", "from": strconv.FormatInt(now.Add(-5*time.Minute).Unix(), 10), "to": strconv.FormatInt(now.Unix(), 10)}
	cases := []struct {
		name string
		d    secrets
		ctx  time.Duration
		want string
	}{
		{"wrong keys", secrets{"ctl/datadog": {"address": []byte(fakeDatadog(t, v1, answer{}).URL), "api-key": []byte("wrong-api-key-1"), "app-key": []byte("wrong-app-key-1")}}, 0, "HTTP 403 Forbidden: credentials refused: Forbidden"},
		{"401 echo", deps(fakeDatadog(t, v1, answer{status: 401, body: echo}).URL), 0, "HTTP 401 Unauthorized: credentials refused: bad key"},
		{"429", deps(fakeDatadog(t, v1, answer{status: 429, body: `{"errors":["Rate limit of 300 requests in 3600 seconds reached."]}`,
			header: map[string]string{"X-RateLimit-Limit": "300", "X-RateLimit-Period": "3600", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "17", "X-RateLimit-Name": "query"}}).URL), 0,
			"HTTP 429 Too Many Requests: rate limited (resets in 17s, limit query): Rate limit of 300"},
		{"503", deps(fakeDatadog(t, v1, answer{status: 503, body: echo}).URL), 0, "HTTP 503 Service Unavailable: server error"},
		{"malformed", deps(fakeDatadog(t, v1, answer{status: 200, body: `{"series":[` + testAPIKey}).URL), 0, "malformed response"},
		{"unreachable", deps(closed.URL), 0, "connection refused"},
		{"no secret", secrets{}, 0, "secret ctl/datadog not found"},
		{"timeout", deps(slow.URL), 50 * time.Millisecond, "context deadline exceeded"},
	}
	for _, tc := range cases {
		ctx := context.Background()
		if tc.ctx > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, tc.ctx)
			defer cancel()
		}
		req := provider.Request{Run: &rampv1.AnalysisRun{}, Metric: rampv1.Metric{Provider: rampv1.MetricProvider{Datadog: &rampv1.DatadogMetric{Query: "q"}}}}
		res, err := New(tc.d.Deps(), WithClock(func() time.Time { return now })).Measure(ctx, req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			continue
		}
		text := err.Error() + res.Display + res.Message
		for _, k := range []string{testAPIKey, testAppKey} {
			if strings.Contains(text, k) || strings.Contains(text, base64.StdEncoding.EncodeToString([]byte(k))) {
				t.Errorf("%s: a key survives in %q", tc.name, text)
			}
		}
	}
}
