package prometheus

import (
	"math"
	"reflect"
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestParse(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		value   any
		display string
		err     string
	}{
		{"scalar", 200, `{"status":"success","data":{"resultType":"scalar","result":[1700000000.1,"1.5"]}}`, 1.5, "1.5", ""},
		{"vector", 200, `{"status":"success","data":{"resultType":"vector","result":[
			{"metric":{"pod":"a"},"value":[1,"0.99"]},{"metric":{"pod":"b"},"value":[1,"1"]}]}}`,
			[]float64{0.99, 1}, "[0.99,1]", ""},
		{"empty vector", 200, `{"status":"success","data":{"resultType":"vector","result":[]}}`, []float64{}, "[]", ""},
		{"null vector", 200, `{"status":"success","data":{"resultType":"vector","result":null}}`, []float64{}, "[]", ""},
		{"special values", 200, `{"status":"success","data":{"resultType":"vector","result":[
			{"value":[1,"NaN"]},{"value":[1,"+Inf"]},{"value":[1,"-Inf"]},{"value":[1,"1e-7"]}]}}`,
			[]float64{nan, math.Inf(1), math.Inf(-1), 1e-7}, "[NaN,+Inf,-Inf,0.0000001]", ""},
		{"scalar NaN", 200, `{"status":"success","data":{"resultType":"scalar","result":[1,"NaN"]}}`, nan, "NaN", ""},
		{"matrix", 200, `{"status":"success","data":{"resultType":"matrix","result":[
			{"metric":{"pod":"a"},"values":[[1,"10"],[61,"20"]]},{"metric":{"pod":"b"},"values":[[1,"30"]]}]}}`,
			[]float64{10, 20, 30}, "[10,20,30]", ""},
		{"string", 200, `{"status":"success","data":{"resultType":"string","result":[1,"ok"]}}`, "ok", "ok", ""},
		{"error 422", 422, `{"status":"error","errorType":"execution","error":"query timed out"}`, nil, "", "execution: query timed out"},
		{"error without type", 200, `{"status":"error","error":"boom"}`, nil, "", "boom"},
		{"non 2xx", 502, `Bad Gateway`, nil, "", "received non 2xx response code: 502"},
		{"non 2xx success body", 500, vectorBody, nil, "", "received non 2xx response code: 500"},
		{"garbage", 200, `<html>`, nil, "", "invalid JSON response"},
		{"unknown status", 200, `{"status":"pending"}`, nil, "", `unexpected response status "pending"`},
		{"unknown type", 200, `{"status":"success","data":{"resultType":"exemplars","result":[]}}`, nil, "", "unsupported result type"},
		{"bad value", 200, `{"status":"success","data":{"resultType":"scalar","result":[1,"one"]}}`, nil, "", `invalid sample value "one"`},
		{"short sample", 200, `{"status":"success","data":{"resultType":"vector","result":[{"value":[1]}]}}`, nil, "", "not [time, value]"},
		{"no value", 200, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}}`, nil, "", "has no value"},
		{"histogram", 200, `{"status":"success","data":{"resultType":"vector","result":[{"histogram":[1,{}]}]}}`, nil, "", "native histogram"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := parse(tc.status, []byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !sameValue(res.Value, tc.value) || res.Display != tc.display {
				t.Fatalf("got %#v %q, want %#v %q", res.Value, res.Display, tc.value, tc.display)
			}
		})
	}
}

func TestParseWarnings(t *testing.T) {
	res, err := parse(200, []byte(`{"status":"success","warnings":["a","b"],"data":{"resultType":"scalar","result":[1,"2"]}}`))
	if err != nil || res.Message != "prometheus warnings: a; b" || res.Metadata[rampv1.PrometheusWarningsMetadataKey] != "a; b" {
		t.Fatalf("got %+v, %v", res, err)
	}
}

// sameValue is reflect.DeepEqual with NaN equal to NaN.
func sameValue(a, b any) bool {
	fa, aok := a.(float64)
	fb, bok := b.(float64)
	if aok && bok {
		return fa == fb || math.IsNaN(fa) && math.IsNaN(fb)
	}
	la, aok := a.([]float64)
	lb, bok := b.([]float64)
	if aok && bok && len(la) == len(lb) {
		for i := range la {
			if !sameValue(la[i], lb[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// FuzzParse checks that no response panics the decoder, that a result has
// one of the documented value types, and that errors carry no result.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		vectorBody,
		`{"status":"success","data":{"resultType":"scalar","result":[1,"+Inf"]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"1"],[2,"NaN"]]}]}}`,
		`{"status":"success","data":{"resultType":"string","result":[1,"x"]}}`,
		`{"status":"success","data":{"resultType":"vector","result":[{"value":null}]}}`,
		`{"status":"error","errorType":"bad_data","error":"x"}`,
		`{"status":"success","warnings":["w"],"data":{"resultType":"vector","result":[]}}`,
		`{"status":"success","data":{"resultType":"vector","result":[{"value":[1,"1"],"histogram":null}]}}`,
		`[`, `null`, ``,
	} {
		f.Add(200, []byte(s))
	}
	f.Add(503, []byte(`{"status":"error","error":"down"}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		res, err := parse(status, body)
		if err != nil {
			if res.Value != nil || res.Display != "" {
				t.Fatalf("error %v with a result %+v", err, res)
			}
			return
		}
		switch v := res.Value.(type) {
		case float64:
			if res.Display != formatValue(v) {
				t.Fatalf("display %q of %v", res.Display, v)
			}
		case []float64:
			if v == nil || !strings.HasPrefix(res.Display, "[") || !strings.HasSuffix(res.Display, "]") {
				t.Fatalf("vector %#v displayed %q", v, res.Display)
			}
		case string:
			if res.Display != v {
				t.Fatalf("string %q displayed %q", v, res.Display)
			}
		default:
			t.Fatalf("undocumented value type %T", res.Value)
		}
	})
}
