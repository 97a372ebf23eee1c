package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// browser is headless Chromium driven over the DevTools protocol: enough
// to open a page, run JavaScript in it and wait for a condition.
type browser struct {
	t    *testing.T
	ws   *websocket.Conn
	next atomic.Int64
}

var devtoolsURL = regexp.MustCompile(`DevTools listening on (ws://[^\s]+)`)

// startBrowser starts Chromium with a window of width×800; it is stopped
// when the test ends. Skipped without chromium.
func startBrowser(t *testing.T, width int) *browser {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	profile := profileDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir="+profile,
		fmt.Sprintf("--window-size=%d,800", width), "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsURL.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	var wsURL string
	select {
	case wsURL = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("chromium did not print its DevTools address within 30 s")
	}
	// The page target of the browser: /json/list on the same port.
	host := strings.TrimPrefix(wsURL, "ws://")
	host = host[:strings.Index(host, "/")]
	res, err := http.Get("http://" + host + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	var targets []struct{ Type, WebSocketDebuggerURL string }
	if err := json.NewDecoder(res.Body).Decode(&targets); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "page" {
			ws, err := websocket.Dial(tg.WebSocketDebuggerURL, "", "http://"+host)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ws.Close() })
			return &browser{t: t, ws: ws}
		}
	}
	t.Fatal("chromium has no page target")
	return nil
}

// profileDir is a browser profile directory removed at the end of the
// test; Chromium's helper processes may outlive it for a moment, so what
// they leave behind is not an error (t.TempDir would fail the test).
func profileDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ramp-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// call sends one DevTools command and returns its result, skipping the
// events that arrive meanwhile.
func (b *browser) call(method string, params any) json.RawMessage {
	b.t.Helper()
	id := b.next.Add(1)
	if err := websocket.JSON.Send(b.ws, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		b.t.Fatal(err)
	}
	_ = b.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var m struct {
			ID     int64           `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct{ Message string }
		}
		if err := websocket.JSON.Receive(b.ws, &m); err != nil {
			b.t.Fatalf("%s: %v", method, err)
		}
		if m.ID != id {
			continue
		}
		if m.Error != nil {
			b.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		return m.Result
	}
}

// eval runs a JavaScript expression in the page and returns its value as
// a string (JSON for non-strings).
func (b *browser) eval(js string) string {
	b.t.Helper()
	var r struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct{ Text string } `json:"exceptionDetails"`
	}
	raw := b.call("Runtime.evaluate", map[string]any{"expression": js, "returnByValue": true, "awaitPromise": true})
	if err := json.Unmarshal(raw, &r); err != nil {
		b.t.Fatal(err)
	}
	if r.ExceptionDetails != nil {
		b.t.Fatalf("%s: %s", js, r.ExceptionDetails.Text)
	}
	if s, ok := r.Result.Value.(string); ok {
		return s
	}
	out, _ := json.Marshal(r.Result.Value)
	return string(out)
}

// waitFor waits until the JavaScript condition is true, failing after 20 s
// with what describe says of the page then.
func (b *browser) waitFor(cond, describe string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for b.eval("!!("+cond+")") != "true" {
		if time.Now().After(deadline) {
			b.t.Fatalf("waited 20 s for %s; page: %s", cond, b.eval(describe))
		}
		time.Sleep(50 * time.Millisecond) // polling the page: the condition decides, not the delay
	}
}

func (b *browser) open(url string) {
	b.t.Helper()
	b.call("Page.navigate", map[string]any{"url": url})
}
