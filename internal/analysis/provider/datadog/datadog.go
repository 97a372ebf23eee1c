// Package datadog is the "datadog" metric provider: a Datadog metrics query
// through the v1 API (GET /api/v1/query, the last point of the first
// series) or the v2 API (POST /api/v2/query/scalar, queries combined by a
// formula and reduced by an aggregator), as Argo Rollouts does. It speaks
// the two documented endpoints with net/http (httpfetch) rather than
// Datadog's generated Go client, which is large and would add hundreds of
// packages for two requests.
//
// Credentials (address, api-key, app-key) come from a Secret read live at
// each measurement (credentials.go). The keys travel only in the
// DD-API-KEY and DD-APPLICATION-KEY headers; everything the provider
// returns passes through a redactor of the Secret's values.
package datadog

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// RequestTimeout bounds one query: Argo Rollouts' HTTP client timeout.
const RequestTimeout = 10 * time.Second

// DefaultAddress is the Datadog API used when the Secret names none.
const DefaultAddress = "https://api.datadoghq.com"

// Provider runs Datadog queries. Safe for concurrent use; create it with New.
type Provider struct {
	deps    provider.CredentialDeps
	clients httpfetch.Clients
	now     func() time.Time
}

var _ provider.Provider = (*Provider)(nil)

// Option configures a Provider.
type Option func(*Provider, *http.Transport) *http.Transport

// WithClock sets where the query window's end (now) is read; time.Now by
// default.
func WithClock(now func() time.Time) Option {
	return func(p *Provider, t *http.Transport) *http.Transport { p.now = now; return t }
}

// WithTransport sends queries with a clone of t instead of
// http.DefaultTransport.
func WithTransport(t *http.Transport) Option {
	return func(_ *Provider, _ *http.Transport) *http.Transport { return t }
}

// New returns a Provider reading its Secrets and HTTP policy from deps.
func New(deps provider.CredentialDeps, opts ...Option) *Provider {
	p := &Provider{deps: deps, now: time.Now}
	var t *http.Transport
	for _, o := range opts {
		t = o(p, t)
	}
	p.clients = httpfetch.ForDeps(t, deps)
	return p
}

// Measure runs the metric's query once. Its value is a float64, a
// []float64 for a v2 query grouped `by {tag}`, or nil for an empty result
// (as upstream: conditions handle it with default(result, x)).
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.Datadog
	if m == nil {
		return provider.Result{}, errors.New("datadog: the metric has no datadog provider")
	}
	q, err := newQuery(m, p.now())
	if err != nil {
		return provider.Result{}, fmt.Errorf("datadog: %w", err)
	}
	creds, err := p.credentials(ctx, req)
	if err != nil {
		return provider.Result{}, fmt.Errorf("datadog: %w", err)
	}
	red := analysis.NewRedactor(creds.values)
	res, err := p.send(ctx, q, creds)
	if err != nil {
		return provider.Result{}, errors.New(red.Redact(fmt.Sprintf("datadog query failed: %v", err)))
	}
	res.Display = red.Redact(res.Display)
	return res, nil
}

// send runs q against the Datadog API and decodes the answer.
func (p *Provider) send(ctx context.Context, q query, c credentials) (provider.Result, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, RequestTimeout, fmt.Errorf("timed out after %s", RequestTimeout))
	defer cancel()
	r, err := q.request(ctx, c.address)
	if err != nil {
		return provider.Result{}, err
	}
	r.Header.Set("DD-API-KEY", c.apiKey)
	r.Header.Set("DD-APPLICATION-KEY", c.appKey)
	body, err := httpfetch.SendOK(ctx, p.clients.For(false), r, errorMessage)
	if err != nil {
		return provider.Result{}, err
	}
	if q.v2 {
		return decodeV2(body)
	}
	return decodeV1(body)
}
