// Package skywalking measures a metric with a GraphQL query to an Apache
// SkyWalking OAP server, as Argo Rollouts' skywalking provider does: the
// query is POSTed to <address>/graphql with a `duration` variable covering
// the metric's interval up to now, at minute steps, and the result is the
// answer's `data` object, which conditions navigate
// (result.service_apdex.values.values). It speaks GraphQL over net/http
// through httpfetch, so it needs no GraphQL client library.
//
// It never logs: the metric's query and address may carry secret arguments.
package skywalking

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// Timeout bounds one query: upstream's query timeout (the skywalking
// metric has no timeout field).
const Timeout = 30 * time.Second

// Provider takes measurements with SkyWalking GraphQL queries. It is safe
// for concurrent use; create it with New.
type Provider struct {
	clients httpfetch.Clients
	now     func() time.Time
}

var _ provider.Provider = (*Provider)(nil)

// New returns a Provider sending with clients and reading the time of a
// query's duration from now (time.Now when nil).
func New(clients httpfetch.Clients, now func() time.Time) *Provider {
	if now == nil {
		now = time.Now
	}
	return &Provider{clients: clients, now: now}
}

// Measure runs the metric's query once. The value is the answer's data
// object (maps, lists, float64 numbers, strings), stored as its JSON, as
// upstream. GraphQL errors in the answer, a non-2xx status without a
// GraphQL answer, and a null data are errors, as upstream. The query is
// bounded by Timeout and the caller's context; the measurement is never
// left Running.
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.SkyWalking
	if m == nil {
		return provider.Result{}, errors.New("skywalking: the metric has no skywalking provider")
	}
	hr, err := p.build(m)
	if err != nil {
		return provider.Result{}, fmt.Errorf("skywalking: %w", err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, Timeout, fmt.Errorf("timed out after %s", Timeout))
	defer cancel()
	status, body, err := httpfetch.Do(ctx, p.clients.For(false), hr.WithContext(ctx), httpfetch.MaxResponseBytes)
	if err != nil {
		return provider.Result{}, fmt.Errorf("skywalking query failed: %w", err)
	}
	res, err := parse(status, body)
	if err != nil {
		return provider.Result{}, fmt.Errorf("skywalking query failed: %w", err)
	}
	return res, nil
}

// build is the GraphQL request of metric m at now.
func (p *Provider) build(m *rampv1.SkyWalkingMetric) (*http.Request, error) {
	endpoint, err := endpointOf(m.Address)
	if err != nil {
		return nil, err
	}
	if m.Query == "" {
		return nil, errors.New("query is not set")
	}
	if m.Interval == "" {
		return nil, errors.New("interval is not set (the query's window, e.g. 3m)")
	}
	window, err := m.Interval.Duration()
	if err != nil || window <= 0 {
		return nil, fmt.Errorf("interval %.40q is not a positive duration", m.Interval)
	}
	return newRequest(endpoint, m.Query, durationOf(p.now(), window))
}
