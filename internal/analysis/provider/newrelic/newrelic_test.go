package newrelic

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/providertest"
)

const testKey = "NRAK-0123456789ABCDEFGHIJKLMNOPQ"

// secrets are Secrets by "namespace/name" in the controller's namespace
// "ctl"; Deps() makes them the provider's dependencies.
type secrets = providertest.Secrets

// answer is what the fake NerdGraph sends back.
type answer struct {
	status int
	header map[string]string
	body   string
}

// fakeNerdGraph is NerdGraph as New Relic documents it: POST /graphql with
// a JSON {query, variables} body, authenticated by the API-Key header
// (a wrong key gets HTTP 200 with a GraphQL error of errorClass
// UNAUTHORIZED, as NerdGraph answers). It fails the test unless the
// operation asks account(id: $accountId) { nrql(query: $query, timeout:
// $timeout) { results } } with the variables want; an accepted request
// gets ans.
func fakeNerdGraph(t *testing.T, want map[string]any, ans answer) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/graphql" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("request %s %s (Content-Type %q), want POST /graphql as JSON", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		if r.Header.Get("API-Key") != testKey {
			_, _ = io.WriteString(w, `{"data":{"actor":{"account":null}},"errors":[{"message":"Invalid API key","extensions":{"errorClass":"UNAUTHORIZED"}}]}`)
			return
		}
		var req struct {
			Query     string         `json:"query"`
			Variables map[string]any `json:"variables"`
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &req); err != nil {
			t.Errorf("body %s: %v", b, err)
		}
		compact := strings.Join(strings.Fields(req.Query), " ")
		for _, part := range []string{"$accountId: Int!", "$query: Nrql!", "$timeout: Seconds", "account(id: $accountId)", "nrql(query: $query, timeout: $timeout)", "{ results }"} {
			if !strings.Contains(compact, part) {
				t.Errorf("operation %q lacks %q", compact, part)
			}
		}
		if !reflect.DeepEqual(req.Variables, want) {
			t.Errorf("variables %v, want %v", req.Variables, want)
		}
		for k, v := range ans.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(ans.status)
		_, _ = io.WriteString(w, ans.body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// profileAt is a "newrelic" profile Secret of account 1234 at the server.
func profileAt(srv *httptest.Server, key string) secrets {
	return secrets{"ctl/newrelic": {"personal-api-key": []byte(key), "account-id": []byte("1234"), "base-url-nerdgraph": []byte(srv.URL + "/graphql")}}
}

func measure(ctx context.Context, d secrets, m rampv1.NewRelicMetric) (provider.Result, error) {
	req := provider.Request{Run: &rampv1.AnalysisRun{}, Metric: rampv1.Metric{Provider: rampv1.MetricProvider{NewRelic: &m}}}
	return New(d.Deps(), nil).Measure(ctx, req)
}

const nrql = "FROM Transaction SELECT percentage(count(*), WHERE httpResponseCode != 500) as successRate"

// TestMeasure: the query goes with the account and the timeout (default 5,
// or the metric's) and one row is a map, several a list, as upstream.
func TestMeasure(t *testing.T) {
	one := `{"data":{"actor":{"account":{"nrql":{"results":[{"successRate":99.5}]}}}}}`
	two := `{"data":{"actor":{"account":{"nrql":{"results":[{"facet":"a","count":1},{"facet":"b","count":2}]}}}}}`
	ten := int64(10)
	for _, tc := range []struct {
		timeout *int64
		body    string
		value   any
		display string
	}{
		{nil, one, map[string]any{"successRate": 99.5}, `{"successRate":99.5}`},
		{&ten, two, []any{map[string]any{"facet": "a", "count": 1.0}, map[string]any{"facet": "b", "count": 2.0}}, `[{"count":1,"facet":"a"},{"count":2,"facet":"b"}]`},
	} {
		wantTimeout := 5.0
		if tc.timeout != nil {
			wantTimeout = float64(*tc.timeout)
		}
		srv := fakeNerdGraph(t, map[string]any{"accountId": 1234.0, "query": nrql, "timeout": wantTimeout}, answer{status: 200, body: tc.body})
		res, err := measure(context.Background(), profileAt(srv, testKey), rampv1.NewRelicMetric{Query: nrql, Timeout: tc.timeout})
		if err != nil || !reflect.DeepEqual(res.Value, tc.value) || res.Display != tc.display {
			t.Errorf("%#v, %v; want %#v %s", res, err, tc.value, tc.display)
		}
	}
}

// TestProfile: the profile names the Secret (default newrelic) in the
// controller's namespace; region picks NerdGraph's endpoint (us by
// default, eu) unless base-url-nerdgraph names one; missing keys, a
// non-integer account and an unknown region are errors naming the Secret.
func TestProfile(t *testing.T) {
	p := func(d secrets, profileName string) (profile, error) {
		return New(d.Deps(), nil).profile(context.Background(), &rampv1.NewRelicMetric{Profile: profileName})
	}
	keys := func(kv ...string) map[string][]byte {
		m := map[string][]byte{"personal-api-key": []byte(testKey), "account-id": []byte("42")}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = []byte(kv[i+1])
		}
		return m
	}
	for _, tc := range []struct {
		d       secrets
		profile string
		url     string
		err     string
	}{
		{secrets{"ctl/newrelic": keys()}, "", "https://api.newrelic.com/graphql", ""},
		{secrets{"ctl/eu": keys("region", "EU")}, "eu", "https://api.eu.newrelic.com/graphql", ""},
		{secrets{"ctl/p": keys("region", "eu", "base-url-nerdgraph", "https://proxy.example/graphql")}, "p", "https://proxy.example/graphql", ""},
		{secrets{"ctl/p": keys("region", "mars")}, "p", "", "secret ctl/p: region must be us, eu or staging"},
		{secrets{"ctl/p": keys("account-id", "acme")}, "p", "", "secret ctl/p: account-id is not an integer"},
		{secrets{"ctl/p": {"account-id": []byte("1")}}, "p", "", "secret ctl/p has no personal-api-key"},
		{secrets{}, "", "", "secret ctl/newrelic not found"},
	} {
		got, err := p(tc.d, tc.profile)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%v: error %v, want %q", tc.d, err, tc.err)
			}
			continue
		}
		if err != nil || got.url != tc.url || got.apiKey != testKey || got.account != 42 {
			t.Errorf("%v: %+v, %v; want url %s", tc.d, got, err, tc.url)
		}
	}
}

// TestDecode: NerdGraph answers and what they give.
func TestDecode(t *testing.T) {
	for _, tc := range []struct{ body, err, display string }{
		{`{"data":{"actor":{"account":{"nrql":{"results":[]}}}}}`, "no results returned from NRQL query", ""},
		{`{"data":{"actor":{"account":{"nrql":{"results":[{}]}}}}}`, "no results returned from NRQL query", ""},
		{`{"data":{"actor":{"account":{"nrql":null}}},"errors":[{"message":"NRQL Syntax Error: Error at line 1","extensions":{"errorClass":"INVALID_INPUT"}}]}`, "NerdGraph: INVALID_INPUT: NRQL Syntax Error", ""},
		{`{"errors":[{"message":"Too many concurrent queries","extensions":{"errorClass":"TOO_MANY_REQUESTS"}}]}`, "TOO_MANY_REQUESTS (rate limited): Too many", ""},
		{`{"data":{"actor":{"account":{}}}}`, "no data.actor.account.nrql", ""},
		{`{"data":`, "malformed response", ""},
		{`{"data":{"actor":{"account":{"nrql":{"results":[{"average.duration":0.25}]}}}}}`, "", `{"average.duration":0.25}`},
	} {
		res, err := decode([]byte(tc.body))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.body, err, tc.err)
			}
		} else if err != nil || res.Display != tc.display {
			t.Errorf("%s: %#v, %v", tc.body, res, err)
		}
	}
}

// TestErrorsNameCauseNotSecret: a wrong key (NerdGraph's UNAUTHORIZED),
// HTTP 401 echoing the key, 429 with Retry-After, 5xx, a malformed body,
// an unreachable endpoint, a timeout and an out-of-range timeout are
// errors naming the cause, without the key, plain or base64.
func TestErrorsNameCauseNotSecret(t *testing.T) {
	want := map[string]any{"accountId": 1234.0, "query": nrql, "timeout": 5.0}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // a server sees the client leave only once the body is read
		<-r.Context().Done()
	}))
	defer slow.Close()
	big := int64(121)
	for _, tc := range []struct {
		name    string
		d       secrets
		ctx     time.Duration
		timeout *int64
		want    string
	}{
		{"wrong key", profileAt(fakeNerdGraph(t, want, answer{}), "NRAK-WRONGWRONGWRONGWRONG"), 0, nil, "UNAUTHORIZED (credentials refused): Invalid API key"},
		{"401", profileAt(fakeNerdGraph(t, want, answer{status: 401, body: `{"errors":[{"message":"key ` + testKey + ` revoked"}]}`}), testKey), 0, nil, "HTTP 401 Unauthorized: credentials refused: key"},
		{"429", profileAt(fakeNerdGraph(t, want, answer{status: 429, header: map[string]string{"Retry-After": "60"}, body: `{"errors":[{"message":"rate limit"}]}`}), testKey), 0, nil, "HTTP 429 Too Many Requests: rate limited (Retry-After 60): rate limit"},
		{"503", profileAt(fakeNerdGraph(t, want, answer{status: 503, body: "<html>down</html>"}), testKey), 0, nil, "HTTP 503 Service Unavailable: server error: <html>down</html>"},
		{"malformed", profileAt(fakeNerdGraph(t, want, answer{status: 200, body: testKey}), testKey), 0, nil, "malformed response"},
		{"unreachable", profileAt(closed, testKey), 0, nil, "connection refused"},
		{"timeout", profileAt(slow, testKey), 50 * time.Millisecond, nil, "context deadline exceeded"},
		{"timeout field", profileAt(closed, testKey), 0, &big, "timeout must be between 1 and 120 seconds (got 121)"},
	} {
		ctx := context.Background()
		if tc.ctx > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, tc.ctx)
			defer cancel()
		}
		res, err := measure(ctx, tc.d, rampv1.NewRelicMetric{Query: nrql, Timeout: tc.timeout})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			continue
		}
		text := err.Error() + res.Display
		if strings.Contains(text, testKey) || strings.Contains(text, base64.StdEncoding.EncodeToString([]byte(testKey))) {
			t.Errorf("%s: the key survives in %q", tc.name, text)
		}
	}
}

// FuzzDecode: the decoder never panics, and a success has a stored value.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"data":{"actor":{"account":{"nrql":{"results":[{"a":1}]}}}}}`, `{"errors":[{"message":"x"}]}`,
		`{"data":{"actor":{"account":{"nrql":{"results":[{"a":1},{"b":[1,{"c":null}]}]}}}}}`, `null`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if res, err := decode(body); err == nil && (res.Display == "" || res.Value == nil) {
			t.Errorf("%q: success with no value", body)
		}
	})
}

// TestURLPasswordMasked: a base-url-nerdgraph carrying a password in its
// userinfo is masked when NerdGraph echoes it; a plain one is not (errors
// name the host), with the region not masked either.
func TestURLPasswordMasked(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "proxy for https://ops:pr0xy-pa55@"+r.Host+" at us-east: upstream down")
	}))
	defer srv.Close()
	withPassword := strings.Replace(srv.URL, "http://", "http://ops:pr0xy-pa55@", 1) + "/graphql"
	d := secrets{"ctl/newrelic": {"personal-api-key": []byte(testKey), "account-id": []byte("1234"), "region": []byte("us"), "base-url-nerdgraph": []byte(withPassword)}}
	_, err := measure(context.Background(), d, rampv1.NewRelicMetric{Query: nrql})
	if err == nil || strings.Contains(err.Error(), "pa55") || !strings.Contains(err.Error(), "us-east") {
		t.Errorf("error %v: the password shows, or the region was masked", err)
	}
}
