package graphite

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name, body string
		want       []float64
		display    string
		err        string
	}{
		{"numbers", `[{"target":"a","datapoints":[[1,10],[2.25,20]]}]`, []float64{1, 2.25}, "[1.000000,2.250000]", ""},
		{"nulls left out", `[{"datapoints":[[null,10],[3,20],[null,30]]}]`, []float64{3}, "[3.000000]", ""},
		{"all null", `[{"datapoints":[[null,10],[null,20]]}]`, []float64{}, "[]", ""},
		{"numeric strings", `[{"datapoints":[["1.5","10"],[2,null]]}]`, []float64{1.5, 2}, "[1.500000,2.000000]", ""},
		{"first series only", `[{"datapoints":[[1,1]]},{"datapoints":[[9,1]]}]`, []float64{1}, "[1.000000]", ""},
		{"graphite's infinity", `[{"datapoints":[[1e9999,1]]}]`, []float64{inf}, "[+Inf]", ""},
		{"no series", `[]`, nil, "", "no values found"},
		{"no datapoints", `[{"target":"a","datapoints":[]}]`, nil, "", "no values found"},
		{"not json", `<html>`, nil, "", "invalid JSON response"},
		{"short datapoint", `[{"datapoints":[[1]]}]`, nil, "", "a datapoint has 1 elements"},
		{"bad value", `[{"datapoints":[["x",1]]}]`, nil, "", `datapoint value "x" is not a number`},
		{"bool value", `[{"datapoints":[[true,1]]}]`, nil, "", "a datapoint value is a bool"},
		{"bad timestamp", `[{"datapoints":[[1,"soon"]]}]`, nil, "", `datapoint timestamp "soon" is not an integer`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := parse(200, []byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Value.([]float64); !slices.Equal(got, tc.want) || got == nil {
				t.Errorf("value %#v, want %#v", got, tc.want)
			}
			if res.Display != tc.display {
				t.Errorf("display %q, want %q", res.Display, tc.display)
			}
		})
	}
}

// FuzzParse checks that no answer panics the decoder, that a result is a
// non-nil []float64 displayed as upstream, and that errors carry no result.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`[{"target":"a","datapoints":[[1,10],[null,20],["2",30]]}]`,
		`[{"datapoints":[[1e9999,1]]}]`, `[]`, `[{}]`, `[{"datapoints":[[1]]}]`, `null`, `{`, ``,
	} {
		f.Add(200, []byte(s))
	}
	f.Add(500, []byte("Internal Server Error"))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		res, err := parse(status, body)
		if err != nil {
			if res.Value != nil || res.Display != "" {
				t.Fatalf("error %v with a result %+v", err, res)
			}
			if len(err.Error()) > 500 {
				t.Fatalf("unbounded error: %d bytes", len(err.Error()))
			}
			return
		}
		v, ok := res.Value.([]float64)
		if !ok || v == nil || res.Display != display(v) {
			t.Fatalf("result %#v displayed %q", res.Value, res.Display)
		}
	})
}
