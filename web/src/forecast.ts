// Ramp's plan forecast on the steps timeline: for each remaining step the
// planner's weight, pods and gate (the same simulation as `ramp plan`),
// then the points after the steps; a blue-green update's phases as a
// timeline of their own. The figures come from the server (internal/view).

import type { Detail, ForecastPoint } from "./api";
import { h, type Child } from "./dom";

// figures is one point's numbers and what holds it, in words.
export function figures(p: ForecastPoint): string {
  const pods = p.active !== undefined && p.active !== ""
    ? `new ${p.canary}, old ${p.stable}, active ${p.active}`
    : `${p.weight ?? ""} (actual ${p.actual ?? "-"}), canary ${p.canary}, stable ${p.stable}`;
  return p.gate ? `${pods}; ${p.gate}` : pods;
}

function span(p: ForecastPoint): HTMLElement {
  return h("span", { class: "forecast", "data-forecast": p.kind }, h("span", { class: "sr-only" }, "Forecast: "), figures(p));
}

// stepForecast is the forecast of canary step i, null when it is done or
// the planner has none.
export function stepForecast(d: Detail, i: number): HTMLElement | null {
  const p = d.forecast?.points?.find((x) => x.index === i && x.kind === "step");
  return p ? span(p) : null;
}

const names: Record<string, string> = {
  complete: "Complete", scaleDown: "Previous scaled down", preview: "Preview", prePromotion: "Pre-promotion analysis",
  promotion: "Promotion", scaleUp: "Scale up", switch: "Switch", postPromotion: "Post-promotion analysis", stalled: "Stalls",
};

// pointItem is a timeline entry for a point that is not a canary step.
function pointItem(p: ForecastPoint, n: string): HTMLElement {
  return h("li", { class: p.current ? "current forecast-point" : "todo forecast-point", "aria-current": p.current ? "step" : undefined },
    h("span", { class: "n" }, n), h("span", {}, names[p.kind] ?? p.step), span(p));
}

// tail are the points after the canary's steps (completion, scale-down),
// a list of their own after the steps' (ol.timeline holds the steps only).
export function tail(d: Detail): HTMLElement | null {
  const pts = (d.forecast?.points ?? []).filter((p) => p.index < 0);
  if (!pts.length) return null;
  return h("ol", { class: "track", "aria-label": "After the steps (forecast)", "data-forecast": "after" }, ...pts.map((p) => pointItem(p, "✓")));
}

// phases is a blue-green update's remaining phases, as a timeline.
export function phases(d: Detail): HTMLElement | null {
  const pts = d.forecast?.points ?? [];
  if (!pts.length) return null;
  return h("ol", { class: "track", "aria-label": "Phases of the update (forecast)", "data-forecast": "phases" },
    ...pts.map((p, i) => pointItem(p, String(i + 1))));
}

// about says where the forecast comes from, and why it is empty or partial.
export function about(d: Detail): Child {
  const f = d.forecast;
  if (!f) return null;
  return h("p", { class: "muted forecast-about", "data-forecast": "about" },
    h("strong", {}, "Forecast: "), f.note ? `${f.note} ` : "", `(${f.basis}.)`);
}
