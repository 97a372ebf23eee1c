// Package buildinfo says which Ramp is running: the version and commit the
// release build injects with -ldflags -X (Dockerfile, docs/operations.md),
// else what the Go toolchain recorded in the binary. It imports only the
// standard library.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at link time, e.g.
//
//	go build -ldflags "-X github.com/ramp-rollouts/ramp/internal/buildinfo.version=v1.2.3 -X github.com/ramp-rollouts/ramp/internal/buildinfo.commit=abc123"
var version, commit string

// Info is the running binary's version, commit and Go toolchain.
type Info struct {
	Version, Commit, GoVersion string
}

// Get returns the injected version and commit, falling back to the module
// version and VCS revision the toolchain recorded, then to "unknown".
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(version, commit, bi)
}

// resolve is Get with its inputs explicit, for tests.
func resolve(version, commit string, bi *debug.BuildInfo) Info {
	info := Info{Version: version, Commit: commit, GoVersion: runtime.Version()}
	if bi != nil {
		if info.Version == "" && bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && info.Commit == "" {
				info.Commit = s.Value
			}
		}
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
	}
	if info.Version == "" {
		info.Version = "unknown"
	}
	if info.Commit == "" {
		info.Commit = "unknown"
	}
	return info
}

// String is the one line `--version` prints.
func (i Info) String() string {
	return fmt.Sprintf("version %s, commit %s, %s", i.Version, i.Commit, i.GoVersion)
}
