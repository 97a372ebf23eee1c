// Package wavefront is the "wavefront" metric provider: a Wavefront (VMware
// Aria Operations for Applications) query through its chart API (GET
// https://<address>/api/v2/chart/api), authenticated by the token the
// wavefront-api-tokens Secret holds under the metric's address, as Argo
// Rollouts does through go-wavefront. It sends the one documented request
// with net/http (httpfetch).
//
// The value is upstream's: for each series, the point closest to the
// measurement's time; a float64 for one series, a []float64 for several.
package wavefront

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// RequestTimeout bounds one query (go-wavefront's client sets none; the
// controller's --max-provider-timeout would end it later).
const RequestTimeout = 30 * time.Second

// Provider runs Wavefront queries. Safe for concurrent use; create it with
// New.
type Provider struct {
	deps    provider.CredentialDeps
	clients httpfetch.Clients
	now     func() time.Time
}

var _ provider.Provider = (*Provider)(nil)

// New returns a Provider reading the tokens Secret and the HTTP policy from
// deps, sending with a clone of t (http.DefaultTransport when nil).
func New(deps provider.CredentialDeps, t *http.Transport) *Provider {
	return &Provider{deps: deps, clients: httpfetch.ForDeps(t, deps), now: time.Now}
}

// Measure runs the metric's query once at the measurement's time.
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.Wavefront
	if m == nil {
		return provider.Result{}, errors.New("wavefront: the metric has no wavefront provider")
	}
	address := strings.TrimSpace(m.Address)
	switch {
	case address == "":
		return provider.Result{}, errors.New("wavefront: address is required")
	case strings.ContainsAny(address, "/?#@ "):
		return provider.Result{}, fmt.Errorf("wavefront: address %q must be a host name (and port), without scheme or path", address)
	case strings.TrimSpace(m.Query) == "":
		return provider.Result{}, errors.New("wavefront: query is required")
	}
	token, values, err := p.token(ctx, address)
	if err != nil {
		return provider.Result{}, fmt.Errorf("wavefront: %w", err)
	}
	red := analysis.NewRedactor(values)
	ctx, cancel := context.WithTimeoutCause(ctx, RequestTimeout, fmt.Errorf("timed out after %s", RequestTimeout))
	defer cancel()
	at := p.now()
	res, err := p.query(ctx, address, token, m.Query, at)
	if err != nil {
		return provider.Result{}, errors.New(red.Redact(fmt.Sprintf("wavefront query failed: %v", err)))
	}
	res.Display = red.Redact(res.Display)
	for k, v := range res.Metadata {
		res.Metadata[k] = red.Redact(v)
	}
	return res, nil
}

// token is the API token for address, and every token of the Secret (for
// the redactor: whichever the server echoes).
func (p *Provider) token(ctx context.Context, address string) (string, []string, error) {
	ns := provider.CredentialNamespaceOf(p.deps)
	creds, err := provider.ReadCredentials(ctx, p.deps, ns, rampv1.WavefrontTokensSecretName)
	if err != nil {
		return "", nil, err
	}
	keys, err := creds.Require(address)
	if err != nil {
		return "", nil, fmt.Errorf("%w (no API token for address %q)", err, address)
	}
	return keys[0], creds.Values(), nil
}
