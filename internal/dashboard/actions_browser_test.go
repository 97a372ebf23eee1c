package dashboard

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// clickButton is the JavaScript that clicks the button labelled text.
func clickButton(text string) string {
	return `[...document.querySelectorAll("button")].find((b) => b.textContent === "` + text + `").click()`
}

// TestActionsInBrowser: in headless Chromium, Promote opens a dialog that
// says what will happen with Cancel focused; confirming sends the CLI's
// status patch and shows the server's answer. After the rollout changed
// under the page, Abort shows the 409 ("Conflict, nothing was changed")
// in the dialog and sends nothing; Escape closes the dialog. Skipped
// without the bundle or chromium.
func TestActionsInBrowser(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	rec := &recorder{}
	c := fakeClient(t, rec, nil)
	srv := httptest.NewServer(testServer(t, Config{Reader: c, Writer: c, Actions: true}))
	t.Cleanup(srv.Close) // after the browser (cleanups run last first), whose event stream would hold it open
	b := startBrowser(t, 1280)
	b.open(srv.URL + "/#/rollouts/shop/web")
	b.waitFor(`[...document.querySelectorAll("button")].some((b) => b.textContent === "Promote")`, "document.body.innerText")

	b.eval(clickButton("Promote"))
	b.waitFor(`document.querySelector("dialog[open]")`, "document.body.innerText")
	if text := b.eval(`document.querySelector("dialog[open]").innerText`); !strings.Contains(text, "Promote rollout shop/web?") ||
		!strings.Contains(text, "Ends step 2 (pause) and moves on to the end of the steps") {
		t.Errorf("promote dialog says %q", text)
	}
	if f := b.eval(`document.activeElement.textContent`); f != "Cancel" {
		t.Errorf("focus in the dialog on %q, want Cancel", f)
	}
	b.eval(clickButton("Promote web"))
	b.waitFor(`document.querySelector(".actions .result.ok")?.textContent.includes("promote done")`, `document.querySelector(".actions")?.innerText`)
	if s := rec.sent(); len(s) != 1 || !s[0].Status || !strings.Contains(s[0].Body, "pauseConditions") {
		t.Errorf("promote sent %+v, want the status patch", s)
	}

	// Someone changes the rollout; the page still shows the version before.
	b.waitFor(`!document.querySelector("dialog[open]")`, "document.body.innerText")
	var ro rampv1.Rollout
	if err := c.Get(t.Context(), types.NamespacedName{Namespace: "shop", Name: "web"}, &ro); err != nil {
		t.Fatal(err)
	}
	shown := ro.ResourceVersion
	// The page reloads after the promote: let it show this version first,
	// or under load it would show the change below and act on it.
	b.waitFor(`document.querySelector("section.actions")?.dataset.resourceVersion === "`+shown+`"`, `document.querySelector("section.actions")?.dataset.resourceVersion`)
	ro.Labels = map[string]string{"touched": "yes"}
	if err := c.Update(t.Context(), &ro); err != nil {
		t.Fatal(err)
	}
	b.eval(clickButton("Abort"))
	b.waitFor(`document.querySelector("dialog[open]")`, "document.body.innerText")
	if text := b.eval(`document.querySelector("dialog[open]").innerText`); !strings.Contains(text, "resourceVersion "+shown) {
		t.Errorf("abort dialog %q does not name the version shown (%s)", text, shown)
	}
	b.eval(clickButton("Abort web"))
	b.waitFor(`document.querySelector("dialog[open] .error")?.textContent.includes("Conflict, nothing was changed")`, `document.querySelector("dialog")?.innerText`)
	if s := rec.sent(); len(s) != 1 {
		t.Errorf("after the conflict %d patches were sent, want only the promote", len(s))
	}
	b.call("Input.dispatchKeyEvent", map[string]any{"type": "keyDown", "key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27})
	b.waitFor(`!document.querySelector("dialog[open]")`, `document.querySelector("dialog")?.outerHTML`)
}

// revocable may read everything, and patch until revoked.
type revocable struct{ revoked atomic.Bool }

func (r *revocable) Allowed(_ context.Context, _ User, a Access) (bool, error) {
	return a.Verb != "patch" || !r.revoked.Load(), nil
}

// TestActionRefusedInBrowser: a user whose patch rights were taken away
// after the page loaded (so Promote is still enabled) confirms Promote:
// the dialog shows the 403 naming what was refused, and nothing is sent.
// Skipped without the bundle or chromium.
func TestActionRefusedInBrowser(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	rec := &recorder{}
	c := fakeClient(t, rec, nil)
	authz := &revocable{}
	srv := httptest.NewServer(testServer(t, Config{Reader: c, Writer: c, Actions: true, Authz: authz}))
	t.Cleanup(srv.Close)
	b := startBrowser(t, 390)
	b.open(srv.URL + "/#/rollouts/shop/web")
	b.waitFor(`[...document.querySelectorAll("button")].some((b) => b.textContent === "Promote" && !b.disabled)`, "document.body.innerText")
	authz.revoked.Store(true)
	b.eval(clickButton("Promote"))
	b.waitFor(`document.querySelector("dialog[open]")`, "document.body.innerText")
	b.eval(clickButton("Promote web"))
	b.waitFor(`document.querySelector("dialog[open] .error")?.textContent.startsWith("Not allowed: forbidden: me cannot patch")`, `document.querySelector("dialog")?.innerText`)
	if s := rec.sent(); len(s) != 0 {
		t.Errorf("a refused action sent %+v", s)
	}
}
