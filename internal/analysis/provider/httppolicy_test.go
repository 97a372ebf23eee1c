package provider

import "testing"

// TestHostAllowed: exact names and IPs match themselves (any case, with or
// without a trailing dot); "*.suffix" matches subdomains only; an empty
// list allows every host.
func TestHostAllowed(t *testing.T) {
	list, err := ParseHostAllowlist("prom.example.com, *.svc.cluster.local, 10.0.0.1, fd00::1")
	if err != nil {
		t.Fatal(err)
	}
	p := HTTPPolicy{HostAllowlist: list}
	for host, want := range map[string]bool{
		"prom.example.com": true, "PROM.example.com.": true, "a.svc.cluster.local": true, "a.b.svc.cluster.local": true,
		"10.0.0.1": true, "fd00::1": true,
		"svc.cluster.local": false, "evil-svc.cluster.local": false, "example.com": false, "x.prom.example.com": false,
		"10.0.0.10": false, "": false,
	} {
		if got := p.HostAllowed(host); got != want {
			t.Errorf("HostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
	if !(HTTPPolicy{}).HostAllowed("anything") {
		t.Error("an empty allow-list refused a host")
	}
	for _, bad := range []string{"*", "*.", "a*b", "h:80", "http://h", "h/p", "[::1]"} {
		if _, err := ParseHostAllowlist(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
