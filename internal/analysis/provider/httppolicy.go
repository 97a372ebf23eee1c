package provider

import (
	"fmt"
	"strings"
)

// Flag names of the HTTP policy, as the controller spells them: errors name
// the flag that would allow what they refuse.
const (
	AllowLinkLocalFlag = "allow-link-local-providers"
	HostAllowlistFlag  = "provider-host-allowlist"
)

// HTTPPolicy is where the HTTP-based providers (web, prometheus) may send
// requests. The zero value refuses link-local and cloud-metadata addresses
// and allows every other host.
type HTTPPolicy struct {
	// AllowLinkLocal lets requests reach 169.254.0.0/16, fe80::/10,
	// fd00:ec2::254 and metadata.google.internal (--allow-link-local-providers).
	AllowLinkLocal bool
	// HostAllowlist, when not empty, is every host a request (or a redirect)
	// may go to: exact host names or IPs, or "*.suffix" patterns matching
	// any subdomain of suffix (--provider-host-allowlist).
	HostAllowlist []string
}

// HTTPDeps is what the HTTP providers are built with: the controller's
// dependencies, of which they need only the policy.
type HTTPDeps interface {
	HTTPPolicy() HTTPPolicy
}

// ParseHostAllowlist splits a comma-separated allow-list ("" is none) into
// lower-case entries, refusing an entry that is not a host name, an IP or
// "*.suffix" (a scheme, port, path or a '*' elsewhere).
func ParseHostAllowlist(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for _, e := range strings.Split(s, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		name := strings.TrimPrefix(e, "*.")
		switch {
		case e == "":
			return nil, fmt.Errorf("--%s: empty entry in %q", HostAllowlistFlag, s)
		case name == "" || strings.ContainsAny(name, "*/@ ?#[]") || strings.Count(name, ":") == 1:
			return nil, fmt.Errorf("--%s: %q is not a host, an IP or a *.suffix pattern (no scheme, port or path)", HostAllowlistFlag, e)
		}
		out = append(out, e)
	}
	return out, nil
}

// HostAllowed reports whether host (a URL's host name, without port) is in
// the allow-list; every host is when the list is empty.
func (p HTTPPolicy) HostAllowed(host string) bool {
	if len(p.HostAllowlist) == 0 {
		return true
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, e := range p.HostAllowlist {
		if suffix, ok := strings.CutPrefix(e, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == e {
			return true
		}
	}
	return false
}
