// The rollouts list: one table row per rollout, built once and then
// updated in place by live changes; the filter hides rows instead of
// rebuilding them, so a thousand rollouts stay responsive.

import { explain, get, type Change, type Row } from "./api";
import { h, replace } from "./dom";
import { subscribe } from "./live";
import { since } from "./time";

interface Line { tr: HTMLTableRowElement; row: Row; text: string; age: HTMLTableCellElement }

const phases = ["", "Healthy", "Progressing", "Paused", "Degraded"];

export function listPage(root: HTMLElement): () => void {
  const lines = new Map<string, Line>();
  const tbody = h("tbody");
  const status = h("p", { role: "status", class: "muted" });
  const search = h("input", { type: "search", id: "filter", placeholder: "name, namespace, image, message", autocomplete: "off" });
  const phase = h("select", { id: "phase" }, ...phases.map((p) => h("option", { value: p }, p || "any")));
  const table = h("table", { class: "rollouts" },
    h("caption", { class: "sr-only" }, "Rollouts in every namespace you may list"),
    h("thead", {}, h("tr", {}, ...["Name", "Namespace", "Strategy", "Phase", "Step", "Weight set / actual", "Images", "Step age"].map((c) => h("th", { scope: "col" }, c)))),
    tbody);
  replace(root,
    h("h1", {}, "Rollouts"),
    h("div", { class: "toolbar", role: "search" },
      h("label", { for: "filter" }, "Filter"), search,
      h("label", { for: "phase" }, "Phase"), phase),
    status,
    h("div", { class: "scroll" }, table));

  let timer = 0;
  const applyFilter = (): void => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const want = phase.value;
    let shown = 0;
    for (const l of lines.values()) {
      const ok = (!want || l.row.status === want) && words.every((w) => l.text.includes(w));
      if (l.tr.hidden === ok) l.tr.hidden = !ok;
      if (ok) shown++;
    }
    status.textContent = `${shown} of ${lines.size} rollouts shown`;
  };
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = window.setTimeout(applyFilter, 80);
  });
  phase.addEventListener("change", applyFilter);

  // NUL sorts before any character of a name: keys order as (namespace, name).
  const key = (ns: string, name: string): string => `${ns}\u0000${name}`;
  const upsert = (row: Row): void => {
    const k = key(row.namespace, row.name);
    const old = lines.get(k);
    const l = line(row);
    lines.set(k, l);
    if (old) old.tr.replaceWith(l.tr);
    else insertSorted(tbody, lines, k, l.tr);
  };
  const load = async (): Promise<void> => {
    try {
      const { items } = await get<{ items: Row[] }>("/api/rollouts");
      lines.clear();
      const frag = document.createDocumentFragment();
      for (const r of items) {
        const l = line(r);
        lines.set(key(r.namespace, r.name), l);
        frag.appendChild(l.tr);
      }
      tbody.replaceChildren(frag);
      applyFilter();
      // When the rows were first painted (ms since navigation): a figure the
      // browser tests print.
      requestAnimationFrame(() => { table.dataset.paintedAt ??= String(Math.round(performance.now())); });
    } catch (e) {
      status.textContent = explain(e);
    }
  };
  const unsubscribe = subscribe({
    change(c: Change) {
      const k = key(c.namespace, c.name);
      if (c.deleted) {
        lines.get(k)?.tr.remove();
        lines.delete(k);
      } else if (c.row) {
        upsert(c.row);
      }
      applyFilter();
    },
    resync: () => void load(),
  });
  const tick = window.setInterval(() => {
    const now = Date.now();
    for (const l of lines.values()) if (l.row.stepSince && !l.tr.hidden) l.age.textContent = since(l.row.stepSince, now);
  }, 1000);
  void load();
  search.focus();
  return () => {
    unsubscribe();
    clearInterval(tick);
  };
}

function line(r: Row): Line {
  const age = h("td", { "data-label": "Step age" }, since(r.stepSince));
  const images = (r.images ?? []).join(", ");
  const tr = h("tr", {},
    h("th", { scope: "row" }, h("a", { href: `#/rollouts/${encodeURIComponent(r.namespace)}/${encodeURIComponent(r.name)}` }, r.name)),
    h("td", { "data-label": "Namespace" }, r.namespace),
    h("td", { "data-label": "Strategy" }, r.strategy),
    h("td", { "data-label": "Phase" }, h("span", { class: `phase ${r.status}` }, r.status), r.message ? h("span", { class: "message" }, r.message) : null),
    h("td", { "data-label": "Step" }, r.step),
    h("td", { "data-label": "Weight set / actual" }, `${r.setWeight} / ${r.actualWeight}`),
    h("td", { class: "images", "data-label": "Images" }, images),
    age);
  const text = [r.name, r.namespace, r.strategy, r.status, r.message ?? "", images].join(" ").toLowerCase();
  return { tr, row: r, text, age };
}

// insertSorted puts a new rollout's row where the server's order (namespace,
// then name) would have it.
function insertSorted(tbody: HTMLTableSectionElement, lines: Map<string, Line>, k: string, tr: HTMLTableRowElement): void {
  let next: HTMLTableRowElement | null = null;
  let nextKey = "";
  for (const [other, l] of lines) {
    if (other > k && l.tr.parentNode === tbody && (!next || other < nextKey)) {
      next = l.tr;
      nextKey = other;
    }
  }
  tbody.insertBefore(tr, next);
}
