package objects_test

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// The route object of these tests is a ConfigMap (any kind the scheme
// knows serves): ns/route, data.weight.
var ref = traffic.Ref{GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Namespace: "ns", Name: "route"}

func route(weight string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "route"}, Data: map[string]string{"weight": weight}}
}

func setWeight(w string) func(*unstructured.Unstructured) error {
	return func(u *unstructured.Unstructured) error {
		return unstructured.SetNestedField(u.Object, w, "data", "weight")
	}
}

var note = traffic.Wrote("WeightUpdated", "weight set")

// TestGet: a route object is read; a missing object or a kind the cluster
// does not serve is a ConfigError naming it; another error is returned as
// it is, wrapped with the object's name.
func TestGet(t *testing.T) {
	env := controllertest.New(t, nil, route("0"))
	u, err := objects.Get(context.Background(), env.Client, ref)
	if err != nil || u.GetName() != "route" {
		t.Fatalf("Get: %v, %v", u, err)
	}
	missing := ref
	missing.Name = "gone"
	if _, err := objects.Get(context.Background(), env.Client, missing); !traffic.IsConfigError(err) {
		t.Errorf("missing object: %v, want a ConfigError", err)
	}
	env.FailAt(controllertest.Match{Verb: "get", Kind: "ConfigMap"}, 0, &meta.NoKindMatchError{GroupKind: ref.GVK.GroupKind()})
	if _, err := objects.Get(context.Background(), env.Client, ref); !traffic.IsConfigError(err) {
		t.Errorf("kind not served: %v, want a ConfigError", err)
	}
	timeout := controllertest.Errors()["timeout"]
	env.FailAt(controllertest.Match{Verb: "get", Kind: "ConfigMap"}, 0, timeout)
	if _, err := objects.Get(context.Background(), env.Client, ref); traffic.IsConfigError(err) || !errors.Is(err, timeout) {
		t.Errorf("timeout: %v, want it returned, not a ConfigError", err)
	}
}

// TestSync: an object that already holds what mutate sets is in force and
// not written; otherwise it is updated (field owner ramp-controller, the
// write reported), and reads back in force. A conflict is no error (the
// watch brings a fresh read), another error is returned, and a mutate
// error is a ConfigError; none of these writes or reports anything.
func TestSync(t *testing.T) {
	env := controllertest.New(t, nil, route("0"))
	var reported []traffic.Write
	ctx := traffic.WithWrites(context.Background(), &reported)
	if in, err := objects.Sync(ctx, env.Client, ref, setWeight("0"), note); !in || err != nil || len(env.Log()) != 0 {
		t.Fatalf("unchanged: inForce %v, %v, writes %v; want in force, no write", in, err, env.Log())
	}
	if in, err := objects.Sync(ctx, env.Client, ref, setWeight("20"), note); in || err != nil {
		t.Fatalf("changed: inForce %v, %v; want written, not yet in force", in, err)
	}
	if len(reported) != 1 || reported[0] != note {
		t.Errorf("reported %v, want the note once", reported)
	}
	got := &corev1.ConfigMap{}
	if err := env.API.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "route"}, got); err != nil || got.Data["weight"] != "20" {
		t.Fatalf("stored %v (%v), want weight 20", got.Data, err)
	}
	if in, err := objects.Sync(ctx, env.Client, ref, setWeight("20"), note); !in || err != nil {
		t.Errorf("read back: inForce %v, %v", in, err)
	}
	for name, apiErr := range controllertest.Errors() {
		env.FailAt(controllertest.Match{Verb: "update", Kind: "ConfigMap"}, 0, apiErr)
		in, err := objects.Sync(ctx, env.Client, ref, setWeight("50"), note)
		switch {
		case in:
			t.Errorf("%s: in force after a failed write", name)
		case name == "conflict" && err != nil:
			t.Errorf("conflict: %v, want no error (a fresh read follows)", err)
		case name != "conflict" && !errors.Is(err, apiErr):
			t.Errorf("%s: %v, want the error", name, err)
		}
	}
	if len(reported) != 1 {
		t.Errorf("reported %v after failed writes, want only the first note", reported)
	}
	bad := func(*unstructured.Unstructured) error { return errors.New("no rule for the stable Service") }
	if _, err := objects.Sync(ctx, env.Client, ref, bad, note); !traffic.IsConfigError(err) {
		t.Errorf("mutate error: %v, want a ConfigError", err)
	}
}

// TestEnsure: a missing object is created (and reported), an existing one
// returned as it is; a read or create error is returned.
func TestEnsure(t *testing.T) {
	env := controllertest.New(t, nil)
	var reported []traffic.Write
	ctx := traffic.WithWrites(context.Background(), &reported)
	obj := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(ref.GVK)
		u.SetNamespace("ns")
		u.SetName("route")
		_ = unstructured.SetNestedField(u.Object, "5", "data", "weight") // a string field always sets
		return u
	}
	if _, created, err := objects.Ensure(ctx, env.Client, obj(), note); !created || err != nil {
		t.Fatalf("missing: created %v, %v", created, err)
	}
	cur, created, err := objects.Ensure(ctx, env.Client, obj(), note)
	if created || err != nil || cur.GetName() != "route" {
		t.Fatalf("existing: %v created %v, %v", cur, created, err)
	}
	if len(reported) != 1 {
		t.Errorf("reported %v, want the creation once", reported)
	}
	env.FailAt(controllertest.Match{Verb: "get", Kind: "ConfigMap"}, 0, controllertest.Errors()["500"])
	if _, _, err := objects.Ensure(ctx, env.Client, obj(), note); err == nil || traffic.IsConfigError(err) {
		t.Errorf("read error: %v, want it returned", err)
	}
	other := obj()
	other.SetName("other")
	env.FailAt(controllertest.Match{Verb: "create", Kind: "ConfigMap"}, 0, controllertest.Errors()["timeout"])
	if _, created, err := objects.Ensure(ctx, env.Client, other, note); created || err == nil {
		t.Errorf("create error: created %v, %v; want the error", created, err)
	}
}
