package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestVersionFlag builds the controller as the Dockerfile does (-ldflags
// -X) and runs `ramp-controller --version`: it prints the injected version
// and commit and the Go version, and exits 0 without a cluster.
func TestVersionFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the controller")
	}
	bin := filepath.Join(t.TempDir(), "ramp-controller")
	pkg := "github.com/ramp-rollouts/ramp/internal/buildinfo"
	build := exec.Command("go", "build", "-trimpath", "-o", bin,
		"-ldflags", "-X "+pkg+".version=v9.8.7-test -X "+pkg+".commit=c0ffee1", ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	if want := regexp.MustCompile(`^ramp-controller version v9\.8\.7-test, commit c0ffee1, go1\.\d+`); !want.Match(out) {
		t.Errorf("--version printed %q, want it to match %s", out, want)
	}
}
