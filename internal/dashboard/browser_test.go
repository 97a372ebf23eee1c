package dashboard

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromium runs the headless browser on url and returns the page's DOM
// once its scripts have run (virtual time: no waiting on the wall clock),
// saving a screenshot of width×height into $RAMP_DASHBOARD_SCREENSHOTS
// when set.
func chromium(t *testing.T, url, shot string, width int) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profileDir(t),
		"--virtual-time-budget=4000", "--window-size=" + strconv.Itoa(width) + ",800"}
	if dir := os.Getenv("RAMP_DASHBOARD_SCREENSHOTS"); dir != "" {
		shotArgs := append(append([]string{}, args...), "--screenshot="+filepath.Join(dir, shot), url)
		if out, err := exec.CommandContext(ctx, bin, shotArgs...).CombinedOutput(); err != nil {
			t.Errorf("screenshot %s: %v\n%s", shot, err, out)
		}
	}
	out, err := exec.CommandContext(ctx, bin, append(args, "--dump-dom", url)...).Output()
	if err != nil {
		t.Fatalf("chromium %s: %v", url, err)
	}
	return string(out)
}

// TestPageInBrowser: the built page in headless Chromium, over the fake
// world with actions enabled: the list shows both namespaces' rollouts
// with phase, message, step, weights and image; the rollout page shows the
// timeline with the current step marked, the measurements plotted against
// the condition, the judge's verdict, the Event and the action buttons; a
// read-only server shows no action. Skipped without the bundle or chromium.
func TestPageInBrowser(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	for _, actions := range []bool{true, false} {
		srv := httptest.NewServer(testServer(t, Config{Reader: fakeClient(t, &recorder{}, nil), Actions: actions}))
		defer srv.Close()
		suffix := map[bool]string{true: "", false: "-readonly"}[actions]
		for _, width := range []int{1280, 390} {
			list := chromium(t, srv.URL+"/", "list-"+strconv.Itoa(width)+suffix+".png", width)
			for _, want := range []string{`href="#/rollouts/shop/web"`, ">ledger<", ">bank<", "CanaryPauseStep", ">1/2<", "50 / 0", "web:2", "2 of 2 rollouts shown"} {
				if !strings.Contains(list, want) {
					t.Errorf("list (width %d) lacks %q:\n%s", width, want, list)
				}
			}
		}
		page := chromium(t, srv.URL+"/#/rollouts/shop/web", "rollout-1280"+suffix+".png", 1280)
		if dir := os.Getenv("RAMP_DASHBOARD_SCREENSHOTS"); dir != "" && actions { // the phone width, to look at
			chromium(t, srv.URL+"/#/rollouts/shop/web", "rollout-390.png", 390)
		}
		for _, want := range []string{`aria-current="step"`, "setWeight: 50", "until promoted", "<svg", `class="pt Successful"`,
			"success when result[0] &lt; 0.05", "Judge's verdicts", ">pass<", "RolloutPaused", "Revision 2", "web-bbb"} {
			if !strings.Contains(page, want) {
				t.Errorf("rollout page (actions %v) lacks %q:\n%s", actions, want, page)
			}
		}
		if has := strings.Contains(page, ">Promote fully<"); has != actions {
			t.Errorf("actions enabled %v, action buttons shown %v", actions, has)
		}
		if !actions && !strings.Contains(page, "Read-only") {
			t.Errorf("read-only page does not say so")
		}
	}
}
