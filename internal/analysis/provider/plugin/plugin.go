// Package plugin runs upstream's metric provider plugins: executables such
// as the rollouts-plugin-metric-* projects publish, configured in the
// metricProviderPlugins key of the argo-rollouts-config ConfigMap and
// selected by a metric's provider.plugin.<namespace>/<name>. It speaks their
// protocol unchanged: hashicorp/go-plugin's net/rpc transport with
// upstream's handshake (ARGO_ROLLOUTS_RPC_PLUGIN=metricprovider), the
// provider dispensed as "RpcMetricProviderPlugin", and the Plugin.Run,
// Plugin.Resume, Plugin.Terminate and Plugin.GetMetadata calls with
// gob-encoded arguments wire-compatible with upstream's (wire.go).
//
// The controller installs the configured binaries at start (Install, with
// the SHA-256 check) and registers one provider per plugin under
// "plugin/<namespace>/<name>" (Register). A plugin process starts on first
// use and again after it exits, with a backoff when it keeps failing
// (process.go). Ramp logs none of a plugin's output: it
// may hold the metric's configuration, secrets included.
package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// Provider measures the metrics of one plugin. Create it with New.
type Provider struct {
	proc *process
	now  func() time.Time
}

var _ provider.Provider = (*Provider)(nil)

// New returns the provider of plugin name, run from the binary at path
// with args.
func New(name, path string, args []string) *Provider {
	return &Provider{proc: &process{name: name, path: path, args: args, now: time.Now}, now: time.Now}
}

// Stop kills the plugin's process, if one runs (it starts again on the
// next measurement).
func (p *Provider) Stop() { p.proc.stop() }

// Measure asks the plugin for a measurement: Plugin.Run for a new one,
// Plugin.Resume for one it left Running, Plugin.Terminate when the run
// ends. The plugin judges its measurement itself (upstream's plugins
// evaluate the metric's conditions), so its phase is the result's: Error
// is returned as an error carrying the plugin's message. Plugin.GetMetadata
// is merged into the measurement's metadata. A call that fails (the
// process died, the context ended) is an error; a process that died, or
// that let maxTimeouts calls in a row run out of time, is started again
// on a later measurement.
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	if len(req.Metric.Provider.Plugin) == 0 {
		return provider.Result{}, fmt.Errorf("plugin %s: the metric has no plugin provider", p.proc.name)
	}
	if _, ok := req.Metric.Provider.Plugin[p.proc.name]; !ok || len(req.Metric.Provider.Plugin) > 1 {
		return provider.Result{}, fmt.Errorf("plugin %s: metric.provider.plugin must configure exactly this plugin", p.proc.name)
	}
	c, err := p.proc.conn(ctx)
	if err != nil {
		return provider.Result{}, err
	}
	run, metric := toWireRun(req.Run), toWireMetric(req.Metric)
	var (
		method string
		args   any
	)
	switch {
	case req.InFlight == nil:
		method, args = "Plugin.Run", runArgs{AnalysisRun: run, Metric: metric}
	case req.Terminate:
		method, args = "Plugin.Terminate", resumeArgs{AnalysisRun: run, Metric: metric, Measurement: *req.InFlight}
	default:
		method, args = "Plugin.Resume", resumeArgs{AnalysisRun: run, Metric: metric, Measurement: *req.InFlight}
	}
	var m rampv1.Measurement
	if err := call(ctx, c, method, &args, &m); err != nil {
		switch {
		case broken(err):
			p.proc.failed(c) // started again by a later measurement
		case ctx.Err() != nil:
			p.proc.timedOut(c) // stopped when it seems hung
		}
		return provider.Result{}, fmt.Errorf("plugin %s: %s: %w", p.proc.name, method, err)
	}
	p.proc.succeeded()
	var extra map[string]string
	var margs any = metadataArgs{Metric: metric}
	if err := call(ctx, c, "Plugin.GetMetadata", &margs, &extra); err != nil {
		return provider.Result{}, fmt.Errorf("plugin %s: Plugin.GetMetadata: %w", p.proc.name, err)
	}
	return p.result(m, extra)
}

// broken tells an error of a lost connection (the plugin exited or closed
// it) from one of the call (a timeout, an error the plugin returned), after
// which the process goes on serving the other measurements.
func broken(err error) bool {
	return errors.Is(err, rpc.ErrShutdown) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// result maps the plugin's measurement onto a provider result.
func (p *Provider) result(m rampv1.Measurement, extra map[string]string) (provider.Result, error) {
	meta := m.Metadata
	for k, v := range extra {
		if meta == nil {
			meta = map[string]string{}
		}
		if _, set := meta[k]; !set {
			meta[k] = v
		}
	}
	res := provider.Result{Display: m.Value, Message: m.Message, Metadata: meta, Phase: m.Phase}
	switch m.Phase {
	case rampv1.AnalysisPhaseSuccessful, rampv1.AnalysisPhaseFailed, rampv1.AnalysisPhaseInconclusive:
		return res, nil
	case rampv1.AnalysisPhaseRunning:
		if m.ResumeAt != nil {
			res.ResumeAt = m.ResumeAt.Time
		} else {
			res.ResumeAt = p.now().Add(10 * time.Second)
		}
		return res, nil
	case rampv1.AnalysisPhaseError:
		msg := m.Message
		if msg == "" {
			msg = "the plugin reported an Error without a message"
		}
		return provider.Result{}, fmt.Errorf("plugin %s: %s", p.proc.name, msg)
	}
	return provider.Result{}, fmt.Errorf("plugin %s returned a measurement of phase %q", p.proc.name, m.Phase)
}
