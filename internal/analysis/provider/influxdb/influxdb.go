// Package influxdb measures a metric with an InfluxDB query, as Argo
// Rollouts' influxdb provider does: a Flux query POSTed to InfluxDB 2.x's
// /api/v2/query with the token, org and address of a profile Secret, whose
// result is the _value of every record of every table. As a Ramp extension
// (queryLanguage: influxql), an InfluxQL query to InfluxDB 1.x's /query.
// It speaks both with net/http through httpfetch and decodes the annotated
// CSV and the JSON itself, so it needs no InfluxDB client library.
//
// It never logs, and every message it returns passes through a redactor
// built from the profile Secret's values.
package influxdb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// Timeout bounds one query: upstream's query timeout (the influxdb metric
// has no timeout field).
const Timeout = 30 * time.Second

// Provider takes measurements with InfluxDB queries. It is safe for
// concurrent use; create it with New.
type Provider struct {
	clients httpfetch.Clients
	deps    provider.CredentialDeps
}

var _ provider.Provider = (*Provider)(nil)

// New returns a Provider reading profile Secrets through deps and sending
// requests with clients.
func New(deps provider.CredentialDeps, clients httpfetch.Clients) *Provider {
	return &Provider{clients: clients, deps: deps}
}

// Measure runs the metric's query once with the profile Secret's
// credentials (read live from the controller's namespace). The value is a
// []any of the results (float64, int64, uint64, bool, string, time.Time as
// the columns' types say), displayed as upstream (fmt.Sprint: "[0.005]").
// No result at all is an error, as upstream. Every error names the cause
// and is redacted of the Secret's values; the measurement is never left
// Running.
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.Influxdb
	if m == nil {
		return provider.Result{}, errors.New("influxdb: the metric has no influxdb provider")
	}
	ns := provider.DefaultCredentialNamespace
	if p.deps != nil {
		ns = p.deps.CredentialNamespace()
	}
	creds, err := provider.ReadCredentials(ctx, p.deps, ns, m.EffectiveProfile())
	if err != nil {
		return provider.Result{}, fmt.Errorf("influxdb: %w", err)
	}
	r := analysis.NewRedactor(creds.Values())
	res, err := p.measure(ctx, m, creds)
	if err != nil {
		return provider.Result{}, errors.New(r.Redact(err.Error()))
	}
	for i, v := range res.Value.([]any) {
		if s, ok := v.(string); ok {
			res.Value.([]any)[i] = r.Redact(s)
		}
	}
	res.Display = r.Redact(res.Display)
	return res, nil
}

func (p *Provider) measure(ctx context.Context, m *rampv1.InfluxdbMetric, creds provider.Credentials) (provider.Result, error) {
	if strings.TrimSpace(m.Query) == "" {
		return provider.Result{}, errors.New("influxdb: query is not set")
	}
	var (
		build  func(*rampv1.InfluxdbMetric, provider.Credentials) (*http.Request, error)
		decode func([]byte) ([]any, error)
		lang   = m.QueryLanguage
	)
	switch lang {
	case "", rampv1.InfluxdbQueryLanguageFlux:
		lang, build, decode = rampv1.InfluxdbQueryLanguageFlux, fluxRequest, decodeCSV
	case rampv1.InfluxdbQueryLanguageInfluxQL:
		build, decode = influxQLRequest, decodeInfluxQL
	default:
		return provider.Result{}, fmt.Errorf("influxdb: queryLanguage %.40q is not flux or influxql", lang)
	}
	hr, err := build(m, creds)
	if err != nil {
		return provider.Result{}, fmt.Errorf("influxdb: %w", err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, Timeout, fmt.Errorf("timed out after %s", Timeout))
	defer cancel()
	resp, err := httpfetch.Send(ctx, p.clients.For(false), hr.WithContext(ctx), httpfetch.MaxResponseBytes)
	if err != nil {
		return provider.Result{}, fmt.Errorf("influxdb %s query failed: %w", lang, err)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return provider.Result{}, fmt.Errorf("influxdb %s query failed: %w", lang, httpfetch.StatusError(resp, errorMessage(resp.Body)))
	}
	values, err := decode(resp.Body)
	if err != nil {
		return provider.Result{}, fmt.Errorf("influxdb %s query failed: %w", lang, err)
	}
	if len(values) == 0 {
		return provider.Result{}, fmt.Errorf("influxdb: no results returned from %s query", lang)
	}
	return provider.Result{Value: values, Display: fmt.Sprint(values)}, nil
}

// endpoint is the URL of path under the Secret's address (which may have
// a path prefix, as behind a proxy).
func endpoint(address, path string) (*url.URL, error) {
	u, err := url.Parse(address)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("the profile's address is not an http(s) URL")
	}
	u = u.JoinPath(path)
	if !strings.HasPrefix(u.Path, "/") {
		u.Path, u.RawPath = "/"+u.Path, ""
	}
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}
