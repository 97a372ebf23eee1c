package writelog_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ramp-rollouts/ramp/internal/controller/writelog"
)

// Entry is one captured log line: its level ("level"), message ("msg") and
// key/value pairs, as funcr writes them in JSON.
type Entry map[string]any

// Capture is a logger at verbosity v that keeps what it logs.
type Capture struct {
	mu      sync.Mutex
	entries []Entry
}

func (c *Capture) Logger(v int) logr.Logger {
	return funcr.NewJSON(func(obj string) {
		var e Entry
		if err := json.Unmarshal([]byte(obj), &e); err != nil {
			panic(err)
		}
		c.mu.Lock()
		c.entries = append(c.entries, e)
		c.mu.Unlock()
	}, funcr.Options{Verbosity: v})
}

func (c *Capture) Entries() []Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Entry(nil), c.entries...)
}

// find is the first entry with message msg whose values include want.
func find(entries []Entry, msg string, want map[string]any) Entry {
	for _, e := range entries {
		if e["msg"] != msg {
			continue
		}
		ok := true
		for k, v := range want {
			if e[k] != v {
				ok = false
			}
		}
		if ok {
			return e
		}
	}
	return nil
}

func replicaSet(n int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-abc"}, Spec: appsv1.ReplicaSetSpec{Replicas: &n}}
}

// TestEveryWriteIsLogged: create, update, patch, status patch and delete
// are each logged once at V(1) with the kind, the object and what changed.
func TestEveryWriteIsLogged(t *testing.T) {
	api := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).
		WithObjects(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"}, Data: map[string]string{"a": "1"}}).
		WithStatusSubresource(&appsv1.ReplicaSet{}).Build()
	c := writelog.Client(api)
	var logs Capture
	ctx := log.IntoContext(context.Background(), logs.Logger(1))

	rs := replicaSet(3)
	if err := c.Create(ctx, rs); err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(ctx, rs, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":5}}`))); err != nil {
		t.Fatal(err)
	}
	before := rs.DeepCopy()
	rs.Status.Replicas = 5
	if err := c.Status().Patch(ctx, rs, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "cm"}, cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["a"] = "2"
	if err := c.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, rs); err != nil {
		t.Fatal(err)
	}

	got := logs.Entries()
	obj := map[string]any{"name": "web-abc", "namespace": "ns"}
	for _, want := range []struct {
		msg  string
		kv   map[string]any
		more string // a substring of the change
	}{
		{"created object", map[string]any{"kind": "ReplicaSet", "replicas": 3.0}, ""},
		{"patched object", map[string]any{"kind": "ReplicaSet", "patch": `{"spec":{"replicas":5}}`}, ""},
		{"patched object", map[string]any{"kind": "ReplicaSet", "subresource": "status"}, `"replicas":5`},
		{"updated object", map[string]any{"kind": "ConfigMap"}, `{"data":{"a":"2"}}`},
		{"deleted object", map[string]any{"kind": "ReplicaSet"}, ""},
	} {
		e := find(got, want.msg, want.kv)
		if e == nil {
			t.Errorf("no %q entry with %v in\n%v", want.msg, want.kv, got)
			continue
		}
		if e["level"] != 1.0 {
			t.Errorf("%q logged at V(%v), want V(1)", want.msg, e["level"])
		}
		if want.kv["kind"] == "ReplicaSet" && !mapEqual(e["object"], obj) {
			t.Errorf("%q object = %v, want %v", want.msg, e["object"], obj)
		}
		change, _ := e["patch"].(string)
		if s, _ := e["change"].(string); s != "" {
			change = s
		}
		if !strings.Contains(change, want.more) {
			t.Errorf("%q change %q does not contain %q", want.msg, change, want.more)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d entries, want one per write:\n%v", len(got), got)
	}
}

func mapEqual(a any, b map[string]any) bool {
	m, ok := a.(map[string]any)
	if !ok || len(m) != len(b) {
		return false
	}
	for k, v := range b {
		if m[k] != v {
			return false
		}
	}
	return true
}

// TestFailedWriteIsLoggedAtV1: the error goes back to the caller (which
// returns it to controller-runtime, which logs it at V(0)); the wrapper
// logs it at V(1) only.
func TestFailedWriteIsLoggedAtV1(t *testing.T) {
	boom := errors.New("etcd is down")
	api := interceptor.NewClient(fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).Build(), interceptor.Funcs{
		Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
			return boom
		},
	})
	var logs Capture
	ctx := log.IntoContext(context.Background(), logs.Logger(1))
	err := writelog.Client(api).Patch(ctx, replicaSet(1), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":0}}`)))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	e := find(logs.Entries(), "write failed", map[string]any{"verb": "patch", "kind": "ReplicaSet", "error": "etcd is down"})
	if e == nil || e["level"] != 1.0 || e["patch"] != `{"spec":{"replicas":0}}` {
		t.Errorf("entries %v, want one V(1) \"write failed\" with the patch and the error", logs.Entries())
	}
}

// TestNothingAtV0: at the default level the writes log nothing, and no
// patch is computed for the log.
func TestNothingAtV0(t *testing.T) {
	api := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).Build()
	var logs Capture
	ctx := log.IntoContext(context.Background(), logs.Logger(0))
	c := writelog.Client(api)
	rs := replicaSet(1)
	if err := c.Create(ctx, rs); err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(ctx, rs, unreadable{}); err == nil {
		t.Fatal("want the fake client's error for an unreadable patch")
	}
	rec := writelog.Recorder(events.NewFakeRecorder(1), logs.Logger(0))
	rec.Eventf(rs, nil, corev1.EventTypeNormal, "ScalingReplicaSet", "Scale", "Scaled up")
	if got := logs.Entries(); len(got) != 0 {
		t.Errorf("entries at V(0): %v", got)
	}
}

// unreadable is a patch whose data cannot be computed; the log must not
// ask for it at V(0).
type unreadable struct{}

func (unreadable) Type() types.PatchType { return types.MergePatchType }
func (unreadable) Data(client.Object) ([]byte, error) {
	return nil, errors.New("data asked for")
}

// TestEventsAreLogged: each Event goes to the recorder and to the log, at
// V(1), with the object it regards, its type, reason and message.
func TestEventsAreLogged(t *testing.T) {
	fr := events.NewFakeRecorder(1)
	var logs Capture
	rec := writelog.Recorder(fr, logs.Logger(1))
	rec.Eventf(replicaSet(2), nil, corev1.EventTypeNormal, "ScalingReplicaSet", "Scale", "Scaled up ReplicaSet %s to %d", "web-abc", 2)
	if got := <-fr.Events; !strings.Contains(got, "Scaled up ReplicaSet web-abc to 2") {
		t.Errorf("recorder got %q", got)
	}
	e := find(logs.Entries(), "recorded event", map[string]any{"kind": "ReplicaSet", "type": "Normal", "reason": "ScalingReplicaSet",
		"message": "Scaled up ReplicaSet web-abc to 2"})
	if e == nil || e["level"] != 1.0 || !mapEqual(e["object"], map[string]any{"name": "web-abc", "namespace": "ns"}) {
		t.Errorf("entries %v, want one V(1) \"recorded event\"", logs.Entries())
	}
}
