// Package providertest holds test doubles for metric providers' unit
// tests: controller dependencies without a cluster. Only _test.go files
// import it.
package providertest

import (
	"context"
	"fmt"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// Deps are provider.CredentialDeps: Secrets held in a map, read by
// "namespace/name" (missing: an error naming it, like the controller's),
// the controller's namespace, and the HTTP policy.
type Deps struct {
	Namespace string                       // CredentialNamespace (default "ctl")
	Policy    provider.HTTPPolicy          // HTTPPolicy
	Secrets   map[string]map[string][]byte // by "namespace/name"
}

var _ provider.CredentialDeps = Deps{}

// HTTPPolicy is d.Policy.
func (d Deps) HTTPPolicy() provider.HTTPPolicy { return d.Policy }

// CredentialNamespace is d.Namespace, "ctl" when empty.
func (d Deps) CredentialNamespace() string {
	if d.Namespace == "" {
		return "ctl"
	}
	return d.Namespace
}

// Secret is the data of Secret namespace/name.
func (d Deps) Secret(_ context.Context, namespace, name string) (map[string][]byte, error) {
	if data, ok := d.Secrets[namespace+"/"+name]; ok {
		return data, nil
	}
	return nil, fmt.Errorf("secret %s/%s not found", namespace, name)
}

// Secrets are Secrets by "namespace/name", as a test writes them.
type Secrets map[string]map[string][]byte

// Deps are s as a provider's dependencies: namespace "ctl", the zero HTTP
// policy.
func (s Secrets) Deps() Deps { return Deps{Secrets: s} }
