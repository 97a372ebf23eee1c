//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// influxEnv is a real InfluxDB 1.x (Debian's influxd, 1.6 on bookworm) with
// authentication on, run as a plain process with a temporary configuration
// on free loopback ports. hack/test.sh installs the package when missing.
type influxEnv struct {
	url            string // http://127.0.0.1:port
	user, password string // its admin
	dir            string
}

// startInfluxDB starts influxd, creates its admin user (InfluxDB lets the
// first user be created without credentials) and database db, and stops
// it when the test ends.
func startInfluxDB(t *testing.T, password, db string) *influxEnv {
	t.Helper()
	bin, err := exec.LookPath("influxd")
	if err != nil {
		t.Fatalf("influxd is not installed (run the suite with `make test`, which installs it, or apt-get install influxdb): %v", err)
	}
	ix := &influxEnv{user: "admin", password: password, dir: t.TempDir()}
	ports := freePorts(t, 2)
	rpc, web := "127.0.0.1:"+ports[0], "127.0.0.1:"+ports[1]
	ix.url = "http://" + web
	config := filepath.Join(ix.dir, "influxdb.conf")
	err = os.WriteFile(config, []byte(fmt.Sprintf(`reporting-disabled = true
bind-address = %[2]q
[meta]
  dir = "%[1]s/meta"
[data]
  dir = "%[1]s/data"
  wal-dir = "%[1]s/wal"
  query-log-enabled = false
[http]
  bind-address = %[3]q
  auth-enabled = true
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
`, ix.dir, rpc, web)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(ix.dir, "influxd.log")
	began := time.Now()
	p := startServer(t, logPath, bin, nil, "run", "-config", config)
	eventually(t, 60*time.Second, "influxd answers /ping", func() error {
		p.failIfExited(t)
		_, err := ix.call(http.MethodGet, "/ping", nil, false)
		return err
	})
	ready := time.Since(began)
	if _, err := ix.call(http.MethodPost, "/query", url.Values{"q": {fmt.Sprintf("CREATE USER %s WITH PASSWORD '%s' WITH ALL PRIVILEGES", ix.user, influxQLString(password))}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.call(http.MethodPost, "/query", url.Values{"q": {"CREATE DATABASE " + db}}, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("influxd ready in %s at %s, log %s", ready.Round(time.Millisecond), ix.url, logPath)
	return ix
}

// call sends a form request (authenticated as the admin when auth) and
// returns the body of a 2xx answer.
func (ix *influxEnv) call(method, path string, form url.Values, auth bool) (string, error) {
	r, err := http.NewRequest(method, ix.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if auth {
		r.SetBasicAuth(ix.user, ix.password)
	}
	resp, err := promClient.Do(r)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("%s %s: HTTP %d: %.300s", method, path, resp.StatusCode, b)
	}
	return string(b), err
}

// Write writes points in line protocol (second precision) to db.
func (ix *influxEnv) Write(t *testing.T, db string, lines ...string) {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, ix.url+"/write?precision=s&db="+url.QueryEscape(db), strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	r.SetBasicAuth(ix.user, ix.password)
	resp, err := promClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("write: HTTP %d", resp.StatusCode)
	}
}

// influxQLString escapes s for an InfluxQL string literal ('...').
func influxQLString(s string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
}
