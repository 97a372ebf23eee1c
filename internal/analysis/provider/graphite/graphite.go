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

// New returns a Provider sending its queries with clients (built by
// httpfetch.NewClients with the controller's HTTP policy).
func New(clients httpfetch.Clients) *Provider { return &Provider{clients: clients} }

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
