package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/action"
)

// rvOf is the resourceVersion of shop/web now.
func rvOf(t *testing.T, c client.Client) string {
	t.Helper()
	var ro rampv1.Rollout
	if err := c.Get(t.Context(), types.NamespacedName{Namespace: "shop", Name: "web"}, &ro); err != nil {
		t.Fatal(err)
	}
	return ro.ResourceVersion
}

func actBody(rv string, extra string) string {
	return fmt.Sprintf(`{"resourceVersion":%q%s}`, rv, extra)
}

// withoutPrecondition strips the resourceVersion precondition the
// dashboard adds, leaving what the CLI sends.
func withoutPrecondition(t *testing.T, s sent) string {
	t.Helper()
	if s.Type == string(types.JSONPatchType) {
		var ops []json.RawMessage
		if err := json.Unmarshal([]byte(s.Body), &ops); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(ops[0]), `"/metadata/resourceVersion"`) {
			t.Fatalf("JSON patch %s without a precondition first", s.Body)
		}
		b, _ := json.Marshal(ops[1:])
		return string(b)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s.Body), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["metadata"]; !ok {
		t.Fatalf("merge patch %s without a precondition", s.Body)
	}
	delete(m, "metadata")
	b, _ := json.Marshal(m)
	return string(b)
}

// TestActionsSendTheCLIPatches: each action sends the body the CLI sends
// (internal/action, the Argo Rollouts plugin's literal bodies), the first
// conditional on the version decided on, to the right subresource.
func TestActionsSendTheCLIPatches(t *testing.T) {
	ro := func() *rampv1.Rollout {
		var ro rampv1.Rollout
		for _, o := range world() {
			if r, ok := o.(*rampv1.Rollout); ok && r.Name == "web" {
				ro = *r
			}
		}
		return &ro
	}
	promote, _ := action.Promote(ro(), false)
	img, _ := action.SetImage(ro(), []string{"app=web:3"})
	for _, tc := range []struct {
		verb, extra string
		want        []action.Patch
	}{
		{"promote", "", promote},
		{"promote-full", "", []action.Patch{{Type: types.MergePatchType, Body: `{"status":{"promoteFull":true}}`, Status: true}}},
		{"abort", "", []action.Patch{{Type: types.MergePatchType, Body: `{"status":{"abort":true}}`, Status: true}}},
		{"retry", "", []action.Patch{{Type: types.MergePatchType, Body: `{"status":{"abort":false}}`, Status: true}}},
		{"pause", "", []action.Patch{{Type: types.MergePatchType, Body: `{"spec":{"paused":true}}`}}},
		{"resume", "", []action.Patch{{Type: types.MergePatchType, Body: `{"spec":{"paused":false}}`}}},
		{"restart", "", []action.Patch{action.Restart(now)}},
		{"set-image", `,"images":["app=web:3"]`, []action.Patch{img}},
		{"undo", `,"revision":1`, nil},
	} {
		rec := &recorder{}
		c := fakeClient(t, rec, nil)
		s := testServer(t, Config{Reader: c, Writer: c, Actions: true})
		w := do(t, s, "POST", "/api/rollouts/shop/web/"+tc.verb, actBody(rvOf(t, c), tc.extra), session(t, s))
		got := rec.sent()
		if w.Code != http.StatusOK || len(got) == 0 {
			t.Errorf("%s: %d %s, %d patches", tc.verb, w.Code, w.Body, len(got))
			continue
		}
		if tc.verb == "undo" {
			if body := withoutPrecondition(t, got[0]); !strings.Contains(body, `"image":"web:1"`) || got[0].Status {
				t.Errorf("undo sent %s", body)
			}
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d patches, want %d", tc.verb, len(got), len(tc.want))
			continue
		}
		for i, p := range tc.want {
			body := got[i].Body
			if i == 0 {
				body = withoutPrecondition(t, got[i])
			}
			if body != p.Body || got[i].Status != p.Status || got[i].Type != string(p.Type) {
				t.Errorf("%s patch %d: %+v (%s), want %+v", tc.verb, i, got[i], body, p)
			}
		}
	}
}

// TestActionRefusals: without the CSRF token or from another origin, with
// actions off, or when the state allows nothing, nothing is sent.
func TestActionRefusals(t *testing.T) {
	rec := &recorder{}
	c := fakeClient(t, rec, nil)
	on := testServer(t, Config{Reader: c, Writer: c, Actions: true})
	off := testServer(t, Config{Reader: c, Writer: c})
	good := session(t, on)
	with := func(h http.Header, k, v string) http.Header {
		h = h.Clone()
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
		return h
	}
	body := actBody(rvOf(t, c), "")
	for _, tc := range []struct {
		name   string
		s      *Server
		target string
		h      http.Header
		body   string
		code   int
		msg    string
	}{
		{"no token", on, "abort", with(good, csrfHeader, ""), body, 403, "X-CSRF-Token"},
		{"wrong token", on, "abort", with(good, csrfHeader, "00"), body, 403, "X-CSRF-Token"},
		{"no session", on, "abort", with(good, "Cookie", ""), body, 403, "no session"},
		{"other origin", on, "abort", with(good, "Origin", "https://evil.example"), body, 403, "another origin"},
		{"cross-site fetch", on, "abort", with(good, "Sec-Fetch-Site", "cross-site"), body, 403, "cross-site"},
		{"read-only", off, "abort", session(t, off), body, 403, "read-only"},
		{"unknown action", on, "explode", good, body, 404, "unknown action"},
		{"no resourceVersion", on, "abort", good, `{}`, 400, "resourceVersion is required"},
		{"nothing to promote fully", on, "undo", good, actBody(rvOf(t, c), `,"revision":9`), 422, "no revision 9"},
	} {
		w := do(t, tc.s, "POST", "/api/rollouts/shop/web/"+tc.target, tc.body, tc.h)
		if e := decode[apiError](t, w); w.Code != tc.code || !strings.Contains(e.Error, tc.msg) {
			t.Errorf("%s: %d %q, want %d %q", tc.name, w.Code, e.Error, tc.code, tc.msg)
		}
	}
	if n := len(rec.sent()); n != 0 {
		t.Errorf("%d patches sent by refused requests", n)
	}
}

// TestActionConflict: a stale resourceVersion, or a change that lands
// between the read and the patch, is 409 and changes nothing.
func TestActionConflict(t *testing.T) {
	rec := &recorder{}
	c := fakeClient(t, rec, nil)
	s := testServer(t, Config{Reader: c, Writer: c, Actions: true})
	w := do(t, s, "POST", "/api/rollouts/shop/web/pause", actBody("1", ""), session(t, s))
	if e := decode[apiError](t, w); w.Code != http.StatusConflict || !strings.Contains(e.Error, "changed since you loaded it") || len(rec.sent()) != 0 {
		t.Errorf("stale version: %d %q, %d patches", w.Code, e.Error, len(rec.sent()))
	}

	rec = &recorder{}
	c2 := fakeClient(t, rec, func(ctx context.Context, cl client.WithWatch) {
		// Someone else changes the rollout just before our patch lands.
		var ro rampv1.Rollout
		if err := cl.Get(ctx, types.NamespacedName{Namespace: "shop", Name: "web"}, &ro); err == nil {
			ro.Labels = map[string]string{"touched": "yes"}
			_ = cl.Update(ctx, &ro) // a failure shows below as no conflict
		}
	})
	s = testServer(t, Config{Reader: c2, Writer: c2, Actions: true})
	w = do(t, s, "POST", "/api/rollouts/shop/web/pause", actBody(rvOf(t, c2), ""), session(t, s))
	var ro rampv1.Rollout
	if err := c2.Get(t.Context(), types.NamespacedName{Namespace: "shop", Name: "web"}, &ro); err != nil {
		t.Fatal(err)
	}
	if e := decode[apiError](t, w); w.Code != http.StatusConflict || !strings.Contains(e.Error, "was not applied") || ro.Spec.Paused || ro.Labels["touched"] != "yes" {
		t.Errorf("concurrent change: %d %q, paused %v, labels %v", w.Code, e.Error, ro.Spec.Paused, ro.Labels)
	}
}

// TestActionNeedsSubjectAccess: in-cluster, alice may read shop but not
// patch rollouts/status: abort is 403 and nothing is sent; with the right
// she aborts.
func TestActionNeedsSubjectAccess(t *testing.T) {
	rec := &recorder{}
	c := fakeClient(t, rec, nil)
	cl := newCluster("get rollouts shop", "patch rollouts shop")
	s := testServer(t, cl.inCluster(Config{Reader: c, Writer: c, Actions: true}, time.Now))
	h := session(t, withBearer(s))
	h.Set("Authorization", "Bearer alice")
	w := do(t, s, "POST", "/api/rollouts/shop/web/abort", actBody(rvOf(t, c), ""), h)
	if e := decode[apiError](t, w); w.Code != http.StatusForbidden || !strings.Contains(e.Error, "alice cannot patch rollouts.argoproj.io/status") || len(rec.sent()) != 0 {
		t.Errorf("abort without patch rollouts/status: %d %q, %d patches", w.Code, e.Error, len(rec.sent()))
	}
	cl.mu.Lock()
	cl.rules["patch rollouts/status shop"] = true
	cl.mu.Unlock()
	s = testServer(t, cl.inCluster(Config{Reader: c, Writer: c, Actions: true}, time.Now)) // a fresh decision cache
	h = session(t, withBearer(s))
	h.Set("Authorization", "Bearer alice")
	if w := do(t, s, "POST", "/api/rollouts/shop/web/abort", actBody(rvOf(t, c), ""), h); w.Code != http.StatusOK || len(rec.sent()) != 1 {
		t.Errorf("abort with the right: %d %s, %d patches", w.Code, w.Body, len(rec.sent()))
	}
}

// withBearer is h with alice's token on every request.
func withBearer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Authorization", "Bearer alice")
		h.ServeHTTP(w, r)
	})
}

// TestDetailSaysRefusedActions: in-cluster, the rollout page's answer says
// which actions the user may not take and why (the access refused), so
// the page disables them: alice may patch the rollout but not its status,
// nor list ReplicaSets, so promote (at a pause: a status patch), promote
// --full, abort, retry and undo are refused, and pause, resume, restart and
// set image are not. Locally nothing is refused (the API server judges).
func TestDetailSaysRefusedActions(t *testing.T) {
	c := fakeClient(t, &recorder{}, nil)
	cl := newCluster("get rollouts shop", "patch rollouts shop")
	s := testServer(t, cl.inCluster(Config{Reader: c, Writer: c, Actions: true}, time.Now))
	w := do(t, withBearer(s), "GET", "/api/rollouts/shop/web", "", nil)
	if w.Code != http.StatusOK {
		t.Fatalf("detail: %d %s", w.Code, w.Body)
	}
	d := decode[RolloutDetail](t, w)
	status := `you may not patch rollouts.argoproj.io/status in namespace "shop"`
	want := map[string]string{"promote": status, "promote-full": status, "abort": status, "retry": status,
		"undo": `you may not list replicasets.apps in namespace "shop"`}
	if !reflect.DeepEqual(d.Refused, want) {
		t.Errorf("refused actions:\n got %v\nwant %v", d.Refused, want)
	}
	local := testServer(t, Config{Reader: c, Writer: c, Actions: true})
	if d := decode[RolloutDetail](t, do(t, local, "GET", "/api/rollouts/shop/web", "", nil)); d.Refused != nil {
		t.Errorf("local mode refuses %v", d.Refused)
	}
	readOnly := testServer(t, cl.inCluster(Config{Reader: c, Writer: c}, time.Now))
	if d := decode[RolloutDetail](t, do(t, withBearer(readOnly), "GET", "/api/rollouts/shop/web", "", nil)); d.Refused != nil {
		t.Errorf("a read-only dashboard answers refused actions %v", d.Refused)
	}
}
