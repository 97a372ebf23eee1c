package gatewayapi

import (
	"reflect"
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestHeaderMatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    rampv1.StringMatch
		want map[string]any
		err  string
	}{
		{name: "exact", v: rampv1.StringMatch{Exact: "on"},
			want: map[string]any{"name": "x-canary", "type": "Exact", "value": "on"}},
		{name: "regex", v: rampv1.StringMatch{Regex: "^(on|yes)$"},
			want: map[string]any{"name": "x-canary", "type": "RegularExpression", "value": "^(on|yes)$"}},
		{name: "prefix is a quoted regex", v: rampv1.StringMatch{Prefix: "v1.2+"},
			want: map[string]any{"name": "x-canary", "type": "RegularExpression", "value": `^v1\.2\+.*`}},
		{name: "none", err: "set exactly one of exact, prefix and regex"},
		{name: "two", v: rampv1.StringMatch{Exact: "a", Regex: "b"}, err: "set exactly one of exact, prefix and regex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := headerMatch("x-canary", tc.v)
			checkErr(t, err, tc.err)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestHeaderMatches(t *testing.T) {
	_, err := headerMatches([]rampv1.HeaderRoutingMatch{
		{HeaderName: "a", HeaderValue: &rampv1.StringMatch{Exact: "1"}},
		{HeaderName: "b", HeaderValue: &rampv1.StringMatch{}},
	})
	checkErr(t, err, "match[1].headerValue: set exactly one of exact, prefix and regex")
	_, err = headerMatches([]rampv1.HeaderRoutingMatch{{HeaderName: "a"}})
	checkErr(t, err, "match[0].headerValue: required")
}

func TestMirrorMatches(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []rampv1.RouteMatch
		want []any
		err  string
	}{
		{name: "empty block matches every path", in: []rampv1.RouteMatch{{}},
			want: []any{map[string]any{"path": map[string]any{"type": "PathPrefix", "value": "/"}}}},
		{name: "paths", in: []rampv1.RouteMatch{
			{Path: &rampv1.StringMatch{Exact: "/a"}}, {Path: &rampv1.StringMatch{Prefix: "/b"}}, {Path: &rampv1.StringMatch{Regex: "/c/.*"}},
		}, want: []any{
			map[string]any{"path": map[string]any{"type": "Exact", "value": "/a"}},
			map[string]any{"path": map[string]any{"type": "PathPrefix", "value": "/b"}},
			map[string]any{"path": map[string]any{"type": "RegularExpression", "value": "/c/.*"}},
		}},
		{name: "method and headers sorted by name", in: []rampv1.RouteMatch{{
			Method:  &rampv1.StringMatch{Exact: "POST"},
			Headers: map[string]rampv1.StringMatch{"z-b": {Prefix: "x"}, "a-a": {Exact: "1"}},
		}}, want: []any{map[string]any{
			"path":   map[string]any{"type": "PathPrefix", "value": "/"},
			"method": "POST",
			"headers": []any{
				map[string]any{"name": "a-a", "type": "Exact", "value": "1"},
				map[string]any{"name": "z-b", "type": "RegularExpression", "value": "^x.*"},
			},
		}}},
		{name: "method by regex", in: []rampv1.RouteMatch{{}, {Method: &rampv1.StringMatch{Regex: "GET|POST"}}},
			err: "match[1].method: Gateway API matches a method exactly"},
		{name: "path with two kinds", in: []rampv1.RouteMatch{{Path: &rampv1.StringMatch{Exact: "/a", Prefix: "/a"}}},
			err: "match[0].path: set exactly one"},
		{name: "header without value", in: []rampv1.RouteMatch{{Headers: map[string]rampv1.StringMatch{"x": {}}}},
			err: `match[0].headers["x"]: set exactly one`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mirrorMatches(tc.in)
			checkErr(t, err, tc.err)
			if tc.err == "" && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// checkErr fails t unless err contains want, or is nil when want is "".
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("err = %v, want it to contain %q", err, want)
	}
}
