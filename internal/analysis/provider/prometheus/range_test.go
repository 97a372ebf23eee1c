package prometheus

import (
	"context"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

const matrixBody = `{"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"200"],[2,"900"]]}]}}`

func TestMeasureRangeQuery(t *testing.T) {
	addr, last := serve(t, false, 200, matrixBody)
	p := New(WithClock(func() time.Time { return clock }))
	for _, tc := range []struct {
		name, start, end, wantStart, wantEnd string
	}{
		{"expressions", `now() - duration("5m")`, "now()", "2026-03-01T11:55:00Z", "2026-03-01T12:00:00Z"},
		{"end defaults to now", `now() - duration("1h")`, "", "2026-03-01T11:00:00Z", "2026-03-01T12:00:00Z"},
		{"timestamps", "2026-03-01T10:00:00Z", "2026-03-01T11:30:00.5+01:00", "2026-03-01T10:00:00Z", "2026-03-01T10:30:00.5Z"},
		{"date functions", `date("2026-02-01")`, `now().Add(duration("-2h"))`, "2026-02-01T00:00:00Z", "2026-03-01T10:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Measure(context.Background(), request(rampv1.PrometheusMetric{
				Address: addr, Query: "latency_ms",
				RangeQuery: &rampv1.PrometheusRangeQueryArgs{Start: tc.start, End: tc.end, Step: "1m"},
			}))
			if err != nil {
				t.Fatal(err)
			}
			got := last()
			if got.path != "/api/v1/query_range" || got.form.Get("start") != tc.wantStart ||
				got.form.Get("end") != tc.wantEnd || got.form.Get("step") != "1m" || got.form.Get("query") != "latency_ms" {
				t.Fatalf("request %s %v", got.path, got.form)
			}
			if res.Display != "[200,900]" {
				t.Fatalf("display %q", res.Display)
			}
		})
	}
}

func TestMeasureRangeQueryErrors(t *testing.T) {
	addr, _ := serve(t, false, 200, matrixBody)
	p := New(WithClock(func() time.Time { return clock }))
	for _, tc := range []struct {
		name string
		r    rampv1.PrometheusRangeQueryArgs
		want string
	}{
		{"no start", rampv1.PrometheusRangeQueryArgs{Step: "1m"}, "rangeQuery.start is not set"},
		{"no step", rampv1.PrometheusRangeQueryArgs{Start: "now()"}, "rangeQuery.step is not set"},
		{"syntax", rampv1.PrometheusRangeQueryArgs{Start: "now() -", Step: "1m"}, `rangeQuery.start: invalid expression "now() -"`},
		{"not a time", rampv1.PrometheusRangeQueryArgs{Start: "now()", End: "5", Step: "1m"}, `rangeQuery.end: "5" gives a int, not a time`},
		{"runtime error", rampv1.PrometheusRangeQueryArgs{Start: `duration("x")`, Step: "1m"}, `rangeQuery.start: evaluating`},
		{"reversed", rampv1.PrometheusRangeQueryArgs{Start: "now()", End: `now() - duration("1m")`, Step: "1m"},
			"rangeQuery.end 2026-03-01T11:59:00Z is before its start 2026-03-01T12:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p.Measure(context.Background(), request(rampv1.PrometheusMetric{Address: addr, Query: "up", RangeQuery: &tc.r}))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want %q on one line", err, tc.want)
			}
		})
	}
}

// FuzzBounds: a range query's start and end, as timestamps or expressions,
// never panic the provider, and bounds that resolve are in order.
func FuzzBounds(f *testing.F) {
	for _, s := range [][2]string{
		{`now() - duration("5m")`, "now()"}, {"2026-03-01T10:00:00Z", ""}, {`date("2026-02-01")`, `now().Add(duration("-2h"))`},
		{"now() -", ""}, {"5", ""}, {`duration("x")`, ""}, {"now()", `now() - duration("1m")`},
		{`now() - duration("2562047h47m16.854775807s")`, ""}, {`now().Add(duration("-9223372036s"))`, `now().Add(duration("1e9h"))`},
		{"", ""}, {"((((", "}"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, start, end string) {
		s, e, err := bounds(&rampv1.PrometheusRangeQueryArgs{Start: start, End: end, Step: "1m"}, clock)
		if err == nil && e.Before(s) {
			t.Fatalf("bounds(%q, %q) = %v, %v: end before start", start, end, s, e)
		}
	})
}
