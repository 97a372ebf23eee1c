// Package newrelic is the "newRelic" metric provider: an NRQL query run
// through NerdGraph, New Relic's GraphQL API (POST with the API-Key
// header), in the account and region of a profile Secret, as Argo Rollouts
// does through newrelic-client-go. It sends the one documented GraphQL
// request with net/http (httpfetch) instead: the client library brings
// every New Relic API with it for this single query.
//
// The result conditions see is upstream's: the one result row as a map, or
// the list of rows when there are several; no row is an Error.
package newrelic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// MaxTimeout is the longest NRQL timeout NerdGraph runs a synchronous query
// for (its documented limit).
const MaxTimeout = 120 * time.Second

// nerdGraphURLs are NerdGraph's endpoints by region (upstream's default
// region is us).
var nerdGraphURLs = map[string]string{
	"us":      "https://api.newrelic.com/graphql",
	"eu":      "https://api.eu.newrelic.com/graphql",
	"staging": "https://staging-api.newrelic.com/graphql",
}

// Provider runs NRQL queries. Safe for concurrent use; create it with New.
type Provider struct {
	deps    provider.CredentialDeps
	clients httpfetch.Clients
}

var _ provider.Provider = (*Provider)(nil)

// New returns a Provider reading profiles and the HTTP policy from deps,
// sending with a clone of t (http.DefaultTransport when nil).
func New(deps provider.CredentialDeps, t *http.Transport) *Provider {
	return &Provider{deps: deps, clients: httpfetch.ForDeps(t, deps)}
}

// profile is what one query is sent with.
type profile struct {
	url, apiKey string
	account     int64
	values      []string
}

// Measure runs the metric's NRQL query once, bounded by its timeout
// (default 5 s, at most MaxTimeout).
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.NewRelic
	if m == nil {
		return provider.Result{}, errors.New("newRelic: the metric has no newRelic provider")
	}
	timeout := m.EffectiveTimeout()
	switch {
	case strings.TrimSpace(m.Query) == "":
		return provider.Result{}, errors.New("newRelic: query is required")
	case timeout <= 0 || timeout > MaxTimeout:
		return provider.Result{}, fmt.Errorf("newRelic: timeout must be between 1 and %d seconds (got %d)", int(MaxTimeout.Seconds()), *m.Timeout)
	}
	prof, err := p.profile(ctx, m)
	if err != nil {
		return provider.Result{}, fmt.Errorf("newRelic: %w", err)
	}
	red := analysis.NewRedactor(prof.values)
	// NerdGraph ends the query at timeout; the request gets a second more
	// to carry its answer back.
	ctx, cancel := context.WithTimeoutCause(ctx, timeout+time.Second, fmt.Errorf("timed out after %s", timeout+time.Second))
	defer cancel()
	res, err := p.query(ctx, prof, m.Query, timeout)
	if err != nil {
		return provider.Result{}, errors.New(red.Redact(fmt.Sprintf("newRelic query failed: %v", err)))
	}
	res.Display = red.Redact(res.Display)
	return res, nil
}

// profile reads the metric's profile Secret from the controller's
// namespace.
func (p *Provider) profile(ctx context.Context, m *rampv1.NewRelicMetric) (profile, error) {
	ns := provider.CredentialNamespaceOf(p.deps)
	creds, err := provider.ReadCredentials(ctx, p.deps, ns, m.EffectiveProfile())
	if err != nil {
		return profile{}, err
	}
	keys, err := creds.Require(rampv1.NewRelicAPIKeyKey, rampv1.NewRelicAccountIDKey)
	if err != nil {
		return profile{}, err
	}
	account, err := strconv.ParseInt(keys[1], 10, 64)
	if err != nil {
		return profile{}, fmt.Errorf("secret %s: %s is not an integer", creds.Ref, rampv1.NewRelicAccountIDKey)
	}
	url := creds.Get(rampv1.NewRelicNerdGraphURLKey)
	if url == "" {
		region := strings.ToLower(creds.Get(rampv1.NewRelicRegionKey))
		if region == "" {
			region = "us"
		}
		if url = nerdGraphURLs[region]; url == "" {
			return profile{}, fmt.Errorf("secret %s: %s must be us, eu or staging", creds.Ref, rampv1.NewRelicRegionKey)
		}
	}
	// Every value but the endpoint's URL (errors name its host) and the
	// region (a name such as "us" masked raw would mangle any text).
	var values []string
	for _, v := range creds.ValuesBut(url) {
		if v != creds.Get(rampv1.NewRelicRegionKey) {
			values = append(values, v)
		}
	}
	return profile{url: url, apiKey: keys[0], account: account, values: values}, nil
}
