// The rollout page's traffic (the routers configured, the weights the
// controller set on them, the header and mirror routes in place) and the
// HorizontalPodAutoscalers that scale the rollout.

import type { Detail, Destination } from "./api";
import { h, section } from "./dom";

function table(caption: string, head: string[], rows: string[][]): HTMLElement {
  return h("div", { class: "scroll" }, h("table", {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...rows.map(([first, ...rest]) => h("tr", {}, h("th", { scope: "row" }, first ?? ""), ...rest.map((c) => h("td", {}, c)))))));
}

function dest(d: Destination | undefined, max: number): string {
  if (!d) return "-";
  const pct = max === 100 ? `${d.weight}%` : `${d.weight}/${max}`;
  return [pct, d.serviceName, d.podTemplateHash ? `(${d.podTemplateHash})` : ""].filter(Boolean).join(" ");
}

export function traffic(d: Detail): HTMLElement | null {
  const t = d.traffic;
  if (!t) {
    if (d.rollout.strategy !== "Canary") return null;
    const el = section("Traffic", h("p", { class: "muted" }, `No trafficRouting: traffic follows the pods (the canary gets ${d.rollout.actualWeight ?? 0}%).`));
    el.dataset["section"] = "traffic";
    return el;
  }
  const w = t.weights;
  const rows = t.routers.map((r) => [r.name, (r.objects ?? []).join(", ") || "-", dest(w?.canary, t.maxWeight), dest(w?.stable, t.maxWeight),
    (w?.additional ?? []).map((a) => dest(a, t.maxWeight)).join(", ") || "-"]);
  const verified = w?.verified === undefined ? "not verified at the load balancer" : w.verified ? "verified at the load balancer" : "verification failed at the load balancer";
  const routes = t.routes ?? [];
  const el = section("Traffic",
    table(w ? `Weights the controller set on each router (status.canary.weights; ${verified})` : "Routers (no weights set yet)",
      ["Router", "Updates", "Canary", "Stable", "Experiments"], rows),
    h("h3", {}, "Header and mirror routes in place"),
    routes.length
      ? h("ul", { class: "plain", "data-routes": "" }, ...routes.map((r) => h("li", {}, h("strong", {}, r.name), ` (${r.kind}): ${r.match}`)))
      : h("p", { class: "muted" }, t.managedRoutes?.length ? `None in place (managed routes: ${t.managedRoutes.join(", ")}).` : "None: no managedRoutes."));
  el.dataset["section"] = "traffic";
  return el;
}

export function hpas(d: Detail): HTMLElement | null {
  const list = d.hpas ?? [];
  if (!list.length) return null;
  const el = section("Autoscaling", ...list.map((a) => h("article", { class: "hpa", "data-hpa": a.name },
    h("h3", {}, `HPA ${a.name}`),
    h("p", {}, `${a.current} current, ${a.desired} desired replicas (min ${a.min}, max ${a.max})`),
    a.metrics?.length ? table(`Metrics of ${a.name}`, ["Metric", "Current", "Target"], a.metrics.map((m) => [m.name, m.current, m.target])) : null,
    a.conditions?.length ? h("ul", { class: "plain warning" }, ...a.conditions.map((c) => h("li", {}, c))) : null)));
  el.dataset["section"] = "hpa";
  return el;
}
