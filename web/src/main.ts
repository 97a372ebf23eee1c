// The page of `ramp dashboard`: a hash router between the rollouts list
// and a rollout's page, both live over one event stream.

import { getSession } from "./api";
import { detailPage } from "./detail";
import { listPage } from "./list";
import { watchState } from "./live";

import { rolloutRoute } from "./route";

const root = document.getElementById("main") as HTMLElement;
const who = document.getElementById("who") as HTMLElement;
const live = document.getElementById("live") as HTMLElement;
let leave: (() => void) | null = null;

function route(): void {
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

watchState((on) => {
  live.textContent = on ? "live" : "reconnecting…";
  live.className = on ? "live on" : "live off";
});
getSession().then((s) => {
  who.textContent = `${s.user || "you"} · ${s.actionsEnabled ? "actions enabled" : "read-only"}`;
}, () => {
  who.textContent = "not signed in";
});
window.addEventListener("hashchange", route);
route();

// The skip link moves focus without touching the route in the hash.
document.getElementById("skip")?.addEventListener("click", (ev) => {
  ev.preventDefault();
  root.focus();
});
