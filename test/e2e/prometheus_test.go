//go:build e2e

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// promEnv is a real Prometheus (the binary named by RAMP_PROMETHEUS) that
// scrapes, every second, an exporter in the test binary whose series the
// tests set. One is started for the whole test binary, on first use.
type promEnv struct {
	url      string // http://127.0.0.1:port of Prometheus
	dir      string // config, log and TSDB
	cmd      *exec.Cmd
	exited   chan struct{} // closed when the process has exited
	exporter *http.Server

	mu     sync.Mutex
	series map[string]float64 // `name{labels}` -> value
}

var prom struct {
	once sync.Once
	env  *promEnv
	err  error
}

// promClient is used for every request to Prometheus and the exporter.
var promClient = &http.Client{Timeout: 5 * time.Second}

// testPrometheus returns the suite's Prometheus, starting it on first use; it
// fails the test if RAMP_PROMETHEUS is unset or Prometheus did not start.
func testPrometheus(tb testing.TB) *promEnv {
	tb.Helper()
	prom.once.Do(func() { prom.env, prom.err = startPrometheus() })
	if prom.err != nil {
		tb.Fatalf("e2e Prometheus: %v", prom.err)
	}
	return prom.env
}

// URL is Prometheus's address, e.g. for a provider's spec.prometheus.address.
func (p *promEnv) URL() string { return p.url }

// Set makes the exporter serve series (a metric name with optional labels,
// e.g. `kube_deployment_labels{namespace="ns1",deployment="web"}`) with value.
// Prometheus has it after its next scrape (scrape interval 1s).
func (p *promEnv) Set(series string, value float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.series[series] = value
}

// Delete stops serving series; Prometheus marks it stale on its next scrape,
// after which instant queries return nothing for it.
func (p *promEnv) Delete(series string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.series, series)
}

// WaitQuery polls the instant query until its first sample's value is want
// (as Prometheus formats it: "1", "0.5"), or for want "" until the result is
// empty. It fails the test after 30 s, showing the last answer.
func (p *promEnv) WaitQuery(tb testing.TB, query, want string) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := p.query(query)
		if err == nil && got == want {
			return
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("value %q", got)
			}
			tb.Fatalf("Prometheus query %s: want %q within 30s, last answer: %v", query, want, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// query runs an instant query and returns its first sample's value, or ""
// for an empty result.
func (p *promEnv) query(q string) (string, error) {
	resp, err := promClient.Get(p.url + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }() // read to the end or failed already: a close error changes nothing
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
	}
	if r.Status != "success" {
		return "", fmt.Errorf("%s: %s", r.Status, r.Error)
	}
	var sample []any // [timestamp, "value"]
	switch r.Data.ResultType {
	case "vector":
		var v []struct {
			Value []any `json:"value"`
		}
		if err := json.Unmarshal(r.Data.Result, &v); err != nil {
			return "", err
		}
		if len(v) == 0 {
			return "", nil
		}
		sample = v[0].Value
	case "scalar":
		if err := json.Unmarshal(r.Data.Result, &sample); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("result type %q, want vector or scalar", r.Data.ResultType)
	}
	if len(sample) != 2 {
		return "", fmt.Errorf("malformed sample %v", sample)
	}
	s, ok := sample[1].(string)
	if !ok {
		return "", fmt.Errorf("malformed sample value %v", sample[1])
	}
	return s, nil
}

// ServeHTTP serves the series in the Prometheus text format (untyped), grouped
// by metric name.
func (p *promEnv) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	lines := make([]string, 0, len(p.series))
	for s, v := range p.series {
		lines = append(lines, s+" "+strconv.FormatFloat(v, 'g', -1, 64)+"\n")
	}
	p.mu.Unlock()
	slices.SortFunc(lines, func(a, b string) int {
		if c := strings.Compare(metricName(a), metricName(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = io.WriteString(w, strings.Join(lines, ""))
}

func metricName(line string) string {
	if i := strings.IndexAny(line, "{ "); i >= 0 {
		return line[:i]
	}
	return line
}

// startPrometheus starts the exporter, then Prometheus scraping it, and waits
// until Prometheus is ready.
func startPrometheus() (*promEnv, error) {
	bin := os.Getenv("RAMP_PROMETHEUS")
	if bin == "" {
		return nil, errors.New("RAMP_PROMETHEUS is unset: run the suite with `make test` (hack/test.sh installs Prometheus) or set it to a prometheus binary")
	}
	dir, err := os.MkdirTemp("", "ramp-e2e-prometheus-")
	if err != nil {
		return nil, err
	}
	p := &promEnv{dir: dir, series: map[string]float64{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.exporter = &http.Server{Handler: p, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = p.exporter.Serve(l) }()

	config := filepath.Join(dir, "prometheus.yml")
	err = os.WriteFile(config, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
- job_name: ramp-e2e
  honor_labels: true
  static_configs:
  - targets: [%q]
`, l.Addr().String())), 0o644)
	if err != nil {
		return nil, err
	}
	// The port comes from freePort, so another process may take it before
	// Prometheus binds it: try again with a new port in that case.
	for attempt := 1; ; attempt++ {
		err = p.start(bin, config)
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	if err != nil {
		_ = p.exporter.Close()
		return nil, err
	}
	return p, nil
}

// start runs Prometheus on a free port and waits until it is ready and has
// scraped the exporter.
func (p *promEnv) start(bin, config string) error {
	addr, err := freePort()
	if err != nil {
		return err
	}
	logPath := filepath.Join(p.dir, "prometheus.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer func() { _ = logf.Close() }() // the child has its own copy: ours is only closed
	began := time.Now()
	p.cmd = exec.Command(bin,
		"--config.file="+config,
		"--web.listen-address="+addr,
		"--storage.tsdb.path="+filepath.Join(p.dir, "data"),
		"--storage.tsdb.retention.time=1h",
	)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	// If the test binary dies without running stopPrometheus (a -timeout
	// panic), the kernel stops Prometheus too.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.cmd.Path, err)
	}
	p.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) { _ = cmd.Wait(); close(exited) }(p.cmd, p.exited)
	p.url = "http://" + addr

	deadline := time.Now().Add(60 * time.Second)
	var ready time.Duration // when /-/ready first answered 200
	for {
		select {
		case <-p.exited:
			return fmt.Errorf("prometheus exited before it was ready (%s); log %s ends:\n%s", p.cmd.ProcessState, logPath, logTail(logPath))
		default:
		}
		if ready == 0 && p.ready() {
			ready = time.Since(began)
		}
		// Prometheus hands its first targets to the scrape manager only some
		// seconds after start: wait for the exporter's first scrape here, so
		// that a test sees a new value within one scrape interval.
		if ready != 0 {
			if up, _ := p.query(`up{job="ramp-e2e"}`); up == "1" {
				fmt.Fprintf(os.Stderr, "e2e: prometheus pid %d ready in %s, scraping the exporter after %s, at %s, log %s\n",
					p.cmd.Process.Pid, ready.Round(time.Millisecond), time.Since(began).Round(time.Millisecond), p.url, logPath)
				return nil
			}
		}
		if time.Now().After(deadline) {
			p.stop()
			return fmt.Errorf("prometheus at %s not ready (or not scraping the exporter) after 60s; log %s ends:\n%s", p.url, logPath, logTail(logPath))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ready reports whether Prometheus answers 200 on /-/ready.
func (p *promEnv) ready() bool {
	resp, err := promClient.Get(p.url + "/-/ready")
	if err != nil {
		return false
	}
	_ = resp.Body.Close() // only the status is read
	return resp.StatusCode == http.StatusOK
}

// stopPrometheus stops the suite's Prometheus and exporter, if started.
// runMain calls it when the tests are done.
func stopPrometheus() {
	if p := prom.env; p != nil {
		p.stop()
		_ = p.exporter.Close()
		_ = os.RemoveAll(filepath.Join(p.dir, "data")) // keep the config and log
	}
}

// stop sends SIGTERM, then SIGKILL if Prometheus has not exited after 10 s.
func (p *promEnv) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// logTail returns the last 20 lines of the file.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// TestPrometheusExporter proves the pipeline the analysis tests rely on: a
// series set in the exporter is queryable in the real Prometheus, a new value
// replaces it, and a deleted series goes stale (the query turns empty).
func TestPrometheusExporter(t *testing.T) {
	t.Parallel()
	p := testPrometheus(t)
	ns := fmt.Sprintf("prom-%d", time.Now().UnixNano())
	series := fmt.Sprintf(`kube_deployment_labels{namespace=%q,deployment="metric-dummy-server"}`, ns)
	query := fmt.Sprintf(`kube_deployment_labels{namespace=%q}`, ns)

	for _, step := range []struct {
		what string
		set  func()
		want string
	}{
		{"set 1", func() { p.Set(series, 1) }, "1"},
		{"set 0", func() { p.Set(series, 0) }, "0"},
		{"deleted", func() { p.Delete(series) }, ""},
	} {
		began := time.Now()
		step.set()
		p.WaitQuery(t, query, step.want)
		t.Logf("%s: Prometheus answered %q after %s", step.what, step.want, time.Since(began).Round(time.Millisecond))
	}
}
