package registry

import (
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := New[int]("metric provider")
	if err := r.Register("web", 1); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("prometheus", 2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		want    int
		wantErr string
	}{
		{"prometheus", 2, ""},
		{"web", 1, ""},
		{"datadog", 0, `unknown metric provider "datadog" (available: [prometheus web])`},
		{"", 0, `unknown metric provider ""`},
	} {
		got, err := r.Get(tc.name)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Get(%q) error = %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Get(%q) = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
	if err := r.Register("web", 3); err == nil || !strings.Contains(err.Error(), `metric provider "web" registered twice`) {
		t.Errorf("duplicate Register error = %v", err)
	}
	if err := r.Register("", 3); err == nil {
		t.Error("Register with empty name succeeded")
	}
	if got := strings.Join(r.Names(), ","); got != "prometheus,web" {
		t.Errorf("Names() = %s", got)
	}
}
