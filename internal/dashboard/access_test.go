package dashboard

import (
	"net/http"
	"strings"
	"testing"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/types"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// reviewed is a SubjectAccessReview as "verb resource/sub namespace/name".
func reviewed(ra authzv1.ResourceAttributes) string {
	r := ra.Resource
	if ra.Subresource != "" {
		r += "/" + ra.Subresource
	}
	return ra.Verb + " " + r + " " + ra.Namespace + "/" + ra.Name
}

// TestActionSubjectAccessPerPatch: each action asks, before anything is
// sent, exactly for the verb, resource and subresource of each patch it
// sends, on that rollout by name (so RBAC with resourceNames is honoured):
// status patches (promote at a pause step, abort, retry, promote-full)
// need patch rollouts/status; spec patches patch rollouts; promote of a
// paused (spec.paused) rollout needs both, and is refused whole without
// either.
func TestActionSubjectAccessPerPatch(t *testing.T) {
	const get, spec, status = "get rollouts shop/web", "patch rollouts shop/web", "patch rollouts/status shop/web"
	for _, tc := range []struct {
		verb, extra string
		paused      bool
		want        []string
	}{
		{"promote", "", false, []string{get, status}},
		{"promote", "", true, []string{get, spec, status}},
		{"promote-full", "", false, []string{get, status}},
		{"abort", "", false, []string{get, status}},
		{"retry", "", false, []string{get, status}},
		{"pause", "", false, []string{get, spec}},
		{"resume", "", false, []string{get, spec}},
		{"restart", "", false, []string{get, spec}},
		{"set-image", `,"images":["app=web:3"]`, false, []string{get, spec}},
		{"undo", `,"revision":1`, false, []string{get, "list replicasets shop/", spec}},
	} {
		rec := &recorder{}
		c := fakeClient(t, rec, nil)
		if tc.paused {
			var ro rampv1.Rollout
			if err := c.Get(t.Context(), types.NamespacedName{Namespace: "shop", Name: "web"}, &ro); err != nil {
				t.Fatal(err)
			}
			ro.Spec.Paused = true
			if err := c.Update(t.Context(), &ro); err != nil {
				t.Fatal(err)
			}
		}
		cl := newCluster("get rollouts shop", "patch rollouts shop", "patch rollouts/status shop", "list replicasets shop")
		s := testServer(t, cl.inCluster(Config{Reader: c, Writer: c, Actions: true}, time.Now))
		h := session(t, withBearer(s))
		h.Set("Authorization", "Bearer alice")
		before := cl.reviewCount()
		if w := do(t, s, "POST", "/api/rollouts/shop/web/"+tc.verb, actBody(rvOf(t, c), tc.extra), h); w.Code != http.StatusOK {
			t.Errorf("%s: %d %s", tc.verb, w.Code, w.Body)
			continue
		}
		cl.mu.Lock()
		var got []string
		for _, ra := range cl.reviews[before:] {
			got = append(got, reviewed(ra))
		}
		cl.mu.Unlock()
		if strings.Join(got, "; ") != strings.Join(tc.want, "; ") || len(rec.sent()) != len(tc.want)-1-strings.Count(strings.Join(tc.want, ";"), "list") {
			t.Errorf("%s (paused %v): reviewed %q, want %q; %d patches", tc.verb, tc.paused, got, tc.want, len(rec.sent()))
		}
		if tc.paused { // without patch rollouts/status, nothing at all is sent
			cl.mu.Lock()
			delete(cl.rules, "patch rollouts/status shop")
			cl.mu.Unlock()
			rec = &recorder{}
			c = fakeClient(t, rec, nil)
			ro := &rampv1.Rollout{}
			_ = c.Get(t.Context(), types.NamespacedName{Namespace: "shop", Name: "web"}, ro)
			ro.Spec.Paused = true
			_ = c.Update(t.Context(), ro)
			s = testServer(t, cl.inCluster(Config{Reader: c, Writer: c, Actions: true}, time.Now))
			h = session(t, withBearer(s))
			h.Set("Authorization", "Bearer alice")
			if w := do(t, s, "POST", "/api/rollouts/shop/web/promote", actBody(rvOf(t, c), ""), h); w.Code != http.StatusForbidden || len(rec.sent()) != 0 {
				t.Errorf("promote of a paused rollout without patch rollouts/status: %d %s, %d patches sent", w.Code, w.Body, len(rec.sent()))
			}
		}
	}
}

// TestForbiddenDoesNotTellExistence: in a namespace where the user may not
// get rollouts, an existing rollout and a missing one get the same 403
// (the existence is not leaked), and the list leaves the namespace out;
// where the user may, a missing rollout is a plain 404.
func TestForbiddenDoesNotTellExistence(t *testing.T) {
	c := newCluster("list rollouts shop", "get rollouts shop")
	s := testServer(t, c.inCluster(Config{Reader: fakeClient(t, &recorder{}, nil)}, time.Now))
	exists := do(t, s, "GET", "/api/rollouts/bank/ledger", "", bearerAlice)
	missing := do(t, s, "GET", "/api/rollouts/bank/nothing", "", bearerAlice)
	if exists.Code != 403 || missing.Code != 403 || exists.Body.String() != missing.Body.String() {
		t.Errorf("bank/ledger %d %s; bank/nothing %d %s: want the same 403", exists.Code, exists.Body, missing.Code, missing.Body)
	}
	if l := decode[RolloutList](t, do(t, s, "GET", "/api/rollouts", "", bearerAlice)); len(l.Items) != 1 || l.Items[0].Namespace != "shop" {
		t.Errorf("list %+v, want shop only", l.Items)
	}
	w := do(t, s, "GET", "/api/rollouts/shop/nothing", "", bearerAlice)
	if e := decode[apiError](t, w); w.Code != 404 || e.Error != `rollout "shop/nothing" not found (deleted, or never created)` {
		t.Errorf("shop/nothing: %d %q", w.Code, e.Error)
	}
}
