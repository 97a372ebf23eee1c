package dashboard

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// contrastJS lists the visible text whose contrast with its background is
// below WCAG 2's AA minimum (4.5:1, or 3:1 for large text), as
// "tag.class "text" ratio". The background is the first opaque one among
// the element and its ancestors; SVG text is judged by its fill.
const contrastJS = `(() => {
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c || "");
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const lum = (c) => [c.r, c.g, c.b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const bgOf = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  };
  const bad = [];
  for (const el of document.querySelectorAll("body *")) {
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === "hidden" || cs.display === "none" || el.getClientRects().length === 0 || Number(cs.opacity) === 0) continue;
    const fg = parse(el instanceof SVGElement ? cs.fill : cs.color);
    if (!fg) continue;
    const bg = bgOf(el);
    const mix = { r: fg.r * fg.a + bg.r * (1 - fg.a), g: fg.g * fg.a + bg.g * (1 - fg.a), b: fg.b * fg.a + bg.b * (1 - fg.a) };
    const [hi, lo] = [lum(mix), lum(bg)].sort((x, y) => y - x);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(cs.fontSize), bold = Number(cs.fontWeight) >= 700;
    const min = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < min) bad.push(el.tagName.toLowerCase() + "." + String(el.className.baseVal ?? el.className) + " \"" + el.textContent.trim().slice(0, 30) + "\" " + ratio.toFixed(2));
  }
  return bad;
})()`

// unlabelledJS lists the controls without an accessible name (a label,
// aria-label, aria-labelledby, a title, or a button's text) and the SVG
// plots without a text alternative.
const unlabelledJS = `[...document.querySelectorAll("input, select, textarea, button, svg.plot")]
  .filter((e) => !(e.getAttribute("aria-label") || e.getAttribute("aria-labelledby") || (e.labels && e.labels.length) ||
    (e.tagName === "BUTTON" && e.textContent.trim()) || e.title))
  .map((e) => e.outerHTML.slice(0, 100))`

// TestContrastAndLabelsInBrowser: in headless Chromium, in the light and
// the dark scheme, at 1280 and 390 px, the list, the rollout page and its
// promote dialog have no text below WCAG AA contrast, no control without
// an accessible name and, at 390 px, no page wider than the screen.
// Skipped without the bundle or chromium.
func TestContrastAndLabelsInBrowser(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	c := fakeClient(t, &recorder{}, nil)
	srv := httptest.NewServer(testServer(t, Config{Reader: c, Writer: c, Actions: true}))
	t.Cleanup(srv.Close)
	for _, width := range []int{1280, 390} {
		b := startBrowser(t, width)
		for _, scheme := range []string{"light", "dark"} {
			b.call("Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-color-scheme", "value": scheme}}})
			check := func(page string) {
				t.Helper()
				where := page + " (" + scheme + ", " + strconv.Itoa(width) + " px)"
				if got := b.eval(`matchMedia("(prefers-color-scheme: dark)").matches`); got != strconv.FormatBool(scheme == "dark") {
					t.Fatalf("%s: the scheme was not applied (dark matches %s)", where, got)
				}
				if bad := b.eval(contrastJS); bad != "[]" {
					t.Errorf("%s: text below AA contrast: %s", where, bad)
				}
				if bad := b.eval(unlabelledJS); bad != "[]" {
					t.Errorf("%s: controls or plots without an accessible name: %s", where, bad)
				}
				if width < 600 {
					if over := b.eval(`document.documentElement.scrollWidth - window.innerWidth`); over != "0" && over[0] != '-' {
						t.Errorf("%s: the page is %s px wider than the screen", where, over)
					}
				}
			}
			b.open(srv.URL + "/#/")
			b.waitFor(`document.querySelectorAll("table.rollouts tbody tr").length >= 2`, "document.body.innerText")
			check("list")
			b.open(srv.URL + "/#/rollouts/shop/web")
			b.waitFor(`document.querySelector("ol.timeline li[aria-current=step]") && document.querySelector("svg.plot")`, "document.body.innerText")
			check("rollout page")
			b.eval(clickButton("Promote"))
			b.waitFor(`document.querySelector("dialog[open]")`, "document.body.innerText")
			check("promote dialog")
			b.eval(`document.querySelector("dialog[open]").close()`)
		}
	}
}

// press sends one key to the page, as the keyboard would (Enter with its
// text, which is what activates a focused button).
func (b *browser) press(key, code string, keyCode int) {
	b.t.Helper()
	down := map[string]any{"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": keyCode}
	if key == "Enter" {
		down["text"] = "\r"
	}
	b.call("Input.dispatchKeyEvent", down)
	b.call("Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": keyCode})
}

// TestKeyboardInBrowser: on the rollout page, Tab alone walks the links,
// fields and buttons, each with a visible focus outline, to Promote, and
// Enter on Promote opens its confirmation with Cancel focused; Escape
// closes it and gives the focus back. Skipped without the bundle or
// chromium.
func TestKeyboardInBrowser(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	c := fakeClient(t, &recorder{}, nil)
	srv := httptest.NewServer(testServer(t, Config{Reader: c, Writer: c, Actions: true}))
	t.Cleanup(srv.Close)
	b := startBrowser(t, 1280)
	b.open(srv.URL + "/#/rollouts/shop/web")
	b.waitFor(`[...document.querySelectorAll("button")].some((b) => b.textContent === "Promote")`, "document.body.innerText")
	want := b.eval(`[...document.querySelectorAll("a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), summary, [tabindex]:not([tabindex='-1'])")]
	  .filter((e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden").length`)
	n, err := strconv.Atoi(want)
	if err != nil || n < 5 {
		t.Fatalf("focusable elements on the page: %s", want)
	}
	b.eval(`document.activeElement.blur()`)
	reached := map[string]bool{}
	promoteAt := -1
	for i := 0; i < n+5 && len(reached) < n; i++ {
		b.press("Tab", "Tab", 9)
		id := b.eval(`(() => { const e = document.activeElement; if (!e || e === document.body) return "";
		  if (!e.dataset.kbd) e.dataset.kbd = String(Math.random()); return e.dataset.kbd; })()`)
		if id == "" {
			continue
		}
		reached[id] = true
		if outline := b.eval(`getComputedStyle(document.activeElement).outlineStyle`); outline == "none" {
			t.Errorf("focused %s shows no focus outline", b.eval(`document.activeElement.outerHTML.slice(0, 80)`))
		}
		if b.eval(`document.activeElement.textContent`) == "Promote" && promoteAt < 0 {
			promoteAt = i
			break
		}
	}
	if promoteAt < 0 {
		t.Fatalf("Tab never reached the Promote button (%d of %d focusable elements reached)", len(reached), n)
	}
	b.press("Enter", "Enter", 13)
	b.waitFor(`document.querySelector("dialog[open]")`, "document.body.innerText")
	if f := b.eval(`document.activeElement.textContent`); f != "Cancel" {
		t.Errorf("Enter on Promote: focus on %q, want Cancel", f)
	}
	b.press("Escape", "Escape", 27)
	b.waitFor(`!document.querySelector("dialog[open]")`, "document.body.innerText")
	if f := b.eval(`document.activeElement.textContent`); f != "Promote" {
		t.Errorf("after Escape the focus is on %q, want back on Promote", f)
	}
}

// TestRefusedActionsInBrowser: in-cluster, behind a proxy that sends the
// user's token, the actions alice may not take are disabled on the page
// and the note under them names the access refused; the others stay
// enabled. Skipped without the bundle or chromium.
func TestRefusedActionsInBrowser(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	c := fakeClient(t, &recorder{}, nil)
	cl := newCluster("get rollouts shop", "list rollouts shop", "patch rollouts shop")
	srv := httptest.NewServer(withBearer(testServer(t, cl.inCluster(Config{Reader: c, Writer: c, Actions: true}, time.Now))))
	t.Cleanup(srv.Close)
	b := startBrowser(t, 1280)
	b.open(srv.URL + "/#/rollouts/shop/web")
	b.waitFor(`document.querySelector("section.actions button")`, "document.body.innerText")
	disabled := b.eval(`[...document.querySelectorAll("section.actions .buttons button")].filter((b) => b.disabled).map((b) => b.textContent).join(",")`)
	if disabled != "Promote,Promote fully,Abort,Retry,Undo" {
		t.Errorf("disabled actions %q, want Promote,Promote fully,Abort,Retry,Undo", disabled)
	}
	note := b.eval(`document.querySelector("#actions-refused")?.innerText ?? ""`)
	if !strings.Contains(note, `Promote: you may not patch rollouts.argoproj.io/status in namespace "shop"`) ||
		!strings.Contains(note, `Undo: you may not list replicasets.apps in namespace "shop"`) {
		t.Errorf("the note under the actions says %q", note)
	}
	if got := b.eval(`document.querySelector("section.actions button:not([disabled])").getAttribute("aria-describedby")`); got != "null" {
		t.Errorf("an allowed action is described by the refusal note (%s)", got)
	}
}

// TestHiddenTabGivesItsStreamUp: a page that becomes hidden closes its
// event stream (a browser opens at most six connections to a host, so
// hidden tabs holding streams would starve a seventh) and opens one again
// when shown. Skipped without the bundle or chromium.
func TestHiddenTabGivesItsStreamUp(t *testing.T) {
	if builtAssets() == nil {
		t.Skip("no bundle in internal/dashboard/assets: run hack/web.sh (make build)")
	}
	c := fakeClient(t, &recorder{}, nil)
	hub := NewHub(Render(c), 256)
	go hub.Run(t.Context(), 100*time.Millisecond)
	srv := httptest.NewServer(testServer(t, Config{Reader: c, Hub: hub}))
	t.Cleanup(srv.Close)
	b := startBrowser(t, 1280)
	b.open(srv.URL + "/")
	b.waitFor(`document.querySelectorAll("table.rollouts tbody tr").length >= 2`, "document.body.innerText")
	subscribers := func(want int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for hub.Subscribers() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%d event streams open, want %d", hub.Subscribers(), want)
			}
			time.Sleep(20 * time.Millisecond) // polling the hub: the count decides
		}
	}
	subscribers(1)
	visibility := func(hidden bool) {
		b.eval(`Object.defineProperty(document, "hidden", { configurable: true, get: () => ` + strconv.FormatBool(hidden) + ` });
		  document.dispatchEvent(new Event("visibilitychange"))`)
	}
	visibility(true)
	subscribers(0)
	visibility(false)
	subscribers(1)
}
