package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	recorded := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "feedc0de"}}}
	for _, tc := range []struct {
		name            string
		version, commit string
		bi              *debug.BuildInfo
		want            Info
	}{
		{"injected wins over recorded", "v1.2.3", "abc123", recorded, Info{"v1.2.3", "abc123", "go1.26.0"}},
		{"recorded when nothing injected", "", "", recorded, Info{"v0.3.0", "feedc0de", "go1.26.0"}},
		{"unknown without either", "", "", &debug.BuildInfo{GoVersion: "go1.26.0"}, Info{"unknown", "unknown", "go1.26.0"}},
	} {
		if got := resolve(tc.version, tc.commit, tc.bi); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if got := resolve("", "", nil); got.Version != "unknown" || got.GoVersion == "" {
		t.Errorf("without build info: %+v, want version unknown and the runtime's Go version", got)
	}
}

func TestString(t *testing.T) {
	if got, want := (Info{"v1.2.3", "abc123", "go1.26.0"}).String(), "version v1.2.3, commit abc123, go1.26.0"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
