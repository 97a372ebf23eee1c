//go:build e2e

package e2e

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// wavefrontServer serves Wavefront's documented chart API for the token
// given, over HTTPS as example.com (httptest's certificate names it): GET
// /api/v2/chart/api with q, s = e (epoch ms), g=s, p=1, i=true and
// "Authorization: Bearer <token>"; a wrong token gets 401 with
// Wavefront's {"status": {...}} error (echoing the token, to test that
// Ramp masks it). A query containing "passing" measures 0.99, any other
// 0.5; a request that breaks the protocol fails the test.
func wavefrontServer(t *testing.T, token string) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "); got != token {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = fmt.Fprintf(w, `{"status":{"result":"ERROR","message":"token %s is not valid","code":401}}`, got)
			return
		}
		v := r.URL.Query()
		if r.Method != http.MethodGet || r.Host != "example.com" || r.URL.Path != "/api/v2/chart/api" || v.Get("q") == "" ||
			v.Get("s") == "" || v.Get("s") != v.Get("e") || v.Get("g") != "s" || v.Get("p") != "1" || v.Get("i") != "true" {
			t.Errorf("wavefront: request breaks the protocol: %s %s%s?%s", r.Method, r.Host, r.URL.Path, r.URL.RawQuery)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		value := 0.5
		if strings.Contains(v.Get("q"), "passing") {
			value = 0.99
		}
		_, _ = fmt.Fprintf(w, `{"query":%q,"timeseries":[{"label":"istio.requestcount.count","data":[[%d,%g]]}]}`, v.Get("q"), time.Now().Unix(), value)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// connectProxy is an HTTPS proxy that tunnels CONNECT example.com:443 to
// target, and refuses (failing the test) any other destination: how a
// controller started with HTTPS_PROXY reaches "example.com" here.
func connectProxy(t *testing.T, target string) *httptest.Server {
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || r.Host != "example.com:443" {
			t.Errorf("proxy: unexpected %s %s", r.Method, r.Host)
			http.Error(w, "refused", http.StatusForbidden)
			return
		}
		up, err := net.Dial("tcp", target)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			_ = up.Close()
			return
		}
		_, _ = io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
		go func() { _, _ = io.Copy(up, conn); _ = up.Close() }()
		go func() { _, _ = io.Copy(conn, up); _ = conn.Close() }()
	}))
	t.Cleanup(p.Close)
	return p
}

// TestProviderWavefront: upstream's documented Wavefront template is
// admitted; a controller whose $POD_NAMESPACE is the test's namespace (its
// wavefront-api-tokens Secret) and whose HTTPS goes through a proxy to a
// documented-protocol Wavefront ends runs Successful for a passing value
// and Failed for a failing one; after the token is rotated to a wrong one
// (read live), a run ends in Error naming the refusal; no token is in the
// runs, the Events or that controller's debug log.
func TestProviderWavefront(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "prov-wf")
	token, wrong := randomKey("wftoken"), randomKey("wfwrong")
	srv := wavefrontServer(t, token)
	proxy := connectProxy(t, srv.Listener.Addr().String())
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	id := "wf-" + ns
	ctrl, err := startControllerEnv([]string{"POD_NAMESPACE=" + ns, "HTTPS_PROXY=" + proxy.URL, "https_proxy=" + proxy.URL, "SSL_CERT_FILE=" + ca},
		"--leader-election-namespace", ns, "--instance-id", id, "--leader-elect=false", "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.stop)
	eventually(t, 60*time.Second, "wavefront controller ready", ctrl.ready)
	credentialSecret(t, ns, "wavefront-api-tokens", map[string]string{"example.com": token})

	apply(t, ns, `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: success-rate}
spec:
  args:
  - name: service-name
  metrics:
  - name: success-rate
    interval: 5m
    successCondition: result >= 0.95
    failureLimit: 3
    provider:
      wavefront:
        address: example.wavefront.com
        query: |
          sum(rate(5m, ts("istio.requestcount.count", response_code!=500 and destination_service="{{args.service-name}}"))) /
          sum(rate(5m, ts("istio.requestcount.count", reporter=client and destination_service="{{args.service-name}}")))
`)
	run := func(name, service string) string {
		return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: %s, labels: {%s: %s}}
spec:
  metrics:
  - name: success-rate
    successCondition: result >= 0.95
    consecutiveErrorLimit: 0
    provider:
      wavefront:
        address: example.com
        query: sum(rate(5m, ts("istio.requestcount.count", response_code!=500 and destination_service="%s")))
`, name, instanceLabel, id, service)
	}
	apply(t, ns, run("passing", "passing"))
	apply(t, ns, run("failing", "failing"))
	runs := expectRuns(t, ns, 60*time.Second, map[string]runOutcome{
		"passing": {rampv1.AnalysisPhaseSuccessful, "0.99"}, "failing": {rampv1.AnalysisPhaseFailed, "0.50"},
	})
	for name, ar := range runs {
		if m := ar.Status.MetricResults[0].Measurements; len(m) == 0 || m[0].Metadata["drift"] == "" || m[0].Metadata["timestamps"] == "" {
			t.Errorf("%s: measurements %+v, want the point's timestamp and drift in metadata", name, m)
		}
	}
	sec := &corev1.Secret{}
	if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "wavefront-api-tokens"}, sec); err != nil {
		t.Fatal(err)
	}
	sec.Data = map[string][]byte{"example.com": []byte(wrong)}
	if err := env.client.Update(context.Background(), sec); err != nil {
		t.Fatal(err)
	}
	apply(t, ns, run("bad-token", "passing"))
	ar := waitRun(t, ns, "bad-token", 60*time.Second, rampv1.AnalysisPhaseError)
	if msg := measurementMessage(ar, "success-rate"); !strings.Contains(msg, "HTTP 401 Unauthorized: credentials refused: token ***** is not valid") {
		t.Errorf("bad-token: message %q, want the refusal with the echoed token masked", msg)
	}
	assertNoSecretLeak(t, ns, ctrl.logPath, token, wrong)
}
