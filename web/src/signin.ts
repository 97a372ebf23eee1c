// Signing in on an in-cluster dashboard (--in-cluster-auth) when no
// authenticating proxy sets Authorization: the person pastes a Kubernetes
// token, the server checks it (TokenReview) and keeps it behind an HttpOnly
// cookie. The token is sent once, in a POST body: the field has no name (a
// form submitted without this script carries nothing) and is cleared at once.

import { explain, signIn } from "./api";
import { h, replace } from "./dom";

// signInPage shows the sign-in form with why it is shown (message, may be
// empty); done runs once the browser is signed in.
export function signInPage(root: HTMLElement, message: string, done: () => void): () => void {
  document.title = "Sign in · Ramp";
  const notice = h("p", { role: "alert", class: "banner", id: "signin-why", hidden: !message }, message);
  const result = h("p", { role: "status", class: "result", id: "signin-result" });
  const token = h("input", {
    id: "signin-token", type: "password", autocomplete: "off", spellcheck: "false", required: true,
    "aria-describedby": "signin-help",
  });
  const submit = h("button", { type: "submit" }, "Sign in");
  const form = h("form", { method: "post", class: "signin", "aria-labelledby": "signin-title" },
    h("label", { for: "signin-token" }, "Kubernetes token"), token,
    h("p", { id: "signin-help", class: "muted" },
      "Paste a bearer token, for example the output of ", h("code", {}, "kubectl create token <service-account> -n <namespace>"),
      ". The dashboard checks it with the Kubernetes API and shows and does only what that identity may do. ",
      "It keeps the token on the server for at most 8 hours and never shows it again; signing out forgets it."),
    submit, result);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = token.value;
    token.value = "";
    submit.disabled = true;
    result.textContent = "Checking the token…";
    signIn(value).then(done, (e: unknown) => {
      result.textContent = explain(e);
      submit.disabled = false;
      token.focus();
    });
  });
  replace(root, h("h1", { id: "signin-title" }, "Sign in"), notice, form);
  token.focus();
  return () => {};
}
