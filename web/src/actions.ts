// The actions of the rollout page: each button opens a confirmation that
// says what will happen (the server's text, from the planner; the fixed
// text below only when the server sent none); confirming sends the action with the CSRF token
// and the resourceVersion the page was showing, so nothing is done if the
// rollout changed meanwhile (409).

import { act, explain, type ActionBody, type Detail } from "./api";
import { h, replace } from "./dom";

interface Action { verb: string; label: string; says(d: Detail): string; needs?: "revision" | "images" }

function stepText(d: Detail, i: number): string {
  const st = d.timeline?.steps[i];
  return st ? `step ${i + 1} (${st.text})` : "the end of the steps (fully promoted)";
}

const actions: Action[] = [
  { verb: "promote", label: "Promote", says: (d) => d.timeline
      ? `Ends ${stepText(d, d.timeline.current)} and moves on to ${stepText(d, d.timeline.current + 1)}; a pause is cleared.`
      : "Clears the pause and lets the update go on (blue-green: switches the active service to the new version)." },
  { verb: "promote-full", label: "Promote fully", says: () => "Skips every remaining step, analysis and pause: the new version gets all the traffic and all the replicas." },
  { verb: "abort", label: "Abort", says: () => "Stops the update: traffic goes back to the stable version and the canary or preview is scaled down. Retry starts it again." },
  { verb: "retry", label: "Retry", says: () => "Clears the abort and starts the update again from the first step." },
  { verb: "pause", label: "Pause", says: () => "Pauses the rollout where it is (spec.paused: true) until it is resumed." },
  { verb: "resume", label: "Resume", says: () => "Clears spec.paused so the rollout goes on from where it was paused." },
  { verb: "restart", label: "Restart pods", says: () => "Restarts every pod of the rollout, a few at a time (spec.restartAt: now)." },
  { verb: "undo", label: "Undo", needs: "revision", says: () => "Rolls the pod template back to the chosen revision; this starts a new update with that template." },
  { verb: "set-image", label: "Set image", needs: "images", says: () => "Changes the container image(s) of the pod template; this starts a new update." },
];

// actionBar is the buttons; done runs after an action succeeded, closed
// whenever the confirmation closes.
export function actionBar(d: Detail, done: (msg: string) => void, closed: () => void): HTMLElement {
  const result = h("p", { role: "alert", class: "result" });
  const dialog = h("dialog", { "aria-labelledby": "confirm-title" });
  dialog.addEventListener("close", closed);
  // An action the user may not take (in-cluster: a SubjectAccessReview
  // refused it) is disabled, and the note under the buttons says why.
  const refused = d.refused ?? {};
  const buttons = actions.map((a) => h("button", { type: "button", disabled: a.verb in refused,
    "aria-describedby": a.verb in refused ? "actions-refused" : undefined,
    onclick: () => confirm(a, d, dialog, result, done) }, a.label));
  const why = actions.filter((a) => a.verb in refused).map((a) => `${a.label}: ${refused[a.verb]}`);
  const note = why.length ? h("ul", { id: "actions-refused", class: "refused muted" }, ...why.map((w) => h("li", {}, w))) : null;
  return h("section", { "aria-labelledby": "actions-title", class: "actions", "data-resource-version": d.resourceVersion },
    h("h2", { id: "actions-title" }, "Actions"), h("div", { class: "buttons" }, ...buttons), note, result, dialog);
}

function confirm(a: Action, d: Detail, dialog: HTMLDialogElement, result: HTMLElement, done: (msg: string) => void): void {
  const id = `${d.rollout.namespace}/${d.rollout.name}`;
  const revisions = (d.rollout.revisions ?? []).map((r) => r.number).sort((x, y) => y - x);
  const targets = d.confirm?.undo ?? [];
  const imagesOf = (n: number): string => {
    const im = targets.find((t) => t.revision === n)?.images;
    return im?.length ? ` (${im.join(", ")})` : "";
  };
  const revision = h("select", { id: "undo-revision" },
    h("option", { value: "0" }, "the previous revision"),
    ...revisions.map((n) => h("option", { value: String(n) }, `revision ${n}${imagesOf(n)}`)));
  const says = h("p", { class: "says", "aria-live": "polite" }, d.confirm?.actions[a.verb] ?? a.says(d));
  if (a.needs === "revision") {
    const undoText = (): void => { says.textContent = targets.find((t) => t.revision === Number(revision.value))?.text ?? a.says(d); };
    revision.addEventListener("change", undoText);
    undoText();
  }
  const images = h("input", { id: "set-images", type: "text", required: true, placeholder: "container=image:tag, …", autocomplete: "off" });
  const field = a.needs === "revision"
    ? h("p", {}, h("label", { for: "undo-revision" }, "Revision "), revision)
    : a.needs === "images" ? h("p", {}, h("label", { for: "set-images" }, "Images (CONTAINER=IMAGE, comma separated) "), images) : null;
  const error = h("p", { role: "alert", class: "error" });
  const cancel = h("button", { type: "button", onclick: () => dialog.close() }, "Cancel");
  const ok = h("button", { type: "submit", class: "danger" }, `${a.label} ${d.rollout.name}`);
  const form = h("form", { method: "dialog" },
    h("h2", { id: "confirm-title" }, `${a.label} rollout ${id}?`),
    says,
    h("p", { class: "muted" }, `Applies only to the version shown (resourceVersion ${d.resourceVersion}); if the rollout changed since, nothing is done.`),
    field, error, h("div", { class: "buttons" }, cancel, ok));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body: ActionBody = { resourceVersion: d.resourceVersion };
    if (a.needs === "revision") body.revision = Number(revision.value);
    if (a.needs === "images") {
      body.images = images.value.split(",").map((x) => x.trim()).filter(Boolean);
      if (!body.images.length) {
        error.textContent = "Name at least one CONTAINER=IMAGE.";
        images.focus();
        return;
      }
    }
    ok.disabled = true;
    act(d.rollout.namespace, d.rollout.name, a.verb, body).then((r) => {
      dialog.close();
      result.className = "result ok";
      result.textContent = r.message;
      done(r.message);
    }, (e: unknown) => {
      ok.disabled = false;
      error.textContent = explain(e);
      result.className = "result error";
      result.textContent = `${a.label} failed. ${explain(e)}`;
    });
  });
  replace(dialog, form);
  dialog.showModal();
  (field ? (a.needs === "revision" ? revision : images) : cancel).focus();
}
