// Package prometheus measures a metric with a PromQL query against the HTTP
// API of a Prometheus-compatible server (/api/v1/query, or
// /api/v1/query_range for a rangeQuery). It speaks the API with net/http and
// decodes the JSON itself, so it needs no Prometheus client library.
//
// It imports only the API types and the provider interface. It never logs:
// the metric's query, address and headers may carry secrets, and its errors
// name causes, never header values.
package prometheus

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// DefaultTimeout bounds a query whose metric sets no timeout (or 0).
const DefaultTimeout = 30 * time.Second

// Provider takes measurements with PromQL queries. It is safe for
// concurrent use; create it with New.
type Provider struct {
	clients httpfetch.Clients
	now     func() time.Time
	address string
}

var _ provider.Provider = (*Provider)(nil)

type config struct {
	transport *http.Transport
	policy    provider.HTTPPolicy
	now       func() time.Time
	address   string
}

// Option configures a Provider.
type Option func(*config)

// WithTransport makes the Provider send its queries with a clone of t (e.g.
// one trusting a test CA) instead of a clone of http.DefaultTransport.
func WithTransport(t *http.Transport) Option { return func(c *config) { c.transport = t } }

// WithPolicy sets where requests may go (link-local addresses, allowed
// hosts); the zero policy refuses link-local addresses only.
func WithPolicy(p provider.HTTPPolicy) Option { return func(c *config) { c.policy = p } }

// WithClock sets where the Provider reads the time of an instant query and
// the now() of rangeQuery bounds; time.Now by default.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithDefaultAddress sets the address used by metrics that set none (Argo
// Rollouts reads it from ARGO_ROLLOUTS_PROMETHEUS_ADDRESS; the caller
// decides where Ramp reads it from).
func WithDefaultAddress(address string) Option { return func(c *config) { c.address = address } }

// New returns a Provider.
func New(opts ...Option) *Provider {
	c := config{now: time.Now}
	for _, opt := range opts {
		opt(&c)
	}
	return &Provider{
		clients: httpfetch.NewClients(c.transport, c.policy),
		now:     c.now,
		address: c.address,
	}
}

// Measure runs the metric's query once and returns its result: a float64
// for a scalar, a []float64 for a vector (one value per series, in the
// order Prometheus returned them) or a matrix (every sample of every series,
// series after series), a string for a string. The query is stored in the
// measurement's metadata under rampv1.ResolvedPrometheusQueryMetadataKey;
// warnings Prometheus returns go to rampv1.PrometheusWarningsMetadataKey
// (joined by "; ") and the message. Native histogram samples are an error.
//
// The query is bounded by the metric's timeout in seconds (DefaultTimeout
// when unset or 0; Argo Rollouts treats 0 as an immediate timeout). The
// measurement is never left Running, so InFlight and Terminate are ignored.
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.Prometheus
	if m == nil {
		return provider.Result{}, errors.New("prometheus: the metric has no prometheus provider")
	}
	timeout, err := timeoutOf(m)
	if err != nil {
		return provider.Result{}, fmt.Errorf("prometheus: %w", err)
	}
	q, err := p.build(m)
	if err != nil {
		return provider.Result{}, fmt.Errorf("prometheus: %w", err)
	}
	client := p.clients.For(m.Insecure)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("timed out after %s", timeout))
	defer cancel()
	status, body, err := q.send(ctx, client, m.Headers)
	if err != nil {
		return provider.Result{}, fmt.Errorf("prometheus query failed: %w", err)
	}
	res, err := parse(status, body)
	if err != nil {
		return provider.Result{}, fmt.Errorf("prometheus query failed: %w", err)
	}
	if res.Metadata == nil {
		res.Metadata = map[string]string{}
	}
	res.Metadata[rampv1.ResolvedPrometheusQueryMetadataKey] = m.Query
	return res, nil
}

// timeoutOf returns the query timeout of m.
func timeoutOf(m *rampv1.PrometheusMetric) (time.Duration, error) {
	switch {
	case m.Timeout == nil || *m.Timeout == 0:
		return DefaultTimeout, nil
	case *m.Timeout < 0:
		return 0, fmt.Errorf("timeout must not be negative (got %d)", *m.Timeout)
	case *m.Timeout > int64(24*time.Hour/time.Second):
		return 0, fmt.Errorf("timeout must be at most a day (got %ds)", *m.Timeout)
	}
	return rampv1.SaturatingSeconds(*m.Timeout), nil
}

// authenticationSet reports whether a metric asks for SigV4 or OAuth2,
// which this provider does not implement.
func authenticationSet(a rampv1.MetricAuthentication) bool {
	o := a.OAuth2
	return a.Sigv4 != (rampv1.Sigv4Config{}) ||
		o.TokenURL != "" || o.ClientID != "" || o.ClientSecret != "" || len(o.Scopes) > 0
}
