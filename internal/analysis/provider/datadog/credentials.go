package datadog

import (
	"context"
	"fmt"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// credentials are what a query is sent with; values are every value of the
// Secret they were read from, for the redactor.
type credentials struct {
	address, apiKey, appKey string
	values                  []string
}

// credentials reads the metric's Secret, as upstream looks for it: with
// secretRef.namespaced, secretRef.name in the run's namespace first; then
// secretRef.name (default "datadog") in the controller's namespace. (Argo
// Rollouts also reads DD_API_KEY, DD_APP_KEY and DD_ADDRESS from the
// controller's environment between the two; Ramp does not: see
// docs/conformance.md.) A Secret without api-key or app-key is passed over
// like a missing one; the error names every Secret tried and why.
func (p *Provider) credentials(ctx context.Context, req provider.Request) (credentials, error) {
	ref := req.Metric.Provider.Datadog.SecretRef
	name := ref.Name
	if name == "" {
		name = rampv1.DefaultDatadogSecretName
	}
	var tried []string
	if ref.Namespaced && req.Run != nil {
		c, err := p.read(ctx, req.Run.Namespace, name)
		if err == nil {
			return c, nil
		}
		tried = append(tried, err.Error())
	}
	ns := provider.CredentialNamespaceOf(p.deps)
	c, err := p.read(ctx, ns, name)
	if err == nil {
		return c, nil
	}
	return credentials{}, fmt.Errorf("no credentials: %s", strings.Join(append(tried, err.Error()), "; "))
}

// read reads one Secret and requires its keys; address defaults to
// DefaultAddress.
func (p *Provider) read(ctx context.Context, namespace, name string) (credentials, error) {
	creds, err := provider.ReadCredentials(ctx, p.deps, namespace, name)
	if err != nil {
		return credentials{}, err
	}
	keys, err := creds.Require(rampv1.DatadogAPIKeyKey, rampv1.DatadogAppKeyKey)
	if err != nil {
		return credentials{}, err
	}
	address := strings.TrimRight(creds.Get(rampv1.DatadogAddressKey), "/")
	if address == "" {
		address = DefaultAddress
	}
	return credentials{address: address, apiKey: keys[0], appKey: keys[1], values: creds.ValuesBut(address)}, nil
}
