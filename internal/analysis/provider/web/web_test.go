package web

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

const secret = "s3cr3t-token"

// received is what the fake endpoint saw.
type received struct {
	method, contentType, auth, host, body string
}

// endpoint starts a server answering every request with status and body
// and sending what it received on the returned channel.
func endpoint(t *testing.T, tls bool, status int, body string) (string, <-chan received) {
	t.Helper()
	got := make(chan received, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select {
		case got <- received{r.Method, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), r.Host, string(b)}:
		default:
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // TLS handshake failures are expected
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv.URL, got
}

func request(m rampv1.WebMetric) provider.Request {
	return provider.Request{Metric: rampv1.Metric{Name: "m", Provider: rampv1.MetricProvider{Web: &m}}}
}

const doc = `{"data":{"ok":true,"successPercent":0.95,"count":"7","items":[{"v":1},{"v":2}]},"status":"ok"}`

func TestMeasureValues(t *testing.T) {
	url, _ := endpoint(t, false, 200, doc)
	for _, tc := range []struct {
		path    string
		value   any
		display string
	}{
		{"", map[string]any{"data": map[string]any{"ok": true, "successPercent": 0.95, "count": "7",
			"items": []any{map[string]any{"v": 1.0}, map[string]any{"v": 2.0}}}, "status": "ok"},
			`{"data":{"count":"7","items":[{"v":1},{"v":2}],"ok":true,"successPercent":0.95},"status":"ok"}`},
		{"{$.data.ok}", true, "true"},
		{"{$.data.successPercent}", 0.95, "0.95"},
		{"{.data.count}", "7", "7"},
		{"{$.data.items[*].v}", []any{1.0, 2.0}, "[1,2]"},
		{"{$.data.items[0]}", map[string]any{"v": 1.0}, `{"v":1}`},
		{"{$.data.items[2:]}", []any{}, "[]"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res, err := New().Measure(context.Background(), request(rampv1.WebMetric{URL: url, JSONPath: tc.path}))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Value, tc.value) || res.Display != tc.display {
				t.Fatalf("got %#v %q, want %#v %q", res.Value, res.Display, tc.value, tc.display)
			}
		})
	}
}

func TestMeasureRequests(t *testing.T) {
	auth := []rampv1.WebMetricHeader{{Key: "Authorization", Value: "Bearer " + secret}, {Key: "host", Value: "metrics.example"}}
	for _, tc := range []struct {
		name string
		m    rampv1.WebMetric
		want received
	}{
		{"GET default", rampv1.WebMetric{Headers: auth}, received{"GET", "", "Bearer " + secret, "metrics.example", ""}},
		{"POST jsonBody", rampv1.WebMetric{Method: "post", JSONBody: &apiextensionsv1.JSON{Raw: []byte(`{"q":"x"}`)}},
			received{method: "POST", contentType: "application/json", body: `{"q":"x"}`}},
		{"PUT body keeps its content type", rampv1.WebMetric{Method: rampv1.WebMetricMethodPut, Body: "q=x",
			Headers: []rampv1.WebMetricHeader{{Key: "Content-Type", Value: "text/plain"}}},
			received{method: "PUT", contentType: "text/plain", body: "q=x"}},
		{"jsonBody with a content type", rampv1.WebMetric{Method: "POST", JSONBody: &apiextensionsv1.JSON{Raw: []byte(`[1]`)},
			Headers: []rampv1.WebMetricHeader{{Key: "content-type", Value: "application/vnd.api+json"}}},
			received{method: "POST", contentType: "application/vnd.api+json", body: `[1]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, got := endpoint(t, false, 200, `{"ok":true}`)
			tc.m.URL = url
			if _, err := New().Measure(context.Background(), request(tc.m)); err != nil {
				t.Fatal(err)
			}
			r := <-got
			if tc.want.host == "" {
				r.host = ""
			}
			if r != tc.want {
				t.Fatalf("server received %+v, want %+v", r, tc.want)
			}
		})
	}
}

func TestMeasureErrors(t *testing.T) {
	auth := []rampv1.WebMetricHeader{{Key: "Authorization", Value: secret}}
	ok, _ := endpoint(t, false, 200, doc)
	failing, _ := endpoint(t, false, 500, `{"error":"`+secret+`"}`)
	garbage, _ := endpoint(t, false, 200, `<html>oops</html>`)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the server notices the client going away only once the body is read
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	body := &apiextensionsv1.JSON{Raw: []byte(`{"token":"` + secret + `"}`)}
	for _, tc := range []struct {
		name string
		m    rampv1.WebMetric
		want string
	}{
		{"non 2xx", rampv1.WebMetric{URL: failing, Headers: auth}, "web: received non 2xx response code: 500"},
		{"not json", rampv1.WebMetric{URL: garbage, Headers: auth}, "web: the response is not JSON: invalid character '<'"},
		{"missing field", rampv1.WebMetric{URL: ok, JSONPath: "{$.data.missing}"}, `web: jsonPath "{$.data.missing}": missing is not found`},
		{"bad jsonPath", rampv1.WebMetric{URL: ok, JSONPath: "{$.data["}, `web: invalid jsonPath "{$.data["`},
		{"unreachable", rampv1.WebMetric{URL: closed.URL + "/x/" + secret + "?token=" + secret, Headers: auth},
			"web: GET " + closed.URL + ": dial tcp"}, // scheme and host only: a path may carry an argument
		{"timeout", rampv1.WebMetric{URL: slow.URL, TimeoutSeconds: 1, Method: "POST", JSONBody: body, Headers: auth},
			"web: POST " + slow.URL + ": timed out after 1s"},
		{"GET with body", rampv1.WebMetric{URL: ok, Body: secret}, "web: a GET request takes no body"},
		{"both bodies", rampv1.WebMetric{URL: ok, Method: "PUT", Body: secret, JSONBody: body}, "web: body and jsonBody may not both be set"},
		{"invalid jsonBody", rampv1.WebMetric{URL: ok, Method: "PUT", JSONBody: &apiextensionsv1.JSON{Raw: []byte(secret)}},
			"web: jsonBody is not valid JSON"},
		{"method", rampv1.WebMetric{URL: ok, Method: "DELETE" + secret}, `web: method is not supported (GET, POST or PUT)`},
		{"no url", rampv1.WebMetric{}, "web: url is not set"},
		{"relative url", rampv1.WebMetric{URL: "/metrics"}, "web: url is not an http(s) URL"},
		{"authentication", rampv1.WebMetric{URL: ok, Authentication: rampv1.MetricAuthentication{
			Sigv4: rampv1.Sigv4Config{Region: "eu-west-1"}}}, "web: authentication (sigv4, oauth2) is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := New().Measure(context.Background(), request(tc.m))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want prefix %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error leaks a secret: %v", err)
			}
		})
	}
	if _, err := New().Measure(context.Background(), provider.Request{}); err == nil {
		t.Error("a metric without web measured")
	}
}

func TestMeasureTLS(t *testing.T) {
	url, _ := endpoint(t, true, 200, `{"ok":true}`)
	if _, err := New().Measure(context.Background(), request(rampv1.WebMetric{URL: url})); err == nil ||
		!strings.Contains(err.Error(), "certificate") {
		t.Errorf("self-signed certificate accepted, or another error: %v", err)
	}
	if _, err := New().Measure(context.Background(), request(rampv1.WebMetric{URL: url, Insecure: true})); err != nil {
		t.Errorf("insecure: %v", err)
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`1`)) }))
	defer srv.Close()
	p := New(WithTransport(srv.Client().Transport.(*http.Transport)))
	if res, err := p.Measure(context.Background(), request(rampv1.WebMetric{URL: srv.URL})); err != nil || res.Value != 1.0 {
		t.Errorf("trusted transport: %+v, %v", res, err)
	}
}
