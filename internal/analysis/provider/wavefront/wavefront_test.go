package wavefront

import (
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/providertest"
)

// address is the Wavefront the tests query: httptest's TLS certificate
// names example.com, and the tests' transport dials the server for it.
const address = "example.com"

const testToken = "wf-token-0123456789abcdef"

var now = time.Unix(1700000000, 0)

// secrets are Secrets by "namespace/name" in the controller's namespace
// "ctl"; Deps() makes them the provider's dependencies.
type secrets = providertest.Secrets

type answer struct {
	status int
	header map[string]string
	body   string
}

// fakeWavefront is Wavefront's chart API as documented: GET
// /api/v2/chart/api over HTTPS with q, s and e (epoch ms), g, p and i,
// authenticated by "Authorization: Bearer <token>" (401 with Wavefront's
// {"status": {...}} error otherwise). It fails the test unless the
// parameters are upstream's for an instant query at now; an accepted
// request gets ans. The returned transport reaches it as example.com.
func fakeWavefront(t *testing.T, query string, ans answer) *http.Transport {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer "+testToken {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"status":{"result":"ERROR","message":"401 Unauthorized: token `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+` is invalid","code":401}}`)
			return
		}
		ms := strconv.FormatInt(now.Unix()*1000, 10)
		want := map[string][]string{"q": {query}, "s": {ms}, "e": {ms}, "g": {"s"}, "p": {"1"}, "i": {"true"}}
		if r.Method != http.MethodGet || r.URL.Path != "/api/v2/chart/api" || r.Host != address || !reflect.DeepEqual(map[string][]string(r.URL.Query()), want) {
			t.Errorf("request %s %s%s?%s, want GET example.com/api/v2/chart/api with %v", r.Method, r.Host, r.URL.Path, r.URL.RawQuery, want)
		}
		for k, v := range ans.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(ans.status)
		_, _ = io.WriteString(w, ans.body)
	}))
	t.Cleanup(srv.Close)
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	return tr
}

func tokens(kv ...string) secrets {
	d := map[string][]byte{}
	for i := 0; i < len(kv); i += 2 {
		d[kv[i]] = []byte(kv[i+1])
	}
	return secrets{"ctl/wavefront-api-tokens": d}
}

func measure(ctx context.Context, d secrets, tr *http.Transport, m rampv1.WavefrontMetric) (provider.Result, error) {
	deps := d.Deps()
	deps.Policy.AllowLinkLocal = true // keeps the transport's dialer, which reaches the server as example.com
	p := New(deps, tr)
	p.now = func() time.Time { return now }
	return p.Measure(ctx, provider.Request{Run: &rampv1.AnalysisRun{}, Metric: rampv1.Metric{Provider: rampv1.MetricProvider{Wavefront: &m}}})
}

const q = `sum(rate(5m, ts("istio.requestcount.count", response_code!=500)))`

// TestMeasure: the token is the Secret's entry for the metric's address;
// the value is the point closest to the measurement's time, one series a
// float64 and several a []float64, shown with two decimals as upstream,
// with the points' times, drifts and Wavefront's warnings in metadata.
func TestMeasure(t *testing.T) {
	for _, tc := range []struct {
		body    string
		value   any
		display string
		meta    map[string]string
	}{
		{`{"query":"q","timeseries":[{"label":"x","data":[[1699999990,0.5],[1700000001,0.975],[1700000100,0.1]]}]}`,
			0.975, "0.97", map[string]string{"timestamps": "1700000001", "drift": "1"}},
		{`{"warnings":"slow query","timeseries":[{"data":[[1700000000,1]]},{"data":[[1699999998,0.25]]}]}`,
			[]float64{1, 0.25}, "[1.00,0.25]", map[string]string{"timestamps": "[1700000000,1699999998]", "drift": "[0,-2]", "warnings": "slow query"}},
	} {
		tr := fakeWavefront(t, q, answer{status: 200, body: tc.body})
		res, err := measure(context.Background(), tokens(address, testToken, "other.example", "other-token"), tr, rampv1.WavefrontMetric{Address: address, Query: q})
		if err != nil || !reflect.DeepEqual(res.Value, tc.value) || res.Display != tc.display || !reflect.DeepEqual(res.Metadata, tc.meta) {
			t.Errorf("%#v, %v; want %v %q %v", res, err, tc.value, tc.display, tc.meta)
		}
	}
}

// TestErrorsNameCauseNotSecret: no token for the address, a wrong token
// (401, echoed), 429 with Retry-After, 5xx, no series, a series without
// points, a malformed body, a bad address and a timeout are errors naming
// the cause; no token survives, plain or base64.
func TestErrorsNameCauseNotSecret(t *testing.T) {
	ok := func(body string) *http.Transport { return fakeWavefront(t, q, answer{status: 200, body: body}) }
	slow := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer slow.Close()
	slowTr := slow.Client().Transport.(*http.Transport).Clone()
	slowTr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, slow.Listener.Addr().String())
	}
	good := tokens(address, testToken)
	for _, tc := range []struct {
		name    string
		d       secrets
		tr      *http.Transport
		address string
		ctx     time.Duration
		want    string
	}{
		{"no token", tokens("other.example", testToken), ok(`{}`), address, 0, `secret ctl/wavefront-api-tokens has no example.com (no API token for address "example.com")`},
		{"no secret", secrets{}, ok(`{}`), address, 0, "secret ctl/wavefront-api-tokens not found"},
		{"wrong token", tokens(address, "wf-wrong-token-99999999"), ok(`{}`), address, 0, "HTTP 401 Unauthorized: credentials refused: 401 Unauthorized: token ***** is invalid"},
		{"429", good, fakeWavefront(t, q, answer{status: 429, header: map[string]string{"Retry-After": "5"}, body: `{"status":{"result":"ERROR","message":"rate limit exceeded","code":429}}`}), address, 0, "HTTP 429 Too Many Requests: rate limited (Retry-After 5): rate limit exceeded"},
		{"500 echo", good, fakeWavefront(t, q, answer{status: 500, body: `{"message":"boom ` + testToken + `"}`}), address, 0, "HTTP 500 Internal Server Error: server error: boom *****"},
		{"no series", good, ok(`{"timeseries":[]}`), address, 0, "no time series found"},
		{"no points", good, ok(`{"timeseries":[{"data":[]}]}`), address, 0, "series 0: no data points"},
		{"bad point", good, ok(`{"timeseries":[{"data":[[1]]}]}`), address, 0, "a point has 1 values"},
		{"malformed", good, ok(`{"timeseries":` + testToken), address, 0, "malformed response"},
		{"bad address", good, ok(`{}`), "https://example.com/x", 0, "must be a host name"},
		{"timeout", good, slowTr, address, 50 * time.Millisecond, "context deadline exceeded"},
	} {
		ctx := context.Background()
		if tc.ctx > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, tc.ctx)
			defer cancel()
		}
		res, err := measure(ctx, tc.d, tc.tr, rampv1.WavefrontMetric{Address: tc.address, Query: q})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			continue
		}
		text := err.Error() + res.Display
		for _, tok := range []string{testToken, "wf-wrong-token-99999999"} {
			if strings.Contains(text, tok) || strings.Contains(text, base64.StdEncoding.EncodeToString([]byte(tok))) {
				t.Errorf("%s: a token survives in %q", tc.name, text)
			}
		}
	}
}

// FuzzDecode: the decoder never panics and a success has a value.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"timeseries":[{"data":[[1,2],[3,4]]}]}`, `{"timeseries":[{"data":[[1,2]]},{"data":[[5,6]]}],"warnings":"w"}`, `{"timeseries":[]}`, `null`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if res, err := decode(body, now); err == nil && (res.Display == "" || res.Value == nil) {
			t.Errorf("%q: success with no value", body)
		}
	})
}

// TestNullPointIsAGap: a point whose value is null is passed over (it is
// not 0, which `result < x` would pass); a series of null points is an
// error, and so is a null time or one no int64 of epoch seconds holds.
func TestNullPointIsAGap(t *testing.T) {
	at := time.Unix(1700000000, 0)
	res, err := decode([]byte(`{"timeseries":[{"data":[[1700000000,null],[1700000100,0.5]]}]}`), at)
	if err != nil || res.Value != 0.5 || res.Metadata["drift"] != "100" {
		t.Errorf("%#v, %v; want 0.5 at drift 100", res, err)
	}
	for body, want := range map[string]string{
		`{"timeseries":[{"data":[[1700000000,null]]}]}`: "series 0: no data points",
		`{"timeseries":[{"data":[[null,1]]}]}`:          "series 0: malformed response: a point has a null time",
		`{"timeseries":[{"data":[[1e300,1]]}]}`:         "series 0: malformed response: point time 1e+300 is not epoch seconds",
	} {
		if res, err := decode([]byte(body), at); err == nil || err.Error() != want {
			t.Errorf("%s: %#v, %v; want %q", body, res, err, want)
		}
	}
}
