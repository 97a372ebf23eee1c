package dashboard

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// BenchmarkListRollouts1000: GET /api/rollouts over 1,000 rollouts in 50
// namespaces (the fake client stands in for the cache; both copy).
func BenchmarkListRollouts1000(b *testing.B) {
	c := fake.NewClientBuilder().WithScheme(scheme(b)).WithObjects(fleet(1000)...).Build()
	s, err := New(Config{Reader: c, Authn: Local{}, Log: logr.Discard()})
	if err != nil {
		b.Fatal(err)
	}
	var size int
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", "/api/rollouts", nil))
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
		size = w.Body.Len()
	}
	b.ReportMetric(float64(size)/1024, "KiB/answer")
}

// BenchmarkHubFlush20Browsers: one flush of 1,000 changed rollouts to 20
// subscribers (rendering excluded: a fixed message).
func BenchmarkHubFlush20Browsers(b *testing.B) {
	var renders atomic.Int32
	h := NewHub(counting(&renders), 1000)
	subs := make([]*Subscriber, 20)
	for i := range subs {
		subs[i] = h.Subscribe()
	}
	for b.Loop() {
		for i := range 1000 {
			h.Changed(key("ns", fmt.Sprint(i)))
		}
		h.Flush()
		for _, s := range subs {
			for range 1000 {
				<-s.C
			}
		}
	}
	if h.Dropped() != 0 {
		b.Errorf("%d subscribers dropped", h.Dropped())
	}
}

// fleet is n copies of the paused canary of world(), ro-0000 to ro-NNNN,
// in 50 namespaces.
func fleet(n int) []client.Object {
	var objs []client.Object
	base := world()[0].(*rampv1.Rollout)
	for i := range n {
		ro := base.DeepCopy()
		ro.ObjectMeta = metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%02d", i%50), Name: fmt.Sprintf("ro-%04d", i),
			CreationTimestamp: base.CreationTimestamp}
		objs = append(objs, ro)
	}
	return objs
}
