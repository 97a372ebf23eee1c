package graphite

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
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
		{"later series not decoded", `[{"datapoints":[[1,1]]},{"datapoints":[["x",1]]},{"target":7}]`, []float64{1}, "[1.000000]", ""},
		{"later series not JSON", `[{"datapoints":[[1,1]]},{"datapoints":[[1,1]]`, nil, "", "invalid JSON response: unexpected EOF"},
		{"null answer", `null`, nil, "", "no values found"},
		{"an object", `{"datapoints":[[1,1]]}`, nil, "", "invalid JSON response: not an array of series"},
		{"data after the answer", `[{"datapoints":[[1,1]]}] []`, nil, "", "invalid JSON response: data after the answer"},
		{"datapoints not an array", `[{"datapoints":{"a":1}}]`, nil, "", "invalid JSON response: datapoints are not an array"},
		{"a datapoint not an array", `[{"datapoints":[7]}]`, nil, "", "invalid JSON response: a datapoint is not an array [value, timestamp]"},
		{"object timestamp", `[{"datapoints":[[1,{}]]}]`, nil, "", "a datapoint timestamp is a object"},
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

// TestParseErrorPageNotUTF8: an error page in Latin-1 is quoted (its
// invalid bytes as '?'), not cut to nothing, and the message is valid
// UTF-8 whatever the page.
func TestParseErrorPageNotUTF8(t *testing.T) {
	for body, want := range map[string]string{
		"\xabInvalid target\xbb: " + strings.Repeat("x", 300): "error response (HTTP 400): ?Invalid target?: xxx",
		"caf\xe9": "error response (HTTP 400): caf?",
	} {
		_, err := parse(400, []byte(body))
		if err == nil || !strings.HasPrefix(err.Error(), want) || !utf8.ValidString(err.Error()) {
			t.Errorf("error %q, want prefix %q", err, want)
		}
	}
}

// TestParseBounded: a first series of more than provider.MaxValues
// datapoints is an error naming the bound, nulls counted; later series
// may be longer (they are not decoded).
func TestParseBounded(t *testing.T) {
	points := func(n int, p string) string { return strings.TrimSuffix(strings.Repeat(p+",", n), ",") }
	long := `{"datapoints":[` + points(provider.MaxValues+1, "[1,1]") + `]}`
	res, err := parse(200, []byte(`[{"datapoints":[`+points(provider.MaxValues, "[null,1]")+`]},`+long+`]`))
	if err != nil || len(res.Value.([]float64)) != 0 {
		t.Fatalf("%d null datapoints: %v", provider.MaxValues, err)
	}
	_, err = parse(200, []byte(`[`+long+`]`))
	want := "the first series has more than 100000 datapoints: consolidate them in the query (summarize, consolidateBy) or shorten from="
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
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
