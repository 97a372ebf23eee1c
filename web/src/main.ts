// The page of `ramp dashboard`: a hash router between the rollouts list
// and a rollout's page, both live over one event stream; on an in-cluster
// dashboard, the sign-in page whenever the API answers 401.

import { ApiError, explain, get, getSession, signOut, unauthorized } from "./api";
import { detailPage } from "./detail";
import { h } from "./dom";
import { listPage } from "./list";
import { restart, watchState } from "./live";
import { signInPage } from "./signin";

import { rolloutRoute } from "./route";

const root = document.getElementById("main") as HTMLElement;
const who = document.getElementById("who") as HTMLElement;
const live = document.getElementById("live") as HTMLElement;
const signout = h("button", { type: "button", id: "signout", hidden: true }, "Sign out");
who.after(signout);
let leave: (() => void) | null = null;
let signingIn = false;

function route(): void {
  if (signingIn) return; // the sign-in page stays until signed in
  leave?.();
  const m = rolloutRoute(location.hash);
  if (m) {
    const { ns, name } = m;
    document.title = `${name} (${ns}) · Ramp`;
    leave = detailPage(root, ns, name);
  } else {
    document.title = "Rollouts · Ramp";
    leave = listPage(root);
  }
}

// showSignIn replaces the page with the sign-in form, saying why.
function showSignIn(message: string): void {
  if (signingIn) return;
  signingIn = true;
  leave?.();
  signout.hidden = true;
  who.textContent = "not signed in";
  leave = signInPage(root, message, () => {
    signingIn = false;
    start();
    restart();
  });
}

// start asks who we are, then shows the page the address names.
function start(): void {
  getSession().then((s) => {
    who.textContent = `${s.user || "you"} · ${s.actionsEnabled ? "actions enabled" : "read-only"}`;
    signout.hidden = !s.signedIn;
    route();
  }, (e: unknown) => {
    if (e instanceof ApiError && e.status === 401) return; // the sign-in page is up
    who.textContent = explain(e);
    route();
  });
}

window.addEventListener(unauthorized, (ev) => showSignIn((ev as CustomEvent<string>).detail));
signout.addEventListener("click", () => {
  signOut().then(() => showSignIn("Signed out."), (e: unknown) => { who.textContent = explain(e); });
});
watchState((on, closed) => {
  live.textContent = on ? "live" : "reconnecting…";
  live.className = on ? "live on" : "live off";
  // The browser gave up on the stream: a 401 (the token expired) shows the
  // sign-in page; otherwise try again shortly.
  if (closed && !signingIn) get("/api/session").then(() => window.setTimeout(restart, 5000), () => {});
});
window.addEventListener("hashchange", route);
start();

// The skip link moves focus without touching the route in the hash.
document.getElementById("skip")?.addEventListener("click", (ev) => {
  ev.preventDefault();
  root.focus();
});
