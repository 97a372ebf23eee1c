// A tiny element builder. Text is only ever set as textContent, never as
// HTML, so nothing a rollout, an Event or a measurement says can become
// markup (and the CSP forbids inline script and style anyway).

export type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | number | EventListener | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...kids: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, kids);
  return el;
}

const svgNS = "http://www.w3.org/2000/svg";

export function s(tag: string, attrs: Attrs = {}, ...kids: Child[]): SVGElement {
  const el = document.createElementNS(svgNS, tag) as SVGElement;
  setAttrs(el, attrs);
  append(el, kids);
  return el;
}

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

export function append(el: Node, kids: Child[]): void {
  for (const k of kids) {
    if (k === null || k === undefined || k === false) continue;
    el.appendChild(typeof k === "string" ? document.createTextNode(k) : k);
  }
}

// replace empties el and appends kids.
export function replace(el: Element, ...kids: Child[]): void {
  el.replaceChildren();
  append(el, kids);
}

// section is a titled region of a page, labelled by its heading.
let ids = 0;
export function section(title: string, ...kids: Child[]): HTMLElement {
  const id = `sec-${++ids}`;
  return h("section", { "aria-labelledby": id }, h("h2", { id }, title), ...kids);
}
