// Package web measures a metric with one HTTP request to an endpoint that
// answers JSON, and a JSONPath (k8s.io/client-go/util/jsonpath, the syntax
// of kubectl -o jsonpath) that picks the measured value out of the answer.
//
// It imports only the API types, the provider interface and client-go's
// jsonpath. It never logs: the metric's URL, headers and body may carry
// secrets, and its errors name causes and status codes, never header values,
// the request body or the URL's query.
package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// DefaultTimeout bounds a request whose metric sets no timeoutSeconds.
const DefaultTimeout = time.Duration(rampv1.DefaultWebMetricTimeoutSeconds) * time.Second

// Provider takes measurements with HTTP requests. It is safe for concurrent
// use; create it with New.
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

// WithTransport makes the Provider send its requests with a clone of t (e.g.
// one trusting a test CA) instead of a clone of http.DefaultTransport.
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
	return &Provider{
		clients: httpfetch.NewClients(c.transport, c.policy),
	}
}

// Measure sends the metric's request once and returns what its jsonPath
// (rampv1.DefaultWebMetricJSONPath, the whole response, when unset) finds in
// the JSON response, decoded as encoding/json decodes into an any: a
// float64, bool, string, nil,
// map[string]any or []any, so that conditions such as `result == true`,
// `result.ok` or `asInt(result) > 3` work. A path that finds several values
// gives them as a []any, in order, and one that finds none (a wildcard,
// slice or filter that matched nothing) an empty []any.
//
// The request is bounded by timeoutSeconds (DefaultTimeout when unset or
// not positive, at most a day). A response outside 2xx, one that is not JSON, or a path
// through a missing key is an error. The measurement is never left Running, so
// InFlight and Terminate are ignored.
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.Web
	if m == nil {
		return provider.Result{}, errors.New("web: the metric has no web provider")
	}
	path, err := parsePath(m.JSONPath)
	if err != nil {
		return provider.Result{}, fmt.Errorf("web: %w", err)
	}
	timeout := DefaultTimeout
	if m.TimeoutSeconds > 0 {
		timeout = rampv1.SaturatingSeconds(min(m.TimeoutSeconds, 86400))
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("timed out after %s", timeout))
	defer cancel()
	r, err := newRequest(ctx, m)
	if err != nil {
		return provider.Result{}, fmt.Errorf("web: %w", err)
	}
	client := p.clients.For(m.Insecure)
	status, body, err := httpfetch.Do(ctx, client, r, httpfetch.MaxResponseBytes)
	if err != nil {
		return provider.Result{}, fmt.Errorf("web: %w", err)
	}
	if status < 200 || status > 299 {
		return provider.Result{}, fmt.Errorf("web: received non 2xx response code: %d", status)
	}
	value, err := find(path, body)
	if err != nil {
		return provider.Result{}, fmt.Errorf("web: %w", err)
	}
	return provider.Result{Value: value, Display: display(value)}, nil
}

// display renders a value for the measurement's status: a string as it is,
// anything else as compact JSON ("true", "0.95", `{"ok":true}`, "null").
func display(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
