package influxdb

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// v1Server is InfluxDB 1.x's /query as documented: GET with q and db,
// credentials as basic authentication or `Authorization: Token user:pass`,
// 401 {"error":"authorization failed"} otherwise.
func v1Server(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		user, pass, basic := r.BasicAuth()
		authorized := (basic && user == "admin" && pass == token) || r.Header.Get("Authorization") == "Token admin:"+token
		switch {
		case r.Method != http.MethodGet || r.URL.Path != "/query":
			w.WriteHeader(http.StatusNotFound)
		case !authorized:
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"authorization failed"}`))
		case r.URL.Query().Get("db") != "telegraf" || r.URL.Query().Get("q") == "":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"database name required"}`))
		default:
			_, _ = w.Write([]byte(body))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestInfluxQL(t *testing.T) {
	addr := v1Server(t, `{"results":[{"statement_id":0,"series":[{"name":"errors","columns":["time","mean"],"values":[["2026-01-01T00:00:00Z",0.5],["2026-01-01T00:01:00Z",1]]}]}]}`)
	for _, creds := range []map[string]string{
		{"address": addr, "database": "telegraf", "username": "admin", "password": token},
		{"address": addr, "database": "telegraf", "authToken": "admin:" + token},
	} {
		res, err := newProvider(secrets{"influxdb": creds}).Measure(context.Background(),
			provider.Request{Metric: metric("", "influxql", `SELECT mean("value") FROM "errors" WHERE time > now() - 5m`)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Display != "[0.5 1]" || !reflect.DeepEqual(res.Value, []any{0.5, 1.0}) {
			t.Errorf("got %q %#v", res.Display, res.Value)
		}
	}
	_, err := newProvider(secrets{"influxdb": {"address": addr, "database": "telegraf", "username": "admin", "password": "no"}}).
		Measure(context.Background(), provider.Request{Metric: metric("", "influxql", "SELECT 1")})
	if err == nil || err.Error() != "influxdb influxql query failed: HTTP 401 Unauthorized: credentials refused: authorization failed" {
		t.Errorf("bad password: %v", err)
	}
}

func TestDecodeInfluxQL(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []any
		err        string
	}{
		{"two series", `{"results":[{"series":[{"columns":["time","v"],"values":[[1,2]]},{"columns":["time","v"],"values":[[1,3]]}]}]}`, []any{2.0, 3.0}, ""},
		{"no time column", `{"results":[{"series":[{"columns":["count"],"values":[[7]]}]}]}`, []any{7.0}, ""},
		{"null, string and bool", `{"results":[{"series":[{"columns":["time","v"],"values":[[1,null],[2,"x"],[3,true]]}]}]}`, []any{nil, "x", true}, ""},
		{"empty", `{"results":[{"statement_id":0}]}`, nil, ""},
		{"statement error", `{"results":[{"statement_id":0,"error":"database not found: x"}]}`, nil, "statement 0: database not found: x"},
		{"top error", `{"error":"error parsing query: found EOF"}`, nil, "error parsing query: found EOF"},
		{"short row", `{"results":[{"series":[{"columns":["time","v"],"values":[[1]]}]}]}`, nil, "a row has 1 columns, not 2"},
		{"object value", `{"results":[{"series":[{"columns":["time","v"],"values":[[1,{}]]}]}]}`, nil, "a value is a map"},
		{"not json", `<html>`, nil, "invalid JSON response"},
		{"values not rows", `{"results":[{"series":[{"columns":["time","v"],"values":{"a":1}}]}]}`, nil, "a series' values are not an array of rows"},
		{"a row not an array", `{"results":[{"series":[{"columns":["time","v"],"values":[[1,2],3]}]}]}`, nil, "invalid JSON response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeInfluxQL([]byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
}

// TestDecodeInfluxQLBounded: an answer with more than provider.MaxValues
// rows, over several series, is an error.
func TestDecodeInfluxQLBounded(t *testing.T) {
	series := func(n int) string {
		return `{"columns":["time","v"],"values":[` + strings.TrimSuffix(strings.Repeat("[1,2],", n), ",") + `]}`
	}
	half := provider.MaxValues / 2
	body := `{"results":[{"series":[` + series(half) + `]},{"series":[` + series(half) + `]}]}`
	if got, err := decodeInfluxQL([]byte(body)); err != nil || len(got) != provider.MaxValues {
		t.Fatalf("%d values: %d, %v", provider.MaxValues, len(got), err)
	}
	body = `{"results":[{"series":[` + series(half) + `]},{"series":[` + series(half) + "," + series(1) + `]}]}`
	_, err := decodeInfluxQL([]byte(body))
	if want := "the answer has more than 100000 values: aggregate or filter in the query"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// FuzzDecodeInfluxQL: no answer panics the decoder; values are only the
// JSON scalar types, and an error returns none.
func FuzzDecodeInfluxQL(f *testing.F) {
	for _, s := range []string{
		`{"results":[{"statement_id":0,"series":[{"columns":["time","v"],"values":[[1,0.5],[2,null]]}]}]}`,
		`{"results":[{"error":"x"}]}`, `{"error":"x"}`, `{"results":[{"series":[{"columns":[],"values":[[]]}]}]}`, `[`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		values, err := decodeInfluxQL(body)
		if err != nil && values != nil {
			t.Fatalf("error %v with values %v", err, values)
		}
		for _, v := range values {
			switch v.(type) {
			case float64, string, bool, nil:
			default:
				t.Fatalf("value of type %T", v)
			}
		}
	})
}
