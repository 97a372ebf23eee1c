// Package graphite measures a metric with a Graphite render API query
// (GET <address>/render?<query>&format=json), as Argo Rollouts' graphite
// provider does: the result is the datapoints of the first series returned,
// nulls left out, as a []float64. It speaks the API with net/http through
// httpfetch, so it needs no Graphite client library.
//
// It imports only the API types, the provider interface and httpfetch. It
// never logs: the metric's query and address may carry secret arguments.
package graphite

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// Timeout bounds one query: upstream's HTTP client timeout (the graphite
// metric has no timeout field).
const Timeout = 10 * time.Second

// Provider takes measurements with Graphite queries. It is safe for
// concurrent use; create it with New.
type Provider struct {
	clients httpfetch.Clients
}

var _ provider.Provider = (*Provider)(nil)

type config struct {
	transport *http.Transport
	policy    provider.HTTPPolicy
}

// Option configures a Provider.
type Option func(*config)

// WithTransport makes the Provider send its queries with a clone of t.
func WithTransport(t *http.Transport) Option { return func(c *config) { c.transport = t } }

// WithPolicy sets where requests may go (link-local addresses, allowed
// hosts); the zero policy refuses link-local addresses only.
func WithPolicy(p provider.HTTPPolicy) Option { return func(c *config) { c.policy = p } }

// New returns a Provider.
func New(opts ...Option) *Provider {
	var c config
	for _, opt := range opts {
		opt(&c)
	}
	return &Provider{clients: httpfetch.NewClients(c.transport, c.policy)}
}

// Measure runs the metric's query once. The value is a []float64 of the
// first series' non-null datapoints, in order (empty when every one is
// null, as upstream); Display formats each with six decimals, as upstream
// ("[12.000000,13.500000]"). No series, or a first series without
// datapoints, is an error ("no values found"), as upstream. The query is
// bounded by Timeout and the caller's context; the measurement is never
// left Running.
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.Graphite
	if m == nil {
		return provider.Result{}, errors.New("graphite: the metric has no graphite provider")
	}
	target, err := renderURL(m.Address, m.Query)
	if err != nil {
		return provider.Result{}, fmt.Errorf("graphite: %w", err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, Timeout, fmt.Errorf("timed out after %s", Timeout))
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return provider.Result{}, fmt.Errorf("graphite query failed: %s: invalid request", httpfetch.Where(http.MethodGet, target))
	}
	r.Header.Set("Accept", "application/json")
	status, body, err := httpfetch.Do(ctx, p.clients.For(false), r, httpfetch.MaxResponseBytes)
	if err != nil {
		return provider.Result{}, fmt.Errorf("graphite query failed: %w", err)
	}
	res, err := parse(status, body)
	if err != nil {
		return provider.Result{}, fmt.Errorf("graphite query failed: %w", err)
	}
	return res, nil
}
