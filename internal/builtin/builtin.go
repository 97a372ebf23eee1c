// Package builtin links the traffic routers and metric providers this build
// of Ramp ships: one import line each. Each of those packages registers
// itself from init (traffic.Register, provider.Register); importing this
// package, blank, is what puts them in the registries that the controller,
// the planner, lint and the CLI read. The controller, the CLI and the tests
// of packages that read the registries import it; the pure packages
// (plan, analysis, view, experiment, lint) never do, only their tests.
package builtin

import (
	// Metric providers (internal/analysis/provider/<name>).
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/cloudwatch"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/datadog"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/graphite"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/influxdb"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/job"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/judge"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/kayenta"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/newrelic"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/prometheus"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/skywalking"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/wavefront"
	_ "github.com/ramp-rollouts/ramp/internal/analysis/provider/web"

	// Traffic routers (internal/traffic/<name>).
	_ "github.com/ramp-rollouts/ramp/internal/traffic/alb"
	_ "github.com/ramp-rollouts/ramp/internal/traffic/gatewayapi"
	_ "github.com/ramp-rollouts/ramp/internal/traffic/istio"
	_ "github.com/ramp-rollouts/ramp/internal/traffic/nginx"
	_ "github.com/ramp-rollouts/ramp/internal/traffic/smi"
)
