package dashboard

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

var now = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// world is a canary paused at its pause step in namespace shop, a second
// rollout in namespace bank, and what belongs to the first.
func world() []client.Object {
	ro := func(ns, name string) *rampv1.Rollout {
		return &rampv1.Rollout{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + ns + "-" + name), CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
			Spec: rampv1.RolloutSpec{
				Replicas: ptr.To[int32](2),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: name + ":2"}}}},
				Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{Steps: []rampv1.CanaryStep{{SetWeight: ptr.To[int32](50)}, {Pause: &rampv1.RolloutPause{}}}}},
			},
			Status: rampv1.RolloutStatus{
				Phase: rampv1.RolloutPhasePaused, Message: "CanaryPauseStep", CurrentStepIndex: ptr.To[int32](1),
				PauseConditions: []rampv1.PauseCondition{{Reason: rampv1.PauseReasonCanaryPauseStep, StartTime: metav1.NewTime(now)}},
				StableRS:        "aaa", CurrentPodHash: "bbb",
			},
		}
	}
	rs := func(hash, rev string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name: "web-" + hash, Namespace: "shop", UID: types.UID("uid-rs-" + hash),
				Labels:          map[string]string{"app": "web", rampv1.DefaultRolloutUniqueLabelKey: hash},
				Annotations:     map[string]string{rampv1.RevisionAnnotation: rev},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web", UID: "uid-shop-web", Controller: ptr.To(true)}},
			},
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1), Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", rampv1.DefaultRolloutUniqueLabelKey: hash}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "web:" + rev}}}}},
		}
	}
	run := &rampv1.AnalysisRun{
		ObjectMeta: metav1.ObjectMeta{Name: "web-bbb-2", Namespace: "shop",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web", UID: "uid-shop-web"}}},
		Spec: rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{{Name: "errors", SuccessCondition: "result[0] < 0.05", Interval: "1m"}}},
		Status: rampv1.AnalysisRunStatus{Phase: rampv1.AnalysisPhaseRunning, MetricResults: []rampv1.MetricResult{{
			Name: "errors", Phase: rampv1.AnalysisPhaseRunning, Count: 2,
			Measurements: []rampv1.Measurement{{Phase: "Successful", Value: "[0.01]"}, {Phase: "Successful", Value: "[0.02]", Metadata: map[string]string{"verdict": "pass"}}},
		}}},
	}
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web.1", Namespace: "shop"},
		InvolvedObject: corev1.ObjectReference{Kind: "Rollout", Name: "web", UID: "uid-shop-web"},
		Type:           "Normal", Reason: "RolloutPaused", Message: "Rollout is paused (CanaryPauseStep)", LastTimestamp: metav1.NewTime(now),
	}
	other := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "db.1", Namespace: "shop"},
		InvolvedObject: corev1.ObjectReference{Kind: "Rollout", Name: "db", UID: "uid-shop-db"},
		Reason:         "Other",
	}
	return []client.Object{ro("shop", "web"), ro("bank", "ledger"), rs("aaa", "1"), rs("bbb", "2"), run, ev, other}
}

func scheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := rampv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// sent is one patch the server sent.
type sent struct {
	Status bool
	Type   string
	Body   string
}

// recorder is a fake API server that records the patches it is sent.
type recorder struct {
	mu      sync.Mutex
	patches []sent
}

func (r *recorder) sent() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sent(nil), r.patches...)
}

func fakeClient(t *testing.T, rec *recorder, beforePatch func(context.Context, client.WithWatch)) client.WithWatch {
	t.Helper()
	return fakeClientOf(t, rec, beforePatch, world())
}

// fakeClientOf is fakeClient over objs.
func fakeClientOf(t *testing.T, rec *recorder, beforePatch func(context.Context, client.WithWatch), objs []client.Object) client.WithWatch {
	t.Helper()
	record := func(status bool, p client.Patch, obj client.Object) error {
		b, err := p.Data(obj)
		rec.mu.Lock()
		rec.patches = append(rec.patches, sent{status, string(p.Type()), string(b)})
		rec.mu.Unlock()
		return err
	}
	c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(objs...).
		WithStatusSubresource(&rampv1.Rollout{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Patch: func(ctx context.Context, cl client.WithWatch, obj client.Object, p client.Patch, o ...client.PatchOption) error {
				if err := record(false, p, obj); err != nil {
					return err
				}
				if beforePatch != nil {
					beforePatch(ctx, cl)
				}
				return cl.Patch(ctx, obj, p, o...)
			},
			SubResourcePatch: func(ctx context.Context, cl client.Client, sub string, obj client.Object, p client.Patch, o ...client.SubResourcePatchOption) error {
				if err := record(true, p, obj); err != nil {
					return err
				}
				return cl.SubResource(sub).Patch(ctx, obj, p, o...)
			},
		}).Build()
	return c
}

// testServer is a local-mode server over the fake world.
func testServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	if cfg.Authn == nil {
		cfg.Authn = Local{Name: "me"}
	}
	cfg.Now = func() time.Time { return now }
	cfg.Log = logr.Discard()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// do sends one request to h and returns the response.
func do(t *testing.T, h http.Handler, method, target string, body string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	for k, vs := range header {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	b, _ := io.ReadAll(w.Body)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("answer %d %q: %v", w.Code, b, err)
	}
	return v
}

// session starts a session and returns the headers a same-origin POST
// carries.
func session(t *testing.T, h http.Handler) http.Header {
	t.Helper()
	w := do(t, h, "GET", "/api/session", "", nil)
	if w.Code != http.StatusOK {
		t.Fatalf("GET /api/session = %d %s", w.Code, w.Body)
	}
	tok := decode[map[string]any](t, w)["csrfToken"].(string)
	cookie := w.Result().Cookies()[0]
	out := http.Header{}
	out.Set("Cookie", cookie.Name+"="+cookie.Value)
	out.Set(csrfHeader, tok)
	out.Set("Origin", "http://example.com") // httptest's Host
	out.Set("Content-Type", "application/json")
	return out
}
