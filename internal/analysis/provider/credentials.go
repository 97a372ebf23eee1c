package provider

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// DefaultCredentialNamespace is where provider credential Secrets (the
// `datadog`, `newrelic`, `influxdb`, `wavefront-api-tokens` Secrets) are
// read from when $POD_NAMESPACE does not name the controller's own
// namespace: upstream's default namespace.
const DefaultCredentialNamespace = "argo-rollouts"

// CredentialDeps is what the providers that read a credential Secret are
// built with: the HTTP policy, and Secrets read live (Ramp caches none).
type CredentialDeps interface {
	HTTPDeps
	// Secret reads the data of Secret namespace/name, live. Its error
	// names the Secret, never a value.
	Secret(ctx context.Context, namespace, name string) (map[string][]byte, error)
	// CredentialNamespace is the controller's own namespace, where
	// provider credential Secrets live unless a metric names another.
	CredentialNamespace() string
}

// CredentialNamespaceOf is deps' credential namespace, or
// DefaultCredentialNamespace for nil deps.
func CredentialNamespaceOf(deps CredentialDeps) string {
	if deps == nil {
		return DefaultCredentialNamespace
	}
	return deps.CredentialNamespace()
}

// Credentials are the data of one credential Secret, named for errors.
type Credentials struct {
	Ref  string // namespace/name
	Data map[string][]byte
}

// ReadCredentials reads Secret namespace/name through deps; a nil deps (a
// provider built without a cluster, in unit tests of other packages) is an
// error naming the Secret.
func ReadCredentials(ctx context.Context, deps CredentialDeps, namespace, name string) (Credentials, error) {
	ref := namespace + "/" + name
	if deps == nil {
		return Credentials{Ref: ref}, fmt.Errorf("secret %s: no cluster to read it from", ref)
	}
	data, err := deps.Secret(ctx, namespace, name)
	if err != nil {
		return Credentials{Ref: ref}, err
	}
	return Credentials{Ref: ref, Data: data}, nil
}

// Get is the value of key, or "" when the Secret lacks it.
func (c Credentials) Get(key string) string { return strings.TrimSpace(string(c.Data[key])) }

// Require returns the values of keys, in order, or an error naming the
// Secret and every key it lacks (empty counts as missing).
func (c Credentials) Require(keys ...string) ([]string, error) {
	var missing []string
	out := make([]string, len(keys))
	for i, k := range keys {
		if out[i] = c.Get(k); out[i] == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("secret %s has no %s", c.Ref, strings.Join(missing, ", "))
	}
	return out, nil
}

// Values are every value in the Secret, sorted, for a redactor
// (analysis.NewRedactor) that scrubs them from what the provider returns.
func (c Credentials) Values() []string {
	var out []string
	for _, v := range c.Data {
		if s := strings.TrimSpace(string(v)); s != "" {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// minQueryKey is the shortest query-string value of an endpoint URL
// masked on its own: shorter ones ("1", "us") are not keys, and masked
// raw they would mangle ordinary text.
const minQueryKey = 8

// ValuesBut are Values without the endpoint URLs given, so that errors
// may name the host they could not reach (a value equal to an endpoint but
// for a trailing '/' counts as it). An endpoint carrying userinfo or a
// query string stays masked, and its password and query values (of at
// least minQueryKey bytes) are values of their own: a server may echo the
// URL written otherwise.
func (c Credentials) ValuesBut(endpoints ...string) []string {
	keep := map[string]bool{}
	var extra []string
	for _, e := range endpoints {
		u, err := url.Parse(e)
		if e == "" || err != nil {
			continue
		}
		if u.User == nil && u.RawQuery == "" {
			keep[strings.TrimRight(e, "/")] = true
			continue
		}
		if pw, ok := u.User.Password(); ok && pw != "" {
			extra = append(extra, pw)
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				if len(v) >= minQueryKey {
					extra = append(extra, v)
				}
			}
		}
	}
	var out []string
	for _, v := range c.Values() {
		if !keep[strings.TrimRight(v, "/")] {
			out = append(out, v)
		}
	}
	out = append(out, extra...)
	sort.Strings(out)
	return out
}
