// Package controllertest builds what the reconcilers' tests share: a fake
// API server (controller-runtime's fake client) over Ramp's scheme, a log of
// every write and Event in order, API errors injected at a chosen write, a
// fake clock and a fake Event recorder. Only tests import it.
package controllertest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Start is the fake clock's first reading.
var Start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Index is a field index the fake client serves (a reconciler lists by it).
type Index struct {
	Object  client.Object
	Field   string
	Extract client.IndexerFunc
}

// Write is one write the reconciler made through the client, or an Event it
// recorded (Verb "event", Kind the reason).
type Write struct {
	Verb, Kind, Namespace, Name string
	Err                         error // the injected error, if this write failed
}

func (w Write) String() string {
	s := w.Verb + " " + w.Kind + " " + w.Namespace + "/" + w.Name
	if w.Err != nil {
		s += " (failed: " + w.Err.Error() + ")"
	}
	return s
}

// Match selects writes, or reads (Verb "get" or "list") to fail: an empty
// field matches anything but a read.
type Match struct{ Verb, Kind string }

func (m Match) matches(w Write) bool {
	read := w.Verb == "get" || w.Verb == "list"
	return (m.Verb == w.Verb || (m.Verb == "" && !read)) && (m.Kind == "" || m.Kind == w.Kind)
}

func (m Match) String() string { return strings.TrimSpace(m.Verb + " " + m.Kind) }

// Env is a fake API with its write log.
type Env struct {
	// Client is what the reconciler uses: API behind the write log and
	// the injected errors. API is the same store without them, for the test's
	// own reads and writes (a simulated ReplicaSet controller, a user).
	Client   client.WithWatch
	API      client.WithWatch
	Scheme   *runtime.Scheme
	Clock    *clocktesting.FakeClock
	Recorder *Recorder

	mu     sync.Mutex
	log    []Write
	faults []*fault
}

type fault struct {
	m    Match
	skip int // matching writes to let through first
	err  error
}

var (
	schemeOnce sync.Once
	scheme     *runtime.Scheme
	schemeErr  error
)

// Scheme is client-go's scheme with Ramp's kinds, built once (a fuzz
// target builds an Env per input).
func Scheme(t testing.TB) *runtime.Scheme {
	schemeOnce.Do(func() {
		scheme = runtime.NewScheme()
		if schemeErr = clientgoscheme.AddToScheme(scheme); schemeErr == nil {
			schemeErr = rampv1.AddToScheme(scheme)
		}
	})
	if schemeErr != nil {
		t.Fatal(schemeErr)
	}
	return scheme
}

// New is a fake API holding objs, serving the field indexes and a status
// subresource for Rollouts (the only kind of the five that has one).
func New(t testing.TB, indexes []Index, objs ...client.Object) *Env {
	e := &Env{Scheme: Scheme(t), Clock: clocktesting.NewFakeClock(Start)}
	e.Recorder = &Recorder{FakeRecorder: events.NewFakeRecorder(256), env: e}
	b := fake.NewClientBuilder().WithScheme(e.Scheme).WithObjects(objs...).WithStatusSubresource(&rampv1.Rollout{})
	for _, ix := range indexes {
		b = b.WithIndex(ix.Object, ix.Field, ix.Extract)
	}
	e.API = b.Build()
	e.Client = interceptor.NewClient(e.API, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := e.read(Write{Verb: "get", Kind: e.kind(obj), Namespace: key.Namespace, Name: key.Name}); err != nil {
				return err
			}
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if err := e.read(Write{Verb: "list", Kind: strings.TrimSuffix(e.kind(list), "List")}); err != nil {
				return err
			}
			return c.List(ctx, list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return e.write("create", obj, func() error { return c.Create(ctx, obj, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return e.write("update", obj, func() error { return c.Update(ctx, obj, opts...) })
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			return e.write("patch", obj, func() error { return c.Patch(ctx, obj, p, opts...) })
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return e.write("delete", obj, func() error { return c.Delete(ctx, obj, opts...) })
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			return e.write("patch "+sub, obj, func() error { return c.SubResource(sub).Patch(ctx, obj, p, opts...) })
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return e.write("update "+sub, obj, func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
		},
	})
	return e
}

// FailAt makes the write matching m after skip others fail with err, once.
func (e *Env) FailAt(m Match, skip int, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults = append(e.faults, &fault{m: m, skip: skip, err: err})
}

// Pending reports whether a fault set with FailAt has not fired yet.
func (e *Env) Pending() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.faults) > 0
}

// Log is every write and Event so far, in order.
func (e *Env) Log() []Write {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Write(nil), e.log...)
}

// Since is the log from index mark (len(Log()) taken earlier) on.
func (e *Env) Since(mark int) []Write { return e.Log()[mark:] }

func (e *Env) kind(obj runtime.Object) string {
	gvk, err := apiutil.GVKForObject(obj, e.Scheme)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return gvk.Kind
}

func (e *Env) write(verb string, obj client.Object, do func() error) error {
	w := Write{Verb: verb, Kind: e.kind(obj), Namespace: obj.GetNamespace(), Name: obj.GetName()}
	e.mu.Lock()
	w.Err = e.fault(w)
	e.log = append(e.log, w)
	e.mu.Unlock()
	if w.Err != nil {
		return w.Err
	}
	return do()
}

// read is the injected error of a read (get, list), if any; reads are not logged.
func (e *Env) read(w Write) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fault(w)
}

// fault fires the first fault that matches w (e.mu held).
func (e *Env) fault(w Write) error {
	for i, f := range e.faults {
		if !f.m.matches(w) {
			continue
		}
		if f.skip > 0 {
			f.skip--
			continue
		}
		e.faults = append(e.faults[:i], e.faults[i+1:]...)
		return f.err
	}
	return nil
}

// Recorder is client-go's FakeRecorder that also logs each Event in the
// Env's write log, in order with the writes.
type Recorder struct {
	*events.FakeRecorder
	env *Env
}

// Eventf logs the Event and hands it to the FakeRecorder (whose buffer is
// drained when full, so a test never blocks on it).
func (r *Recorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	ns, name := "", ""
	if o, ok := regarding.(client.Object); ok {
		ns, name = o.GetNamespace(), o.GetName()
	}
	r.env.mu.Lock()
	r.env.log = append(r.env.log, Write{Verb: "event", Kind: reason, Namespace: ns, Name: name})
	r.env.mu.Unlock()
	for len(r.Events) == cap(r.Events) {
		<-r.Events
	}
	r.FakeRecorder.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

// Errors are the API errors injected at each write: a conflict, a 500 and
// a timeout.
func Errors() map[string]error {
	gr := schema.GroupResource{Group: "test", Resource: "objects"}
	return map[string]error{
		"conflict": apierrors.NewConflict(gr, "x", fmt.Errorf("the object has been modified")),
		"500":      apierrors.NewInternalError(fmt.Errorf("etcd is down")),
		"timeout":  apierrors.NewTimeoutError("request timed out", 1),
	}
}

// ReadyReplicaSets plays the ReplicaSet controller and the kubelet at once:
// every ReplicaSet's status reports its spec's pods, all ready and
// available (no pods are made).
func (e *Env) ReadyReplicaSets(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	var rss appsv1.ReplicaSetList
	if err := e.API.List(ctx, &rss); err != nil {
		t.Fatal(err)
	}
	for i := range rss.Items {
		rs := &rss.Items[i]
		n := int32(1)
		if rs.Spec.Replicas != nil {
			n = *rs.Spec.Replicas
		}
		if rs.Status.Replicas == n && rs.Status.AvailableReplicas == n && rs.Status.ReadyReplicas == n {
			continue
		}
		rs.Status = appsv1.ReplicaSetStatus{Replicas: n, ReadyReplicas: n, AvailableReplicas: n, FullyLabeledReplicas: n, ObservedGeneration: rs.Generation}
		if err := e.API.Status().Update(ctx, rs); err != nil {
			t.Fatal(err)
		}
	}
}
