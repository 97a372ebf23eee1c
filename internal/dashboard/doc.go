// Package dashboard is the HTTP server of `ramp dashboard`: a JSON API over
// Ramp's rollouts, live updates as Server-Sent Events, the actions of the
// CLI behind CSRF protection, and the web page (embedded; a placeholder
// until the front end exists).
//
// Reads come from one set of shared informers (a controller-runtime cache),
// never from the API server per browser. Display models come from
// internal/view and patches from internal/action, so the dashboard shows and
// does exactly what the CLI shows and does.
//
// Identity: locally the server acts with the user's kubeconfig identity and
// the API server decides. In-cluster (--in-cluster-auth) every request
// carries a Kubernetes bearer token, authenticated with a TokenReview, and
// every read and action is authorised with a SubjectAccessReview for that
// user and groups. The server never reads Secrets.
//
// It must not import internal/controller or internal/cli.
package dashboard
