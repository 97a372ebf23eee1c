//go:build e2e

package e2e

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestMetricsSecure: a controller started with --metrics-secure serves
// /metrics over HTTPS only to a bearer token the API server authenticates
// (TokenReview) and authorizes for get on /metrics (SubjectAccessReview):
// a ServiceAccount bound to that grant gets the metrics, one without it
// 403, a scrape without a token 401, and plain HTTP is not served. The
// controller runs with another --instance-id, so it takes no objects from
// the suite's controller.
func TestMetricsSecure(t *testing.T) {
	t.Parallel()
	const ns = "metrics-secure"
	for _, args := range [][]string{
		{"create", "namespace", ns},
		{"-n", ns, "create", "serviceaccount", "scraper"},
		{"-n", ns, "create", "serviceaccount", "stranger"},
		{"create", "clusterrole", "metrics-secure-reader", "--verb=get", "--non-resource-url=/metrics"},
		{"create", "clusterrolebinding", "metrics-secure-reader", "--clusterrole=metrics-secure-reader", "--serviceaccount=" + ns + ":scraper"},
	} {
		if _, stderr, err := kubectl(t, "", args...); err != nil && !strings.Contains(stderr, "already exists") {
			t.Fatalf("kubectl %v: %v\n%s", args, err, stderr)
		}
	}
	token := func(sa string) string {
		out, stderr, err := kubectl(t, "", "-n", ns, "create", "token", sa)
		if err != nil {
			t.Fatalf("token for %s: %v\n%s", sa, err, stderr)
		}
		return strings.TrimSpace(out)
	}
	scraper, stranger := token("scraper"), token("stranger")

	p, err := startController(ns, "--metrics-secure", "--instance-id", ns, "--leader-elect=false")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	insecure := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // the certificate is self-signed
	scrape := func(bearer string) (int, string, error) {
		req, err := http.NewRequest(http.MethodGet, "https://"+p.metrics+"/metrics", nil)
		if err != nil {
			return 0, "", err
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := insecure.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	eventually(t, 60*time.Second, "the scraper's token is served the metrics over HTTPS", func() error {
		code, body, err := scrape(scraper)
		if err != nil {
			return err
		}
		if code != http.StatusOK || !strings.Contains(body, "controller_runtime_") {
			return fmt.Errorf("status %d: %.200s", code, body)
		}
		return nil
	})
	for _, tc := range []struct {
		who, bearer string
		want        int
	}{{"no token", "", http.StatusUnauthorized}, {"a ServiceAccount without the grant", stranger, http.StatusForbidden}} {
		if code, body, err := scrape(tc.bearer); err != nil || code != tc.want || strings.Contains(body, "controller_runtime_") {
			t.Errorf("%s: %d %v %.200s, want %d", tc.who, code, err, body, tc.want)
		}
	}
	if code, body, _ := httpGet("http://" + p.metrics + "/metrics"); code == http.StatusOK || strings.Contains(body, "controller_runtime_") {
		t.Errorf("plain HTTP: %d %.200s, want refused", code, body)
	}
}
