//go:build e2e

package e2e

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// graphiteEnv is a real Graphite: Debian's carbon-cache (whisper storage at
// one-second resolution, plaintext protocol on a loopback port) and
// graphite-web (Django's server, reading carbon's files and its cache), as
// plain processes with a temporary configuration. hack/test.sh installs the
// packages (graphite-carbon, graphite-web) when they are missing.
type graphiteEnv struct {
	url   string // http://127.0.0.1:port of graphite-web
	line  string // carbon's plaintext receiver
	dir   string
	procs []*serverProcess
}

// startGraphite starts carbon-cache and graphite-web on free ports, waits
// until both answer, and stops them when the test ends.
func startGraphite(t *testing.T) *graphiteEnv {
	t.Helper()
	carbon, err1 := exec.LookPath("carbon-cache")
	manage, err2 := exec.LookPath("graphite-manage")
	if err := errors.Join(err1, err2); err != nil {
		t.Fatalf("Graphite is not installed (run the suite with `make test`, which installs it, or apt-get install graphite-carbon graphite-web): %v", err)
	}
	g := &graphiteEnv{dir: t.TempDir()}
	ports := freePorts(t, 4) // line, pickle, cache query, web
	g.line, g.url = "127.0.0.1:"+ports[0], "http://127.0.0.1:"+ports[3]
	for _, dir := range []string{"conf", "whisper", "log"} {
		if err := os.MkdirAll(filepath.Join(g.dir, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"conf/carbon.conf": fmt.Sprintf(`[cache]
STORAGE_DIR = %[1]s/
LOCAL_DATA_DIR = %[1]s/whisper/
CONF_DIR = %[1]s/conf/
LOG_DIR = %[1]s/log/
PID_DIR = %[1]s/
ENABLE_LOGROTATION = False
MAX_CACHE_SIZE = inf
MAX_UPDATES_PER_SECOND = inf
MAX_CREATES_PER_MINUTE = inf
LINE_RECEIVER_INTERFACE = 127.0.0.1
LINE_RECEIVER_PORT = %[2]s
ENABLE_UDP_LISTENER = False
PICKLE_RECEIVER_INTERFACE = 127.0.0.1
PICKLE_RECEIVER_PORT = %[3]s
CACHE_QUERY_INTERFACE = 127.0.0.1
CACHE_QUERY_PORT = %[4]s
`, g.dir, ports[0], ports[1], ports[2]),
		"conf/storage-schemas.conf": "[all]\npattern = .*\nretentions = 1s:1h\n",
		// graphite-web reads the module GRAPHITE_SETTINGS_MODULE names in
		// place of /etc/graphite/local_settings.py.
		"ramp_graphite_settings.py": fmt.Sprintf(`SECRET_KEY = 'ramp-e2e'
ALLOWED_HOSTS = ['127.0.0.1']
STORAGE_DIR = '%[1]s'
WHISPER_DIR = '%[1]s/whisper'
LOG_DIR = '%[1]s/log'
INDEX_FILE = '%[1]s/index'
CONF_DIR = '%[1]s/conf'
CARBONLINK_HOSTS = ['127.0.0.1:%[2]s']
DATABASES = {'default': {'NAME': '%[1]s/graphite.db', 'ENGINE': 'django.db.backends.sqlite3'}}
`, g.dir, ports[2]),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(g.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	log := filepath.Join(g.dir, "log")
	g.procs = append(g.procs, startServer(t, filepath.Join(log, "carbon.out"), carbon, nil,
		"--config="+filepath.Join(g.dir, "conf/carbon.conf"), "--pidfile="+filepath.Join(g.dir, "carbon.pid"), "--nodaemon", "start"))
	g.procs = append(g.procs, startServer(t, filepath.Join(log, "web.out"), manage,
		[]string{"PYTHONPATH=" + g.dir, "GRAPHITE_SETTINGS_MODULE=ramp_graphite_settings"},
		"runserver", "--noreload", "127.0.0.1:"+ports[3]))
	eventually(t, 60*time.Second, "graphite ready", func() error {
		for _, p := range g.procs {
			p.failIfExited(t)
		}
		c, err := net.DialTimeout("tcp", g.line, time.Second)
		if err != nil {
			return err
		}
		_ = c.Close()
		_, err = g.render("target=ramp.none")
		return err
	})
	t.Logf("graphite ready in %s: web %s, carbon plaintext %s, dir %s", time.Since(began).Round(time.Millisecond), g.url, g.line, g.dir)
	return g
}

// Write sends datapoints to carbon with its plaintext protocol: one
// "<path> <value> <unix time>" line each.
func (g *graphiteEnv) Write(t *testing.T, lines ...string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", g.line, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	if _, err := c.Write([]byte(strings.Join(lines, "\n") + "\n")); err != nil {
		t.Fatal(err)
	}
}

// render GETs /render with the query parameters and format=json, and
// returns the body of a 200 answer.
func (g *graphiteEnv) render(query string) (string, error) {
	resp, err := promClient.Get(g.url + "/render?" + query + "&format=json")
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, b)
	}
	return string(b), err
}

// WaitValue waits until target's render answer holds want (as graphite-web
// writes it, e.g. "95.0").
func (g *graphiteEnv) WaitValue(t *testing.T, target, want string) {
	t.Helper()
	eventually(t, 30*time.Second, "graphite has "+want+" for "+target, func() error {
		body, err := g.render("target=" + url.QueryEscape(target) + "&from=-5min")
		if err != nil {
			return err
		}
		if !strings.Contains(body, "["+want+",") {
			return fmt.Errorf("answer %.300s", body)
		}
		return nil
	})
}
