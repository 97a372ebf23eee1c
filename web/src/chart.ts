// One metric's measurements plotted over time as inline SVG, with the
// thresholds its success and failure conditions name drawn across.

import type { Measurement } from "./api";
import { s } from "./dom";
import { clock } from "./time";

export interface Point { t: number; v: number; phase: string; raw: string }

// value is a measurement's number: the value itself or the first number of
// a JSON list ("[0.02]", Prometheus' vector result); NaN otherwise.
export function value(raw: string | undefined): number {
  if (!raw) return NaN;
  try {
    const x: unknown = JSON.parse(raw);
    if (typeof x === "number") return x;
    if (Array.isArray(x)) {
      const n = x.find((e) => typeof e === "number" || (typeof e === "string" && e.trim() !== "" && !isNaN(Number(e))));
      return n === undefined ? NaN : Number(n);
    }
  } catch {
    // not JSON
  }
  const n = Number(raw);
  return raw.trim() !== "" && !isNaN(n) ? n : NaN;
}

export function points(ms: Measurement[]): Point[] {
  return ms.map((m, i) => {
    const when = m.finishedAt ?? m.startedAt;
    return { t: when ? Date.parse(when) : i, v: value(m.value), phase: m.phase, raw: m.value ?? "" };
  }).filter((p) => !isNaN(p.v));
}

// thresholds are the numbers a condition compares the result with.
export function thresholds(cond: string | undefined): number[] {
  if (!cond) return [];
  const out: number[] = [];
  for (const m of cond.matchAll(/(?:<=|>=|==|!=|<|>)\s*(-?\d+(?:\.\d+)?(?:[eE]-?\d+)?)/g)) out.push(Number(m[1]));
  return out;
}

// timed: a point's t above this is a time (ms since 1970), else its index.
const timed = 1e9;
const W = 560, H = 180, L = 56, R = 12, T = 12, B = 28;

export function plot(metric: string, ms: Measurement[], success?: string, failure?: string): SVGElement {
  const ps = points(ms);
  const lines = [...thresholds(success).map((v) => ({ v, cls: "ok" })), ...thresholds(failure).map((v) => ({ v, cls: "bad" }))];
  const vs = [...ps.map((p) => p.v), ...lines.map((l) => l.v)];
  let lo = Math.min(...vs, 0), hi = Math.max(...vs, 0);
  if (hi === lo) hi = lo + 1;
  const pad = (hi - lo) * 0.08;
  lo -= lo < 0 ? pad : 0;
  hi += pad;
  const t0 = Math.min(...ps.map((p) => p.t)), t1 = Math.max(...ps.map((p) => p.t));
  const x = (t: number): number => L + (t1 === t0 ? (W - L - R) / 2 : ((t - t0) / (t1 - t0)) * (W - L - R));
  const y = (v: number): number => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const label = ps.length
    ? `${metric}: ${ps.length} measurements from ${fmt(Math.min(...ps.map((p) => p.v)))} to ${fmt(Math.max(...ps.map((p) => p.v)))}, latest ${fmt(ps[ps.length - 1]!.v)}`
    : `${metric}: no numeric measurements yet`;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label, class: "plot" },
    s("title", {}, label),
    s("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }),
    s("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }),
    s("text", { x: L - 6, y: y(hi) + 4, class: "tick", "text-anchor": "end" }, fmt(hi)),
    s("text", { x: L - 6, y: y(lo) + 4, class: "tick", "text-anchor": "end" }, fmt(lo)));
  for (const l of lines) {
    svg.appendChild(s("line", { x1: L, x2: W - R, y1: y(l.v), y2: y(l.v), class: `threshold ${l.cls}` }));
    svg.appendChild(s("text", { x: W - R, y: y(l.v) - 4, class: `tick ${l.cls}`, "text-anchor": "end" }, `${l.cls === "ok" ? "success" : "failure"} ${fmt(l.v)}`));
  }
  if (ps.length > 1 && t1 > t0) {
    if (t0 > timed) { // real times, not measurement numbers
      svg.appendChild(s("text", { x: L, y: H - 8, class: "tick" }, clock(t0)));
      svg.appendChild(s("text", { x: W - R, y: H - 8, class: "tick", "text-anchor": "end" }, clock(t1)));
    }
    svg.appendChild(s("polyline", { points: ps.map((p) => `${x(p.t)},${y(p.v)}`).join(" "), class: "series" }));
  }
  for (const p of ps) {
    svg.appendChild(s("circle", { cx: x(p.t), cy: y(p.v), r: 4, class: `pt ${p.phase}` },
      s("title", {}, `${p.phase}: ${p.raw}${p.t > timed ? ` at ${clock(p.t)}` : ""}`)));
  }
  return svg;
}

function fmt(v: number): string {
  return Math.abs(v) >= 1000 || (v !== 0 && Math.abs(v) < 0.01) ? v.toExponential(2) : String(Math.round(v * 1000) / 1000);
}
