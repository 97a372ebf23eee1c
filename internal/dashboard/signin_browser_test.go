package dashboard

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSignInInBrowser: an in-cluster dashboard opened without a token
// shows the sign-in page; a wrong token is refused on the page; alice's
// token signs in (the list shows what she may list, the token is neither
// in the address nor readable by the page's script, the field is
// cleared); once her token is revoked the next load shows the sign-in page
// saying "signed out: token expired or revoked"; Sign out returns to the
// sign-in page. Skipped without the bundle or chromium.
func TestSignInInBrowser(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	clock := now
	c := newCluster("list rollouts shop", "get rollouts shop")
	s, _ := signInServer(t, c, &clock)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	b := startBrowser(t, 1280)
	b.open(srv.URL + "/")
	b.waitFor(`document.getElementById("signin-token") && document.getElementById("signin-why").textContent.includes("not signed in")`, "document.body.innerText")
	signIn := func(token string) {
		b.eval(`document.getElementById("signin-token").value = "` + token + `"; document.querySelector("form.signin").requestSubmit(); "sent"`)
	}
	signIn("stolen")
	b.waitFor(`document.getElementById("signin-result").textContent.includes("the token is not valid")`, "document.body.innerText")
	signIn("alice")
	b.waitFor(`document.querySelector("table.rollouts tbody tr")`, "document.body.innerText")
	if text := b.eval(`document.querySelector("table.rollouts tbody").innerText`); !strings.Contains(text, "web") || strings.Contains(text, "ledger") {
		t.Errorf("alice's list %q: want shop/web, not bank/ledger", text)
	}
	if got := b.eval(`location.href + " | " + document.cookie`); strings.Contains(got, "alice") || strings.Contains(got, authCookie) {
		t.Errorf("the token or the sign-in cookie is visible to the page: %q", got)
	}
	b.waitFor(`!document.getElementById("signout").hidden && document.getElementById("who").textContent.startsWith("alice")`, `document.querySelector("header").innerText`)

	c.mu.Lock()
	c.revoked = true
	c.mu.Unlock()
	b.eval(`location.hash = "#/rollouts/shop/web"; "moved"`)
	b.waitFor(`document.getElementById("signin-why")?.textContent.includes("signed out: token expired or revoked")`, "document.body.innerText")
	c.mu.Lock()
	c.revoked = false
	c.mu.Unlock()
	signIn("alice")
	b.waitFor(`document.querySelector("h1")?.textContent.startsWith("web in shop")`, "document.body.innerText")
	b.eval(`document.getElementById("signout").click(); "clicked"`)
	b.waitFor(`document.getElementById("signin-why")?.textContent === "Signed out."`, "document.body.innerText")
}
