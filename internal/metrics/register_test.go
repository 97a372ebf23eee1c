package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ramp-rollouts/ramp/internal/buildinfo"
)

// TestBuildInfo: the running build is exported as upstream's
// argo_rollouts_controller_info{version} and as ramp_build_info with the
// commit and Go version too, both constant 1.
func TestBuildInfo(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	for _, c := range buildInfo() {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	b := buildinfo.Get()
	want := `
# HELP argo_rollouts_controller_info Running Argo-rollouts version
# TYPE argo_rollouts_controller_info gauge
argo_rollouts_controller_info{version="` + b.Version + `"} 1
# HELP ramp_build_info The running Ramp build: always 1, its version, commit and Go version as labels.
# TYPE ramp_build_info gauge
ramp_build_info{commit="` + b.Commit + `",goversion="` + b.GoVersion + `",version="` + b.Version + `"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "argo_rollouts_controller_info", "ramp_build_info"); err != nil {
		t.Error(err)
	}
	if b.GoVersion == "" || b.Version == "" || b.Commit == "" {
		t.Errorf("empty label in %+v", b)
	}
}
