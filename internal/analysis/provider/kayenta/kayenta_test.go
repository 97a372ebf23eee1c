package kayenta

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

var now = time.Unix(1700000000, 0)

// metric is upstream's documented example, its address the server's.
func metric(address string) *rampv1.KayentaMetric {
	scope := func(s string) rampv1.ScopeDetail {
		return rampv1.ScopeDetail{Scope: s, Region: "us-west-2", Step: 60, Start: "2019-01-01T00:00:00Z", End: "2019-01-01T00:10:00Z"}
	}
	return &rampv1.KayentaMetric{
		Address: address, Application: "guestbook", CanaryConfigName: "my-test",
		MetricsAccountName: "wavefront-prod", ConfigurationAccountName: "intuit-kayenta", StorageAccountName: "intuit-kayenta",
		Threshold: rampv1.KayentaThreshold{Pass: 90, Marginal: 75},
		Scopes:    []rampv1.KayentaScope{{Name: "default", ControlScope: scope("app=guestbook and rollouts-pod-template-hash=stable"), ExperimentScope: scope("app=guestbook and rollouts-pod-template-hash=canary")}},
	}
}

// fakeKayenta is Kayenta's standalone canary API as documented: GET
// /canaryConfig?application=&configurationAccountName= lists configs; POST
// /canary/{configId}?application=&metricsAccountName=&configurationAccountName=&storageAccountName=
// with a CanaryExecutionRequest body starts an execution; GET
// /canary/{executionId} reports it, incomplete for the first `pending`
// reads and then complete with score. It fails the test on any request
// that differs from the documented one for metric().
func fakeKayenta(t *testing.T, pending int, score float64) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	reads := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := map[string][]string(r.URL.Query())
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/canaryConfig":
			if want := map[string][]string{"application": {"guestbook"}, "configurationAccountName": {"intuit-kayenta"}}; !reflect.DeepEqual(q, want) {
				t.Errorf("config lookup %v, want %v", q, want)
			}
			_, _ = io.WriteString(w, `[{"id":"other-id","name":"other"},{"id":"cfg-123","name":"my-test","applications":["guestbook"]}]`)
		case r.Method == http.MethodPost && r.URL.Path == "/canary/cfg-123":
			want := map[string][]string{"application": {"guestbook"}, "metricsAccountName": {"wavefront-prod"}, "configurationAccountName": {"intuit-kayenta"}, "storageAccountName": {"intuit-kayenta"}}
			if !reflect.DeepEqual(q, want) || r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("execution start %v (%s), want %v as JSON", q, r.Header.Get("Content-Type"), want)
			}
			var got, exp any
			b, _ := io.ReadAll(r.Body)
			scope := func(s string) map[string]any {
				return map[string]any{"scope": s, "region": "us-west-2", "step": 60.0, "start": "2019-01-01T00:00:00Z", "end": "2019-01-01T00:10:00Z"}
			}
			exp = map[string]any{
				"scopes":     map[string]any{"default": map[string]any{"controlScope": scope("app=guestbook and rollouts-pod-template-hash=stable"), "experimentScope": scope("app=guestbook and rollouts-pod-template-hash=canary")}},
				"thresholds": map[string]any{"pass": 90.0, "marginal": 75.0},
			}
			if json.Unmarshal(b, &got) != nil || !reflect.DeepEqual(got, exp) {
				t.Errorf("execution body %s, want %v", b, exp)
			}
			_, _ = io.WriteString(w, `{"canaryExecutionId":"01HEXEC-42"}`)
		case r.Method == http.MethodGet && r.URL.Path == "/canary/01HEXEC-42":
			mu.Lock()
			reads++
			n := reads
			mu.Unlock()
			if n <= pending {
				_, _ = io.WriteString(w, `{"complete":false,"status":"running"}`)
				return
			}
			b, _ := json.Marshal(map[string]any{"complete": true, "status": "succeeded", "result": map[string]any{"judgeResult": map[string]any{"score": map[string]any{"score": score, "classification": "Pass"}}}})
			_, _ = w.Write(b)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL)
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newProvider() *Provider {
	p := New(nil, nil)
	p.now = func() time.Time { return now }
	return p
}

// TestJudgement: a new measurement starts an execution and stays Running
// (its id in metadata, resumed 15 s later); resumes stay Running while the
// execution is incomplete; the complete score decides against
// threshold.pass and threshold.marginal, stored as an integer.
func TestJudgement(t *testing.T) {
	for _, tc := range []struct {
		score   float64
		phase   rampv1.AnalysisPhase
		display string
	}{{95.5, rampv1.AnalysisPhaseSuccessful, "95"}, {90, rampv1.AnalysisPhaseSuccessful, "90"}, {89.9, rampv1.AnalysisPhaseInconclusive, "89"}, {75, rampv1.AnalysisPhaseInconclusive, "75"}, {74.99, rampv1.AnalysisPhaseFailed, "74"}} {
		srv := fakeKayenta(t, 2, tc.score)
		m := rampv1.Metric{Name: "k", Provider: rampv1.MetricProvider{Kayenta: metric(srv.URL)}}
		p := newProvider()
		res, err := p.Measure(context.Background(), provider.Request{Metric: m})
		if err != nil || res.Phase != rampv1.AnalysisPhaseRunning || res.Metadata["canaryExecutionId"] != "01HEXEC-42" || !res.ResumeAt.Equal(now.Add(15*time.Second)) {
			t.Fatalf("start: %+v, %v", res, err)
		}
		for i := 0; ; i++ {
			in := &rampv1.Measurement{Phase: rampv1.AnalysisPhaseRunning, Metadata: res.Metadata}
			res, err = p.Measure(context.Background(), provider.Request{Metric: m, InFlight: in})
			if err != nil {
				t.Fatalf("resume %d: %v", i, err)
			}
			if i < 2 {
				if res.Phase != rampv1.AnalysisPhaseRunning || !res.ResumeAt.Equal(now.Add(15*time.Second)) || res.Metadata["canaryExecutionId"] != "01HEXEC-42" {
					t.Fatalf("resume %d of an incomplete execution: %+v", i, res)
				}
				continue
			}
			if res.Phase != tc.phase || res.Display != tc.display || !res.ResumeAt.IsZero() {
				t.Errorf("score %v: %+v, want %s %s", tc.score, res, tc.phase, tc.display)
			}
			break
		}
	}
}

// TestTerminate: terminating an in-flight measurement ends it Successful
// with upstream's "Metric Terminated", without a request, whatever its
// execution id (a tampered one is not sent anywhere).
func TestTerminate(t *testing.T) {
	m := rampv1.Metric{Provider: rampv1.MetricProvider{Kayenta: metric("http://127.0.0.1:1")}}
	for _, id := range []string{"abc", "../canaryConfig", ""} {
		in := &rampv1.Measurement{Metadata: map[string]string{"canaryExecutionId": id}}
		res, err := newProvider().Measure(context.Background(), provider.Request{Metric: m, InFlight: in, Terminate: true})
		if err != nil || res.Phase != rampv1.AnalysisPhaseSuccessful || res.Message != "Metric Terminated" {
			t.Errorf("id %q: %+v, %v", id, res, err)
		}
	}
}

// TestErrors: bad fields, an unknown config, a tampered execution id,
// Kayenta's errors (429 with Retry-After, 5xx with Spring's JSON error), a
// malformed body, an answer without complete or score, and an unreachable
// service are errors naming the cause.
func TestErrors(t *testing.T) {
	answer := func(status int, header, body string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if k, v, ok := strings.Cut(header, ": "); ok {
				w.Header().Set(k, v)
			}
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	mod := func(address string, f func(*rampv1.KayentaMetric)) *rampv1.KayentaMetric {
		m := metric(address)
		f(m)
		return m
	}
	badID := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			_, _ = io.WriteString(w, `[{"id":"cfg","name":"my-test"}]`)
			return
		}
		_, _ = io.WriteString(w, `{"canaryExecutionId":"../x"}`)
	}))
	defer badID.Close()
	inFlight := &rampv1.Measurement{Metadata: map[string]string{"canaryExecutionId": "01HEXEC-42"}}
	for _, tc := range []struct {
		name string
		m    *rampv1.KayentaMetric
		in   *rampv1.Measurement
		want string
	}{
		{"address", metric("kayenta:8090"), nil, `address "kayenta:8090" is not an http(s) URL`},
		{"no scopes", mod("http://k", func(m *rampv1.KayentaMetric) { m.Scopes = nil }), nil, "at least one scope"},
		{"thresholds", mod("http://k", func(m *rampv1.KayentaMetric) { m.Threshold.Marginal = 95 }), nil, "threshold.marginal (95) must not exceed threshold.pass (90)"},
		{"unknown config", mod(fakeKayenta(t, 0, 1).URL, func(m *rampv1.KayentaMetric) { m.CanaryConfigName = "nope" }), nil, `no canary config named "nope"`},
		{"tampered id", metric("http://k"), &rampv1.Measurement{Metadata: map[string]string{"canaryExecutionId": "../canaryConfig"}}, "is not an execution id"},
		{"bad started id", metric(badID.URL), nil, `canaryExecutionId "../x" is not an execution id`},
		{"429", metric(answer(429, "Retry-After: 30", `{"error":"Too Many Requests","message":"slow down"}`).URL), nil, "HTTP 429 Too Many Requests: rate limited (Retry-After 30): slow down"},
		{"500", metric(answer(500, "", `{"error":"Internal Server Error","message":"NullPointerException"}`).URL), inFlight, "HTTP 500 Internal Server Error: server error: NullPointerException"},
		{"malformed", metric(answer(200, "", `{"complete":`).URL), inFlight, "malformed response"},
		{"no complete", metric(answer(200, "", `{}`).URL), inFlight, "no complete status"},
		{"no score", metric(answer(200, "", `{"complete":true,"result":{}}`).URL), inFlight, "no result.judgeResult.score.score"},
		{"unreachable", metric(closed.URL), nil, "connection refused"},
	} {
		res, err := newProvider().Measure(context.Background(), provider.Request{Metric: rampv1.Metric{Provider: rampv1.MetricProvider{Kayenta: tc.m}}, InFlight: tc.in})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %+v, %v; want %q", tc.name, res, err, tc.want)
		}
	}
}

// FuzzJudge: any execution status decodes to an error, Running, or a
// verdict with a stored score.
func FuzzJudge(f *testing.F) {
	for _, s := range []string{`{"complete":false}`, `{"complete":true,"result":{"judgeResult":{"score":{"score":87.5}}}}`, `{"complete":true}`, `{}`, `null`, `{"complete":true,"result":{"judgeResult":{"score":{"score":1e300}}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var e execution
		if json.Unmarshal(body, &e) != nil {
			return
		}
		res, err := judge(e, rampv1.KayentaThreshold{Pass: 90, Marginal: 75})
		if err == nil && res.Phase != rampv1.AnalysisPhaseRunning && res.Display == "" {
			t.Errorf("%q: a verdict with no score", body)
		}
	})
}

// TestConfigIDIsOneSegment: a canary config id from Kayenta's answer is
// one escaped path segment of the execution's URL ('/', '?', '#' and '%'
// stay inside it); "." and ".." are refused before any request.
func TestConfigIDIsOneSegment(t *testing.T) {
	for _, tc := range []struct{ id, path, err string }{
		{"a/b?c#d%e", "/canary/a%2Fb%3Fc%23d%25e", ""},
		{"../../admin", "/canary/..%2F..%2Fadmin", ""},
		{"..", "", `canary config "my-test": id ".." is not a path segment`},
	} {
		var posted []string
		var mu sync.Mutex
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				b, _ := json.Marshal([]map[string]string{{"id": tc.id, "name": "my-test"}})
				_, _ = w.Write(b)
				return
			}
			mu.Lock()
			posted = append(posted, r.URL.EscapedPath())
			mu.Unlock()
			_, _ = io.WriteString(w, `{"canaryExecutionId":"e1"}`)
		}))
		m := rampv1.Metric{Provider: rampv1.MetricProvider{Kayenta: metric(srv.URL)}}
		_, err := newProvider().Measure(context.Background(), provider.Request{Metric: m})
		srv.Close()
		switch {
		case tc.err != "":
			if err == nil || !strings.HasSuffix(err.Error(), tc.err) || len(posted) != 0 {
				t.Errorf("id %q: posted %v, error %v; want %q and no request", tc.id, posted, err, tc.err)
			}
		case err != nil || len(posted) != 1 || posted[0] != tc.path:
			t.Errorf("id %q: posted %v, error %v; want one POST to %s", tc.id, posted, err, tc.path)
		}
	}
}

// TestExecutionBounded: an execution still incomplete MaxExecution after
// the measurement started is an Error naming it, after one last read;
// before that it stays Running.
func TestExecutionBounded(t *testing.T) {
	srv := fakeKayenta(t, 1000, 0)
	m := rampv1.Metric{Provider: rampv1.MetricProvider{Kayenta: metric(srv.URL)}}
	for _, tc := range []struct {
		age  time.Duration
		want string
	}{{MaxExecution - time.Second, ""}, {MaxExecution, "kayenta: execution 01HEXEC-42: not complete 1h0m0s after it started"}} {
		started := metav1.NewTime(now.Add(-tc.age))
		in := &rampv1.Measurement{StartedAt: &started, Metadata: map[string]string{"canaryExecutionId": "01HEXEC-42"}}
		res, err := newProvider().Measure(context.Background(), provider.Request{Metric: m, InFlight: in})
		switch {
		case tc.want == "" && (err != nil || res.Phase != rampv1.AnalysisPhaseRunning):
			t.Errorf("age %s: %+v, %v; want Running", tc.age, res, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("age %s: %+v, %v; want %q", tc.age, res, err, tc.want)
		}
	}
}
