// Package kayenta is the "kayenta" metric provider: a canary judgement by
// a Kayenta service, in upstream's three calls. A new measurement looks the
// canary config up by name (GET /canaryConfig), starts a standalone canary
// execution with the metric's scopes and thresholds (POST /canary/{id}) and
// stays Running with the execution's id in its metadata; each resume (every
// ResumeDelay) reads the execution (GET /canary/{executionId}) until it is
// complete, and its score decides: at least threshold.pass Successful, at
// least threshold.marginal Inconclusive, below Failed.
//
// Kayenta takes no credentials (as upstream); a metric's secret arguments
// are masked by the AnalysisRun controller. It never logs.
package kayenta

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// ResumeDelay is how long a Running measurement waits before it reads the
// execution again (upstream's).
const ResumeDelay = 15 * time.Second

// MaxExecution bounds how long a measurement waits for an execution to
// complete: an execution still incomplete this long after the measurement
// started is an Error (upstream polls for ever; see docs/conformance.md),
// so a stuck Kayenta costs at most MaxExecution/ResumeDelay reads.
const MaxExecution = time.Hour

// RequestTimeout bounds each request (upstream's HTTP client timeout).
const RequestTimeout = 15 * time.Second

// Provider runs Kayenta judgements. Safe for concurrent use; create it
// with New.
type Provider struct {
	clients httpfetch.Clients
	now     func() time.Time
}

var _ provider.Provider = (*Provider)(nil)

// New returns a Provider with the HTTP policy of deps, sending with a
// clone of t (http.DefaultTransport when nil).
func New(deps provider.HTTPDeps, t *http.Transport) *Provider {
	return &Provider{clients: httpfetch.ForDeps(t, deps), now: time.Now}
}

// Measure starts an execution (a new measurement), reads it (resume), or
// ends the measurement (terminate: Successful, "Metric Terminated", as the
// job provider; Kayenta has no call to cancel an execution).
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.Kayenta
	if m == nil {
		return provider.Result{}, errors.New("kayenta: the metric has no kayenta provider")
	}
	base, err := check(m)
	if err != nil {
		return provider.Result{}, fmt.Errorf("kayenta: %w", err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, RequestTimeout, fmt.Errorf("timed out after %s", RequestTimeout))
	defer cancel()
	if req.InFlight == nil {
		return p.start(ctx, base, m)
	}
	id := req.InFlight.Metadata[rampv1.KayentaExecutionIDMetadataKey]
	meta := map[string]string{rampv1.KayentaExecutionIDMetadataKey: id}
	switch {
	case req.Terminate: // no request: whatever the id, the run's end ends the wait
		return provider.Result{Phase: rampv1.AnalysisPhaseSuccessful, Message: rampv1.AnalysisMessageMetricTerminated, Metadata: meta}, nil
	case !validID(id):
		// Status is writable by whoever may patch the run: the id goes in a
		// URL path only as a single plain segment.
		return provider.Result{}, fmt.Errorf("kayenta: in-flight measurement's %s metadata %q is not an execution id", rampv1.KayentaExecutionIDMetadataKey, id)
	}
	res, err := p.poll(ctx, base, id, m.Threshold)
	if err != nil {
		return provider.Result{}, fmt.Errorf("kayenta: execution %s: %w", id, err)
	}
	res.Metadata = meta
	if res.Phase == rampv1.AnalysisPhaseRunning {
		if s := req.InFlight.StartedAt; s != nil && p.now().Sub(s.Time) >= MaxExecution {
			return provider.Result{}, fmt.Errorf("kayenta: execution %s: not complete %s after it started", id, MaxExecution)
		}
		res.ResumeAt = p.now().Add(ResumeDelay)
	}
	return res, nil
}

// check validates the metric's fields upstream requires, and returns the
// service's base URL.
func check(m *rampv1.KayentaMetric) (*url.URL, error) {
	u, err := url.Parse(m.Address)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, fmt.Errorf("address %q is not an http(s) URL", m.Address)
	case m.Application == "":
		return nil, errors.New("application is required")
	case m.CanaryConfigName == "":
		return nil, errors.New("canaryConfigName is required")
	case len(m.Scopes) == 0:
		return nil, errors.New("scopes: at least one scope is required")
	case m.Threshold.Marginal > m.Threshold.Pass:
		return nil, fmt.Errorf("threshold.marginal (%d) must not exceed threshold.pass (%d)", m.Threshold.Marginal, m.Threshold.Pass)
	}
	return u, nil
}

// verdict is upstream's judgement of a score: at least pass Successful, at
// least marginal Inconclusive, else Failed.
func verdict(score int64, t rampv1.KayentaThreshold) rampv1.AnalysisPhase {
	switch {
	case score >= t.Pass:
		return rampv1.AnalysisPhaseSuccessful
	case score >= t.Marginal:
		return rampv1.AnalysisPhaseInconclusive
	}
	return rampv1.AnalysisPhaseFailed
}

// scoreDisplay is the stored value of a score: its integer part, as
// upstream stores it.
func scoreDisplay(score int64) string { return strconv.FormatInt(score, 10) }

// validID reports whether id can be an execution id (Kayenta's are UUIDs):
// letters, digits, '-' and '_' only, so that it is one URL path segment.
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
