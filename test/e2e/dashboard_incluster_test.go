//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// dashboardSA is the in-cluster dashboard's ServiceAccount (config/dashboard).
const dashboardSA = "system:serviceaccount:ramp-system:ramp-dashboard"

// applyDashboard applies config/<dir> (dashboard or dashboard-actions),
// after the namespace it installs into.
func applyDashboard(t *testing.T, dir string) {
	t.Helper()
	if _, stderr, err := kubectl(t, "", "create", "namespace", "ramp-system"); err != nil && !strings.Contains(stderr, "already exists") {
		t.Fatalf("create namespace ramp-system: %v\n%s", err, stderr)
	}
	if _, stderr, err := kubectl(t, "", "apply", "--server-side", "-k", "../../config/"+dir); err != nil {
		t.Fatalf("apply -k config/%s: %v\n%s", dir, err, stderr)
	}
}

// canI is `kubectl auth can-i VERB RESOURCE[/SUB] --as USER` in ns (""
// for every namespace): "yes" or "no".
func canI(t *testing.T, user, verb, resource, ns string) string {
	t.Helper()
	args := []string{"auth", "can-i", verb, resource, "--as", user}
	if res, sub, ok := strings.Cut(resource, "/"); ok { // can-i reads TYPE/NAME as an object's name
		args[3] = res
		args = append(args, "--subresource", sub)
	}
	if ns == "" {
		args = append(args, "--all-namespaces")
	} else {
		args = append(args, "-n", ns)
	}
	out, _, _ := kubectl(t, "", args...)
	return strings.TrimSpace(out)
}

// TestDashboardManifestsGrantLeastPrivilege: config/dashboard lets the
// dashboard's ServiceAccount list, watch and get, in every namespace,
// exactly the kinds it shows, and create TokenReviews and
// SubjectAccessReviews; nothing else (no Secrets, no writes, no
// impersonation). config/dashboard-actions adds patch on rollouts and
// rollouts/status (the CLI's patches), still no update or delete, and
// starts the server with --enable-actions and --in-cluster-auth on
// 0.0.0.0:3100.
//
// Not parallel: it removes the actions binding to check the read-only
// install, which TestDashboardInCluster (parallel, so run after) re-adds.
func TestDashboardManifestsGrantLeastPrivilege(t *testing.T) {
	_, _, _ = kubectl(t, "", "delete", "clusterrolebinding", "ramp-dashboard-actions", "--ignore-not-found")
	applyDashboard(t, "dashboard")
	type can struct{ verb, resource, ns, want string }
	check := func(cases []can) {
		t.Helper()
		for _, c := range cases {
			if got := canI(t, dashboardSA, c.verb, c.resource, c.ns); got != c.want {
				t.Errorf("dashboard can %s %s in %q: %q, want %q", c.verb, c.resource, c.ns, got, c.want)
			}
		}
	}
	var read []can
	for _, r := range []string{"rollouts.argoproj.io", "analysisruns.argoproj.io", "experiments.argoproj.io", "replicasets.apps", "pods", "events", "horizontalpodautoscalers.autoscaling"} {
		for _, v := range []string{"get", "list", "watch"} {
			read = append(read, can{v, r, "", "yes"})
		}
	}
	never := []can{
		{"create", "tokenreviews.authentication.k8s.io", "", "yes"},
		{"create", "subjectaccessreviews.authorization.k8s.io", "", "yes"},
		{"get", "secrets", "team-a", "no"},
		{"list", "secrets", "", "no"},
		{"list", "configmaps", "", "no"},
		{"list", "services", "", "no"},
		{"list", "analysistemplates.argoproj.io", "", "no"},
		{"list", "events.events.k8s.io", "", "no"},
		{"create", "pods", "team-a", "no"},
		{"create", "pods/exec", "team-a", "no"},
		{"impersonate", "users", "", "no"},
		{"impersonate", "serviceaccounts", "team-a", "no"},
		{"update", "rollouts.argoproj.io", "team-a", "no"},
		{"update", "rollouts.argoproj.io/status", "team-a", "no"},
		{"delete", "rollouts.argoproj.io", "team-a", "no"},
		{"patch", "rollouts.argoproj.io/scale", "team-a", "no"},
		{"patch", "replicasets.apps", "team-a", "no"},
		{"patch", "analysisruns.argoproj.io", "team-a", "no"},
	}
	check(append(append(read, never...), can{"patch", "rollouts.argoproj.io", "team-a", "no"}, can{"patch", "rollouts.argoproj.io/status", "team-a", "no"}))

	applyDashboard(t, "dashboard-actions")
	check(append(append(read, never...), can{"patch", "rollouts.argoproj.io", "team-a", "yes"}, can{"patch", "rollouts.argoproj.io/status", "team-a", "yes"}))
	out, _, err := kubectl(t, "", "-n", "ramp-system", "get", "deployment", "ramp-dashboard", "-o",
		`jsonpath={.spec.template.spec.serviceAccountName} {.spec.template.spec.containers[0].args}`)
	if err != nil || !strings.HasPrefix(out, "ramp-dashboard ") {
		t.Fatalf("deployment ramp-dashboard: %q %v", out, err)
	}
	for _, arg := range []string{`"dashboard"`, `"--in-cluster-auth"`, `"--address=0.0.0.0:3100"`, `"--enable-actions"`} {
		if !strings.Contains(out, arg) {
			t.Errorf("the dashboard runs with %s, lacking %s", out, arg)
		}
	}
}

// tokenKubeconfig is the admin kubeconfig's cluster with a bearer token as
// the only credential: what the dashboard's pod has in the cluster.
func tokenKubeconfig(t *testing.T, token string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for k := range cfg.AuthInfos {
		cfg.AuthInfos[k] = &clientcmdapi.AuthInfo{Token: token}
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// saToken is a token of ServiceAccount ns/sa from the TokenRequest API.
func saToken(t *testing.T, ns, sa string) string {
	t.Helper()
	out, stderr, err := kubectl(t, "", "-n", ns, "create", "token", sa, "--duration=1h")
	if err != nil {
		t.Fatalf("token for %s/%s: %v\n%s", ns, sa, err, stderr)
	}
	return strings.TrimSpace(out)
}

// dashUser talks to the dashboard's API as a proxy would for one user:
// Authorization: Bearer on every request, the session cookie and CSRF
// token for POSTs.
type dashUser struct {
	t           *testing.T
	base, token string
	hc          *http.Client
	csrf        string
}

func newDashUser(t *testing.T, base, token string) *dashUser {
	jar, _ := cookiejar.New(nil)
	return &dashUser{t: t, base: base, token: token, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

func (u *dashUser) do(method, path, body string) (int, string) {
	u.t.Helper()
	req, err := http.NewRequest(method, u.base+path, strings.NewReader(body))
	if err != nil {
		u.t.Fatal(err)
	}
	if u.token != "" {
		req.Header.Set("Authorization", "Bearer "+u.token)
	}
	req.Header.Set("Origin", u.base)
	req.Header.Set("Content-Type", "application/json")
	if u.csrf != "" {
		req.Header.Set("X-CSRF-Token", u.csrf)
	}
	resp, err := u.hc.Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// act starts a session and sends verb on the rollout at version rv ("":
// the version the dashboard shows now).
func (u *dashUser) act(ns, name, verb, rv string) (int, string) {
	u.t.Helper()
	code, body := u.do("GET", "/api/session", "")
	if _, tok, ok := strings.Cut(body, `"csrfToken":"`); code == 200 && ok {
		u.csrf, _, _ = strings.Cut(tok, `"`)
	} else {
		u.t.Fatalf("session: %d %s", code, body)
	}
	if rv == "" {
		code, body = u.do("GET", "/api/rollouts/"+ns+"/"+name, "")
		_, rv, _ = strings.Cut(body, `"resourceVersion":"`)
		rv, _, _ = strings.Cut(rv, `"`)
		if code != 200 || rv == "" {
			u.t.Fatalf("detail %s/%s: %d %s", ns, name, code, body)
		}
	}
	return u.do("POST", "/api/rollouts/"+ns+"/"+name+"/"+verb, fmt.Sprintf(`{"resourceVersion":%q}`, rv))
}

// usersRBAC: viewer (and leaver) may read in namespace %[1]s, operator
// may also patch rollouts and their status there; nobody may anything in
// another namespace.
const usersRBAC = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: rollout-viewer, namespace: %[1]s}
rules:
- {apiGroups: [argoproj.io], resources: [rollouts, analysisruns, experiments], verbs: [get, list, watch]}
- {apiGroups: [apps], resources: [replicasets], verbs: [get, list, watch]}
- {apiGroups: [""], resources: [pods, events], verbs: [get, list, watch]}
- {apiGroups: [autoscaling], resources: [horizontalpodautoscalers], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: rollout-operator, namespace: %[1]s}
rules:
- {apiGroups: [argoproj.io], resources: [rollouts, rollouts/status], verbs: [patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rollout-viewer, namespace: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: rollout-viewer}
subjects:
- {kind: ServiceAccount, name: viewer, namespace: %[1]s}
- {kind: ServiceAccount, name: operator, namespace: %[1]s}
- {kind: ServiceAccount, name: leaver, namespace: %[1]s}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rollout-operator, namespace: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: rollout-operator}
subjects:
- {kind: ServiceAccount, name: operator, namespace: %[1]s}
`

// TestDashboardInCluster: the real `ramp dashboard --in-cluster-auth
// --enable-actions` running as the ServiceAccount of config/dashboard-actions
// (its own token from the TokenRequest API), used by ServiceAccounts with
// real tokens. No token, an invalid token, or the token of a deleted
// ServiceAccount: 401. The viewer lists namespace A only (B's rollout is
// not listed; opening it is 403, the same answer as for a rollout that does
// not exist there), a missing rollout in A is 404, and the viewer's promote
// is 403 with nothing changed; the operator's stale action is 409 and its
// promote moves the rollout past the pause.
func TestDashboardInCluster(t *testing.T) {
	t.Parallel()
	applyDashboard(t, "dashboard-actions")
	const name = "rollouts-demo"
	a, b := namespace(t, "dash-a"), namespace(t, "dash-b")
	for _, ns := range []string{a, b} {
		if _, stderr, err := kubectl(t, "", "apply", "--server-side", "-n", ns, "-f", "testdata/seeds/003-rollouts-demo.yaml"); err != nil {
			t.Fatalf("apply: %v\n%s", err, stderr)
		}
	}
	for _, sa := range []string{"viewer", "operator", "leaver", "gone"} {
		if _, stderr, err := kubectl(t, "", "-n", a, "create", "serviceaccount", sa); err != nil {
			t.Fatalf("serviceaccount %s: %v\n%s", sa, err, stderr)
		}
	}
	if _, stderr, err := kubectl(t, fmt.Sprintf(usersRBAC, a), "apply", "-f", "-"); err != nil {
		t.Fatalf("users' RBAC: %v\n%s", err, stderr)
	}
	waitHealthy(t, a, name, "", 5)
	mustRamp(t, a, "set", "image", name, "rollouts-demo=argoproj/rollouts-demo:yellow")
	waitRollout(t, a, name, time.Minute, "paused on step 1", pausedAt(1))

	base := startDashboardAs(t, tokenKubeconfig(t, saToken(t, "ramp-system", "ramp-dashboard")), "--in-cluster-auth", "--enable-actions")
	if code, body := newDashUser(t, base, "").do("GET", "/api/rollouts", ""); code != 401 || !strings.Contains(body, "not signed in") {
		t.Errorf("no token: %d %s", code, body)
	}
	if code, body := newDashUser(t, base, "not-a-token").do("GET", "/api/rollouts", ""); code != 401 || !strings.Contains(body, "not valid") {
		t.Errorf("an invalid token: %d %s", code, body)
	}
	gone := newDashUser(t, base, saToken(t, a, "gone"))
	if code, body := gone.do("GET", "/api/session", ""); code != 200 || !strings.Contains(body, "system:serviceaccount:"+a+":gone") {
		t.Fatalf("gone's session before the deletion: %d %s", code, body)
	}
	if _, stderr, err := kubectl(t, "", "-n", a, "delete", "serviceaccount", "gone"); err != nil {
		t.Fatalf("delete serviceaccount gone: %v\n%s", err, stderr)
	}
	eventually(t, 30*time.Second, "the token of a deleted ServiceAccount is refused", func() error {
		if code, body := gone.do("GET", "/api/session", ""); code != 401 {
			return fmt.Errorf("%d %s", code, body)
		}
		return nil
	})

	viewer := newDashUser(t, base, saToken(t, a, "viewer"))
	code, list := viewer.do("GET", "/api/rollouts", "")
	if code != 200 || !strings.Contains(list, `"namespace":"`+a+`"`) || strings.Contains(list, b) {
		t.Errorf("viewer's list: %d %s; want %s only, never %s", code, list, a, b)
	}
	c1, inB := viewer.do("GET", "/api/rollouts/"+b+"/"+name, "")
	c2, missingB := viewer.do("GET", "/api/rollouts/"+b+"/nothing", "")
	if c1 != 403 || c2 != 403 || inB != missingB {
		t.Errorf("viewer opens %s/%s: %d %s; %s/nothing: %d %s; want the same 403", b, name, c1, inB, b, c2, missingB)
	}
	if code, body := viewer.do("GET", "/api/rollouts/"+a+"/nothing", ""); code != 404 || !strings.Contains(body, "not found") {
		t.Errorf("viewer opens %s/nothing: %d %s", a, code, body)
	}
	if code, body := viewer.act(a, name, "promote", ""); code != 403 || !strings.Contains(body, "cannot patch rollouts.argoproj.io") {
		t.Errorf("viewer's promote: %d %s", code, body)
	}
	waitRollout(t, a, name, 5*time.Second, "still paused on step 1 after the refused promote", pausedAt(1))

	operator := newDashUser(t, base, saToken(t, a, "operator"))
	if code, body := operator.act(a, name, "promote", "1"); code != 409 || !strings.Contains(body, "changed since you loaded it") {
		t.Errorf("operator's promote on a stale version: %d %s", code, body)
	}
	waitRollout(t, a, name, 5*time.Second, "still paused on step 1 after the conflict", pausedAt(1))
	if code, body := operator.act(a, name, "promote", ""); code != 200 {
		t.Fatalf("operator's promote: %d %s", code, body)
	}
	waitRollout(t, a, name, time.Minute, "past step 1", func(ro *rampv1.Rollout) error {
		if ro.Status.CurrentStepIndex == nil || *ro.Status.CurrentStepIndex < 2 {
			return fmt.Errorf("step %s", stepString(ro.Status.CurrentStepIndex))
		}
		return nil
	})

	signInInBrowser(t, base, a, b, name)
}
