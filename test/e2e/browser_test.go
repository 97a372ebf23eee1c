//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// viewport is the size of the page in the browser; mobile also turns on the
// phone's layout viewport (the page's meta viewport) and touch.
type viewport struct {
	name          string
	width, height int
	mobile        bool
}

var (
	desktop = viewport{"desktop", 1280, 800, false}
	phone   = viewport{"phone", 390, 844, true}
)

// browserWait bounds every wait of a browser step.
const browserWait = 30 * time.Second

// unsafeName matches what a file name should not hold.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// browser is one headless chromium with one tab. It records every response
// and every console message; when the test ends, each console error,
// uncaught exception or blocked load (a Content-Security-Policy violation)
// not declared with allow fails the test, and a failed test leaves a
// screenshot of the tab in the artifact directory.
type browser struct {
	t         testing.TB
	ctx       context.Context
	artifacts string

	mu        sync.Mutex
	problems  []string
	allowed   []*regexp.Regexp
	responses map[string]*network.Response // by URL, the last one
}

// newBrowser starts Debian's chromium (or $RAMP_CHROMIUM) headless with a
// fresh profile; it is stopped when the test ends.
func newBrowser(t testing.TB, vp viewport) *browser {
	t.Helper()
	path := os.Getenv("RAMP_CHROMIUM")
	if path == "" {
		var err error
		if path, err = exec.LookPath("chromium"); err != nil {
			t.Fatalf("no browser: chromium is not on PATH and RAMP_CHROMIUM is unset (make test installs Debian's chromium)")
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("headless", "new"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(vp.width, vp.height),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // chromium refuses its sandbox as root
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	b := &browser{t: t, ctx: ctx, artifacts: artifactDir(t), responses: map[string]*network.Response{}}
	var wg sync.WaitGroup
	t.Cleanup(func() { cancelTab(); cancelAlloc(); wg.Wait() })
	// The first action starts the browser, bound to ctx (never a timeout).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	console, responses, failures := chromedp.Console(ctx), chromedp.Events(ctx, network.ResponseReceived), chromedp.Events(ctx, network.LoadingFailed)
	wg.Go(func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.report(fmt.Sprintf("console %s (%s:%d): %s", m.Type, m.URL, m.Line+1, m.Text))
			}
		}
	})
	wg.Go(func() {
		for ev, err := range responses {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.responses[ev.Response.URL] = ev.Response
			b.mu.Unlock()
		}
	})
	wg.Go(func() {
		for ev, err := range failures {
			if err != nil {
				return
			}
			if ev.BlockedReason != "" {
				b.report(fmt.Sprintf("load of a %s blocked (%s) %s", ev.Type, ev.BlockedReason, ev.ErrorText))
			}
		}
	})
	t.Cleanup(b.check)
	// The window's size leaves the page less than its height (headless keeps
	// room for the browser's own bars): the page gets exactly the viewport.
	var phoneOpts []chromedp.EmulateViewportOption
	if vp.mobile {
		phoneOpts = []chromedp.EmulateViewportOption{chromedp.EmulateMobile, chromedp.EmulateTouch}
	}
	b.do("set the viewport", chromedp.EmulateViewport(int64(vp.width), int64(vp.height), phoneOpts...))
	return b
}

// artifactDir is where a test's screenshots go: $RAMP_E2E_ARTIFACTS/<test>
// when set (kept after the run), else the test's temporary directory.
func artifactDir(t testing.TB) string {
	root := os.Getenv("RAMP_E2E_ARTIFACTS")
	if root == "" {
		return t.TempDir()
	}
	dir := filepath.Join(root, unsafeName.ReplaceAllString(t.Name(), "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func (b *browser) report(problem string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, re := range b.allowed {
		if re.MatchString(problem) {
			return
		}
	}
	b.problems = append(b.problems, problem)
}

// allow declares console errors the test expects (a 403 the page shows as a
// refusal, say): problems matching pattern do not fail the test.
func (b *browser) allow(pattern string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.allowed = append(b.allowed, regexp.MustCompile(pattern))
}

// reported returns the problems recorded so far and forgets them.
func (b *browser) reported() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.problems
	b.problems = nil
	return p
}

// check runs when the test ends, before the browser stops.
func (b *browser) check() {
	for _, p := range b.reported() {
		b.t.Errorf("browser: %s", p)
	}
	if b.t.Failed() {
		b.screenshot("failed")
	}
}

// do runs browser actions within browserWait, failing the test (with a
// screenshot) if they do not finish.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("not done after %s", browserWait)
		}
		b.screenshot("failed-" + what)
		b.t.Fatalf("browser: %s: %v", what, err)
	}
}

// open navigates to url, waits for the load and returns the document's response.
func (b *browser) open(url string) *network.Response {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
	if err != nil {
		b.t.Fatalf("browser: open %s: %v", url, err)
	}
	return resp
}

// waitVisible waits until the CSS selector matches a visible element.
func (b *browser) waitVisible(sel string) {
	b.t.Helper()
	b.do("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
}

// waitJS waits until the JavaScript expression is truthy.
func (b *browser) waitJS(what, expr string) {
	b.t.Helper()
	b.do(what, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(browserWait)))
}

// colorScheme emulates prefers-color-scheme ("dark" or "light").
func (b *browser) colorScheme(scheme string) {
	b.t.Helper()
	b.do("prefer "+scheme, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	}))
}

// loaded returns the responses the tab received from URLs under prefix.
func (b *browser) loaded(prefix string) []*network.Response {
	b.mu.Lock()
	defer b.mu.Unlock()
	var rs []*network.Response
	for url, r := range b.responses {
		if strings.HasPrefix(url, prefix) {
			rs = append(rs, r)
		}
	}
	return rs
}

// screenshot saves the whole page as <artifacts>/<name>.png and returns the
// path ("" if the browser could not take it).
func (b *browser) screenshot(name string) string {
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("browser: screenshot %s: %v", name, err)
		return ""
	}
	path := filepath.Join(b.artifacts, unsafeName.ReplaceAllString(name, "_")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Errorf("browser: %v", err)
		return ""
	}
	b.t.Logf("browser: screenshot %s", path)
	return path
}

// header returns a response header, whatever its case.
func header(r *network.Response, name string) string {
	for k, v := range r.Headers {
		if strings.EqualFold(k, name) {
			return fmt.Sprint(v)
		}
	}
	return ""
}
