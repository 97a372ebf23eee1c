//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// signInInBrowser: in chromium, the dashboard without a token shows the
// sign-in page; leaver pastes a token and sees the rollouts of namespace A
// and not B's; once leaver's ServiceAccount is deleted the next page shows
// the sign-in page saying "signed out: token expired or revoked"; viewer
// signs in on the rollout's page, which says so when the rollout is
// deleted while open; Sign out returns to the sign-in page. The token is never in
// the address, and the sign-in cookie is out of the page's reach.
func signInInBrowser(t *testing.T, base, a, b, name string) {
	br := newBrowser(t, desktop)
	br.allow(`status of 401`) // the answers that show the sign-in page
	br.allow(`/favicon\.ico:1\): Failed to load resource: the server responded with a status of 404`)
	br.open(base + "/")
	br.waitJS("the sign-in page", `document.getElementById("signin-why")?.textContent.includes("not signed in")`)
	br.screenshot("incluster-signin")
	signIn := func(token string) {
		br.do("paste a token and sign in", chromedp.SendKeys(chromedp.CSS("#signin-token"), token),
			chromedp.Click(chromedp.CSS(`form.signin button[type=submit]`)))
	}
	leaverToken := saToken(t, a, "leaver")
	signIn(leaverToken)
	row := fmt.Sprintf(`[...document.querySelectorAll("table.rollouts tbody tr")].some((tr) => !tr.hidden && tr.innerText.includes(%q))`, a)
	br.waitJS("namespace A listed", row)
	br.waitJS("signed in as leaver", fmt.Sprintf(`document.getElementById("who").textContent.startsWith("system:serviceaccount:%s:leaver") && !document.getElementById("signout").hidden`, a))
	seen := br.eval(`document.querySelector("table.rollouts tbody").innerText + " | " + location.href + " | " + document.cookie`)
	if strings.Contains(seen, b) || strings.Contains(seen, leaverToken) || strings.Contains(seen, "ramp-auth") {
		t.Errorf("the page shows %q: want no rollout of %s, no token, no sign-in cookie", seen, b)
	}
	br.screenshot("incluster-list-signed-in")

	if _, stderr, err := kubectl(t, "", "-n", a, "delete", "serviceaccount", "leaver"); err != nil {
		t.Fatalf("delete serviceaccount leaver: %v\n%s", err, stderr)
	}
	probe := newDashUser(t, base, leaverToken)
	eventually(t, 30*time.Second, "leaver's token is refused", func() error {
		if code, body := probe.do("GET", "/api/session", ""); code != 401 {
			return fmt.Errorf("%d %s", code, body)
		}
		return nil
	})
	br.do("open the rollout", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = "#/rollouts/%s/%s"`, a, name)))
	br.waitJS("signed out: token expired or revoked", `document.getElementById("signin-why")?.textContent.includes("signed out: token expired or revoked")`)
	br.screenshot("incluster-token-revoked")

	signIn(saToken(t, a, "viewer"))
	br.waitJS("the rollout page, signed in as viewer", fmt.Sprintf(`document.querySelector("h1")?.textContent.startsWith(%q)`, name))
	if _, stderr, err := kubectl(t, "", "-n", a, "delete", "rollout", name, "--wait=false"); err != nil {
		t.Fatalf("delete rollout: %v\n%s", err, stderr)
	}
	br.waitJS("the page says the rollout was deleted", `/was deleted|does not exist/.test(document.getElementById("main").innerText)`)
	br.screenshot("incluster-deleted-while-open")
	br.do("sign out", chromedp.Click(chromedp.CSS("#signout")))
	br.waitJS("signed out", `document.getElementById("signin-why")?.textContent === "Signed out."`)
	br.screenshot("incluster-signed-out")
}

// eval returns the string value of a JavaScript expression in the page.
func (b *browser) eval(expr string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		b.t.Fatalf("browser: evaluate %s: %v", expr, err)
	}
	return v
}
