package dashboard

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// counting renders "ns/name" and counts its calls.
func counting(n *atomic.Int32) func(types.NamespacedName) (Message, bool) {
	return func(k types.NamespacedName) (Message, bool) {
		n.Add(1)
		return Message{Namespace: k.Namespace, Data: []byte(k.String())}, true
	}
}

func key(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}

// waitFor polls cond until it holds or 5 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHubCoalescesAndFansOut: a burst of 100 changes to one rollout and
// one to another become two messages, rendered once each, delivered to
// every subscriber.
func TestHubCoalescesAndFansOut(t *testing.T) {
	var renders atomic.Int32
	h := NewHub(counting(&renders), 8)
	a, b := h.Subscribe(), h.Subscribe()
	for range 100 {
		h.Changed(key("shop", "web"))
	}
	h.Changed(key("bank", "ledger"))
	h.Flush()
	if renders.Load() != 2 {
		t.Errorf("%d renders, want 2", renders.Load())
	}
	for i, s := range []*Subscriber{a, b} {
		if len(s.C) != 2 {
			t.Errorf("subscriber %d has %d messages, want 2", i, len(s.C))
		}
	}
	h.Flush()
	if renders.Load() != 2 || len(a.C) != 2 {
		t.Error("a flush with nothing pending sent something")
	}
}

// TestHubDropsSlowSubscriber: a subscriber whose buffer is full is closed
// and removed; the others still get every message.
func TestHubDropsSlowSubscriber(t *testing.T) {
	var renders atomic.Int32
	h := NewHub(counting(&renders), 2)
	slow, fast := h.Subscribe(), h.Subscribe()
	for i := range 5 {
		h.Changed(key("shop", fmt.Sprint(i)))
		h.Flush()
		<-fast.C
	}
	n := 0
	for range slow.C { // closed after the two it buffered
		n++
	}
	if n != 2 || h.Subscribers() != 1 || h.Dropped() != 1 {
		t.Errorf("slow got %d, %d subscribers, %d dropped; want 2, 1, 1", n, h.Subscribers(), h.Dropped())
	}
	h.Unsubscribe(slow) // after the drop: a no-op, no double close
}

// TestHubRunFlushes: Run sends a change without anyone calling Flush, and
// returns when its context ends.
func TestHubRunFlushes(t *testing.T) {
	var renders atomic.Int32
	h := NewHub(counting(&renders), 8)
	s := h.Subscribe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { h.Run(ctx, time.Millisecond); close(done) }()
	h.Changed(key("shop", "web"))
	select {
	case m := <-s.C:
		if string(m.Data) != "shop/web" {
			t.Errorf("message %q", m.Data)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no message from Run")
	}
	cancel()
	<-done
}

// TestRolloutOf: each watched kind maps to the rollout it concerns (an
// HPA to the Rollout it scales, not a Deployment of the same name).
func TestRolloutOf(t *testing.T) {
	owned := metav1.ObjectMeta{Namespace: "shop", OwnerReferences: []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web"}}}
	for i, tc := range []struct {
		obj any
		ok  bool
	}{
		{&rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}, true},
		{&appsv1.ReplicaSet{ObjectMeta: owned}, true},
		{&rampv1.AnalysisRun{ObjectMeta: owned}, true},
		{toolscache.DeletedFinalStateUnknown{Obj: &rampv1.Experiment{ObjectMeta: owned}}, true},
		{&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "shop"}, InvolvedObject: corev1.ObjectReference{Kind: "Rollout", Name: "web"}}, true},
		{&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "shop"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web"}}, false},
		{&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop"}}, false},
		{&corev1.Pod{ObjectMeta: owned}, false},
		{&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "shop"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Rollout", Name: "web"}}}, true},
		{&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "shop"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web"}}}, false},
	} {
		k, ok := rolloutOf(tc.obj)
		if ok != tc.ok || (ok && k != key("shop", "web")) {
			t.Errorf("case %d (%T): %v %v", i, tc.obj, k, ok)
		}
	}
}

// TestEventsStream: a browser gets a "rollout" event with the rollout's
// new row, is not sent rollouts of namespaces it may not list, and its
// stream's goroutine ends when it leaves.
func TestEventsStream(t *testing.T) {
	c := fakeClient(t, &recorder{}, nil)
	hub := NewHub(Render(c), 8)
	cl := newCluster("list rollouts shop")
	s := testServer(t, cl.inCluster(Config{Reader: c, Hub: hub}, time.Now))
	ts := httptest.NewServer(s)
	defer ts.Close()
	before := runtime.NumGoroutine()

	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer alice")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /api/events = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(resp.Body)
	waitFor(t, "the subscription", func() bool { return hub.Subscribers() == 1 })
	hub.Changed(key("bank", "ledger")) // alice may not list bank: filtered out
	hub.Changed(key("shop", "web"))
	hub.Changed(key("shop", "gone")) // deleted
	hub.Flush()
	var got []string
	for len(got) < 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v (got %q)", err, got)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			got = append(got, d)
		}
	}
	all := strings.Join(got, "")
	if strings.Contains(all, "ledger") || !strings.Contains(all, `"name":"web"`) || !strings.Contains(all, `"step":"1/2"`) ||
		!strings.Contains(all, `"name":"gone","deleted":true`) {
		t.Errorf("events %q", got)
	}
	cancel()
	_ = resp.Body.Close()
	waitFor(t, "the subscriber to leave", func() bool { return hub.Subscribers() == 0 })
	waitFor(t, "the stream's goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

// TestHandlerIgnoresUnknownRollouts: an Event, ReplicaSet, AnalysisRun,
// Experiment or HPA that names a Rollout the cache does not hold changes
// nothing on the stream (anyone who may create Events could otherwise fill
// every browser's buffer with "deleted" messages of invented names and get
// the browsers dropped); one about a cached Rollout does, and so does the
// deletion of a Rollout itself.
func TestHandlerIgnoresUnknownRollouts(t *testing.T) {
	var n atomic.Int32
	hub := NewHub(counting(&n), 8)
	h := handler(hub, fakeClient(t, &recorder{}, nil))
	about := func(name string) *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name + ".1"}, InvolvedObject: corev1.ObjectReference{Kind: "Rollout", Name: name}}
	}
	for i := range 100 {
		h.OnAdd(about(fmt.Sprintf("ghost-%d", i)), false)
	}
	h.OnAdd(&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "h"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Rollout", Name: "ghost"}}}, false)
	hub.Flush()
	if got := n.Load(); got != 0 {
		t.Errorf("%d messages rendered for rollouts that do not exist, want 0", got)
	}
	h.OnAdd(about("web"), false)
	h.OnDelete(&rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "gone"}})
	hub.Flush()
	if got := n.Load(); got != 2 {
		t.Errorf("%d messages rendered, want 2 (an Event of web, the deletion of gone)", got)
	}
}
