// The rollout page: summary, actions, the steps as a timeline with the
// planner's forecast of the remaining ones, traffic and HPAs, revisions
// with their pods, AnalysisRuns with every measurement plotted and the
// judge's verdicts, Experiments and Events. It reloads on every live change
// of this rollout.

import { actionBar } from "./actions";
import { ApiError, explain, get, getSession, type AnalysisRun, type Detail, type Experiment, type MetricResult, type Revision } from "./api";
import { plot } from "./chart";
import { hpas, traffic } from "./evidence";
import { about, phases, stepForecast, tail } from "./forecast";
import { h, replace, section, type Child } from "./dom";
import { subscribe } from "./live";
import { clock, short } from "./time";

export function detailPage(root: HTMLElement, ns: string, name: string): () => void {
  const path = `/api/rollouts/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`;
  const banner = h("p", { role: "status", class: "banner", hidden: true });
  const body = h("div");
  const back = h("a", { href: "#/" }, "← All rollouts");
  replace(root, h("nav", { "aria-label": "Breadcrumb" }, back), h("h1", {}, `${name}`, h("span", { class: "muted" }, ` in ${ns}`)), banner, body);
  let remaining: HTMLElement | null = null;
  let endsAt = 0;
  let timer = 0;
  let pending = 0;
  let notice = "";

  let stale = false;
  const load = async (): Promise<void> => {
    // Not under an open confirmation: the person is deciding on what the
    // dialog says; a change since makes the action a 409, and the page
    // reloads when the dialog closes.
    if (body.querySelector("dialog[open]")) {
      stale = true;
      return;
    }
    stale = false;
    try {
      const [d, session] = await Promise.all([get<Detail>(path), getSession().catch(() => null)]);
      if (body.querySelector("dialog[open]")) { // opened while this was loading
        stale = true;
        return;
      }
      const focused = document.activeElement?.id;
      const tl = timeline(d);
      remaining = tl.remaining;
      endsAt = d.timeline?.pauseEndsAt ? Date.parse(d.timeline.pauseEndsAt) : 0;
      replace(body, summary(d),
        session?.actionsEnabled ? actionBar(d, (msg) => { notice = msg; void load(); }, () => { if (stale) void load(); }) : h("p", { class: "muted" }, "Read-only: the dashboard was started without --enable-actions."),
        tl.el, traffic(d), hpas(d), revisions(d), analysis(d.analysisRunDetails), experiments(d), events(d),
        d.withheld?.length ? h("p", { class: "muted" }, `Not shown (you may not list them here): ${d.withheld.join(", ")}.`) : null);
      if (notice) {
        const r = body.querySelector(".actions .result");
        if (r) { r.className = "result ok"; r.textContent = notice; }
        notice = "";
      }
      if (focused) document.getElementById(focused)?.focus();
      banner.hidden = true;
      tick();
    } catch (e) {
      banner.hidden = false;
      banner.textContent = e instanceof ApiError && e.status === 404
        ? `Rollout ${ns}/${name} does not exist (deleted, or never created).` : explain(e);
      if (e instanceof ApiError && e.status === 404) body.replaceChildren();
    }
  };
  const tick = (): void => {
    if (remaining) remaining.textContent = endsAt ? `${short(endsAt - Date.now())} left` : "";
  };
  timer = window.setInterval(tick, 1000);
  const unsubscribe = subscribe({
    change(c) {
      if (c.namespace !== ns || c.name !== name) return;
      if (c.deleted) {
        banner.hidden = false;
        banner.textContent = `Rollout ${ns}/${name} was deleted while this page was open.`;
        return;
      }
      clearTimeout(pending);
      pending = window.setTimeout(() => void load(), 200);
    },
    resync: () => void load(),
  });
  void load();
  back.focus();
  return () => {
    unsubscribe();
    clearInterval(timer);
    clearTimeout(pending);
  };
}

function dl(pairs: [string, Child][]): HTMLElement {
  return h("dl", { class: "facts" }, ...pairs.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

function summary(d: Detail): HTMLElement {
  const r = d.rollout;
  return section("Summary", dl([
    ["Phase", h("span", {}, h("span", { class: `phase ${r.status.name}` }, r.status.name), r.message ? ` ${r.message}` : "")],
    ["Strategy", r.strategy],
    ["Step", r.step ?? "-"],
    ["Weight (set / actual)", r.setWeight === undefined ? "-" : `${r.setWeight} / ${r.actualWeight ?? "-"}`],
    ["Replicas", `${r.replicas.desired} desired, ${r.replicas.current} current, ${r.replicas.updated} updated, ${r.replicas.ready} ready, ${r.replicas.available} available`],
    ["Images", h("ul", { class: "plain" }, ...(r.images ?? []).map((i) => h("li", {}, i.image, i.markers?.length ? h("span", { class: "muted" }, ` (${i.markers.join(", ")})`) : null)))],
    ["Age", r.age ?? ""],
  ]));
}

function timeline(d: Detail): { el: HTMLElement; remaining: HTMLElement | null } {
  const tl = d.timeline;
  if (!tl) {
    const none = d.rollout.strategy === "BlueGreen" ? "Blue-green: no steps." : "No steps: the update goes straight to the new version.";
    return { el: section("Steps", h("p", { class: "muted" }, none), phases(d), about(d)), remaining: null };
  }
  let remaining: HTMLElement | null = null;
  const items = tl.steps.map((st, i) => {
    const state = i < tl.current ? "done" : i === tl.current ? "current" : "todo";
    let extra: Child = null;
    if (state === "current" && st.pause !== undefined) {
      remaining = h("span", { class: "remaining" });
      extra = st.pause === "" ? h("span", { class: "remaining" }, "until promoted") : remaining;
    }
    return h("li", { class: state, "aria-current": state === "current" ? "step" : undefined },
      h("span", { class: "n" }, String(i + 1)), h("span", {}, st.text), h("span", { class: "sr-only" }, ` (${state === "todo" ? "to do" : state})`), extra,
      state === "done" ? null : stepForecast(d, i));
  });
  const done = tl.current >= tl.steps.length ? h("p", {}, "All steps done.") : null;
  return { el: section("Steps", h("ol", { class: "timeline" }, ...items), tail(d), done, about(d)), remaining };
}

function revisions(d: Detail): HTMLElement {
  const revs: Revision[] = d.rollout.revisions ?? [];
  if (!revs.length) return section("Revisions", h("p", { class: "muted" }, "No ReplicaSets."));
  return section("Revisions", h("ul", { class: "tree" }, ...revs.map((rev) => h("li", {},
    h("strong", {}, `Revision ${rev.number}`),
    h("ul", {}, ...(rev.replicaSets ?? []).map((rs) => h("li", {},
      h("span", { class: `phase ${rs.status.name}` }, rs.status.name), ` ${rs.name}`,
      rs.markers?.length ? h("span", { class: "tag" }, rs.markers.join(", ")) : null,
      ` ${rs.ready}/${rs.desired} ready`, rs.delay ? ` (scale-down delay ${rs.delay})` : "",
      rs.pods?.length ? h("ul", {}, ...rs.pods.map((p) => h("li", {},
        h("span", { class: `phase ${p.status.name}` }, p.status.name), ` ${p.name} ${p.ready} ready, ${p.restarts} restarts, ${p.age ?? ""}`))) : null)),
      ...(rev.analysisRuns ?? []).map((ar) => h("li", {}, `AnalysisRun ${ar.name}: ${ar.status.name} (✔ ${ar.successful} ✖ ${ar.failed} ? ${ar.inconclusive} ⚠ ${ar.error})`)))))));
}

function analysis(runs: AnalysisRun[]): HTMLElement {
  if (!runs.length) return section("Analysis", h("p", { class: "muted" }, "No AnalysisRuns."));
  return section("Analysis", ...runs.map((run) => h("article", { class: "run" },
    h("h3", {}, `${run.name} `, h("span", { class: `phase ${run.phase}` }, run.phase || "Pending")),
    run.message ? h("p", {}, run.message) : null,
    ...run.metrics.map((m) => metric(m, run.metricResults?.find((r) => r.name === m.name))))));
}

function metric(m: AnalysisRun["metrics"][number], res: MetricResult | undefined): HTMLElement {
  const ms = res?.measurements ?? [];
  const conds = [m.successCondition ? `success when ${m.successCondition}` : "", m.failureCondition ? `failure when ${m.failureCondition}` : ""].filter(Boolean).join("; ");
  return h("div", { class: "metric" },
    h("h4", {}, m.name, res ? h("span", { class: `phase ${res.phase}` }, ` ${res.phase}`) : null),
    h("p", { class: "muted" }, conds || "no condition (the provider decides)", m.interval ? `, every ${m.interval}` : ""),
    plot(m.name, ms, m.successCondition, m.failureCondition),
    verdicts(m.name, ms),
    ms.length ? h("details", {}, h("summary", {}, `${ms.length} measurements`),
      h("table", {}, h("thead", {}, h("tr", {}, ...["Finished", "Phase", "Value", "Message"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, ...ms.map((x) => h("tr", {}, h("td", {}, x.finishedAt ? clock(x.finishedAt) : "-"), h("td", {}, x.phase), h("td", {}, x.value ?? ""), h("td", {}, x.message ?? "")))))) : null);
}

// verdicts are the judge's per-metric verdicts of the latest measurement
// that has them: metadata "<metric>.verdict", ".p-value", ".effect-size".
function verdicts(name: string, ms: { metadata?: Record<string, string> }[]): HTMLElement | null {
  const md = [...ms].reverse().find((x) => x.metadata && Object.keys(x.metadata).some((k) => k === "verdict" || k.endsWith(".verdict")))?.metadata;
  if (!md) return null;
  const rows = Object.keys(md).filter((k) => k === "verdict" || k.endsWith(".verdict")).sort().map((k) => {
    const p = k === "verdict" ? "" : k.slice(0, -"verdict".length);
    return h("tr", {}, h("th", { scope: "row" }, p ? p.slice(0, -1) : name),
      h("td", {}, h("span", { class: `verdict ${md[k]}` }, md[k] ?? "")), h("td", {}, md[`${p}p-value`] ?? "-"), h("td", {}, md[`${p}effect-size`] ?? "-"));
  });
  return h("table", { class: "verdicts" }, h("caption", {}, `Judge's verdicts${md["score"] ? ` (score ${md["score"]})` : ""}`),
    h("thead", {}, h("tr", {}, ...["Metric", "Verdict", "p-value", "Effect size"].map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, ...rows));
}

function experiments(d: Detail): HTMLElement {
  const all: Experiment[] = [...(d.rollout.revisions ?? []).flatMap((r) => r.experiments ?? []), ...(d.rollout.experiments ?? [])];
  if (!all.length) return section("Experiments", h("p", { class: "muted" }, "No Experiments."));
  return section("Experiments", h("ul", { class: "plain" }, ...all.map((e) => h("li", {},
    h("span", { class: `phase ${e.status.name}` }, e.status.name), ` ${e.name}`, e.templates?.length ? ` (templates: ${e.templates.join(", ")})` : "", e.age ? `, ${e.age}` : ""))));
}

function events(d: Detail): HTMLElement {
  if (!d.events.length) return section("Events", h("p", { class: "muted" }, "No Events."));
  return section("Events", h("div", { class: "scroll" }, h("table", {},
    h("thead", {}, h("tr", {}, ...["Last seen", "Type", "Reason", "Message", "Count"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...[...d.events].reverse().map((e) => h("tr", { class: e.type === "Warning" ? "warning" : undefined },
      h("td", {}, clock(e.lastSeen)), h("td", {}, e.type), h("td", {}, e.reason), h("td", {}, e.message), h("td", {}, String(e.count ?? 1))))))));
}
