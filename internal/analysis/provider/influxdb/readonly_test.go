package influxdb

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// TestReadOnly: only statements that read are run; a write hidden after a
// quote, a comment or an argument's injected semicolon is found; quoted
// text and comments never count.
func TestReadOnly(t *testing.T) {
	for _, q := range []string{
		`SELECT mean("rate") FROM "errors" WHERE "app" = 'good' AND time > now() - 5m`,
		`select count(*) from m; SHOW DATABASES;`,
		`SELECT "into" FROM m WHERE a = 'x; DROP DATABASE y' -- ; DROP DATABASE z`,
		`SELECT a /* ; DROP DATABASE z */ FROM "semi;colon" WHERE b = 'it\'s; DROP'`,
		"SELECT v FROM m\n",
		`SELECT v FROM m WHERE host =~ /a;b'c/ AND x = 1`,
		`SELECT v FROM /cpu;.*/, /mem;'/ WHERE h !~ /x\/;y/`,
		`SELECT a / b FROM m WHERE c = 4/2; SHOW MEASUREMENTS WITH MEASUREMENT =~ /;/`,
	} {
		if err := readOnly(q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	for q, want := range map[string]string{
		`DROP DATABASE app_istio`:                                              `influxql statement 1 is "DROP": only SELECT and SHOW statements that read are run`,
		`SELECT v FROM m WHERE app = 'x'; DROP DATABASE app; --'`:              `influxql statement 2 is "DROP"`,
		`SELECT * INTO other FROM m`:                                           "influxql statement 1 is a SELECT ... INTO, which writes",
		`SELECT v FROM m; create user a with password 'p' with all privileges`: `influxql statement 2 is "CREATE"`,
		`'unterminated; DROP DATABASE x`:                                       "", // all quoted: no statement
		`DELETE FROM m`:                                                        `influxql statement 1 is "DELETE"`,
		`SELECT v FROM m WHERE h !~ /x/; DROP DATABASE d`:                      `influxql statement 2 is "DROP"`,
		`SELECT a / b FROM m; DROP DATABASE d; SELECT 1/2`:                     `influxql statement 2 is "DROP"`,
	} {
		err := readOnly(q)
		if (want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), want)) {
			t.Errorf("%q: error %v, want %q", q, err, want)
		}
	}
}

// TestInfluxQLWriteNotSent: a statement that writes is an Error and
// InfluxDB receives nothing.
func TestInfluxQLWriteNotSent(t *testing.T) {
	var got atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { got.Add(1) }))
	t.Cleanup(srv.Close)
	p := newProvider(secrets{"influxdb": {"address": srv.URL, "database": "telegraf", "username": "admin", "password": token}})
	_, err := p.Measure(context.Background(), provider.Request{Metric: metric("", "influxql", "SELECT 1; DROP DATABASE telegraf")})
	if err == nil || !strings.HasPrefix(err.Error(), `influxdb: influxql statement 2 is "DROP"`) || got.Load() != 0 {
		t.Fatalf("error %v, %d requests", err, got.Load())
	}
}

// FuzzReadOnly: no text panics the check, and a statement that writes
// after a complete read is always found.
func FuzzReadOnly(f *testing.F) {
	for _, s := range []string{`SELECT v FROM m WHERE h =~ /a;b/`, `SELECT 'x\`, "/* a", "-- b", `SELECT "a\"b" FROM /x\/y/`, `SHOW DATABASES`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		_ = readOnly(q)
		if err := readOnly("SELECT v FROM m WHERE a = '" + strings.ReplaceAll(strings.ReplaceAll(q, `\`, `\\`), "'", `\'`) + "'; DROP DATABASE d"); err == nil {
			t.Fatalf("a DROP after a quoted %q was not found", q)
		}
	})
}
