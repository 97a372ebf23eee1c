package metrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		method, url, body string
		want              Request
	}{
		{"GET", "/apis/argoproj.io/v1alpha1/namespaces/ns/rollouts/app", "", Request{"rollouts", "ns", "app", "Get"}},
		{"GET", "/apis/argoproj.io/v1alpha1/namespaces/ns/rollouts", "", Request{"rollouts", "ns", "N/A", "List"}},
		{"GET", "/apis/argoproj.io/v1alpha1/rollouts?watch=true", "", Request{"rollouts", "", "N/A", "Watch"}},
		{"PATCH", "/apis/argoproj.io/v1alpha1/namespaces/ns/rollouts/app/status", "", Request{"rollouts", "ns", "app", "Patch"}},
		{"PUT", "/api/v1/namespaces/ns/services/stable", "", Request{"services", "ns", "stable", "Update"}},
		{"DELETE", "/api/v1/namespaces/ns/pods/p-1", "", Request{"pods", "ns", "p-1", "Delete"}},
		{"PATCH", "/apis/apps/v1/namespaces/ns/replicasets/app-abc", "", Request{"replicasets", "ns", "N/A", "Patch"}},
		{"POST", "/api/v1/namespaces/ns/events", `{"metadata":{"name":"e.1"}}`, Request{"events", "ns", "N/A", "Create"}},
		{"POST", "/apis/argoproj.io/v1alpha1/namespaces/ns/analysisruns", `{"metadata":{"name":"app-1-2"}}`, Request{"analysisruns", "ns", "app-1-2", "Create"}},
		{"POST", "/apis/argoproj.io/v1alpha1/namespaces/ns/analysisruns", `not json`, Request{"analysisruns", "ns", "", "Create"}},
		{"GET", "/version", "", Request{"Unknown", "Unknown", "Unknown", "Unknown"}},
		{"OPTIONS", "/api/v1/namespaces/ns/pods", "", Request{"Unknown", "Unknown", "Unknown", "Unknown"}},
	} {
		r, err := http.NewRequest(c.method, "https://api.example"+c.url, strings.NewReader(c.body)) // a client's request, with GetBody
		if err != nil {
			t.Fatal(err)
		}
		if got := Describe(r); got != c.want {
			t.Errorf("%s %s: %+v, want %+v", c.method, c.url, got, c.want)
		}
	}
}

func TestCountingTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusConflict) }))
	defer srv.Close()
	before := testutil.ToFloat64(requests.WithLabelValues("services", "ns", "x", "Patch", "409"))
	req, err := http.NewRequest(http.MethodPatch, srv.URL+"/api/v1/namespaces/ns/services/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := counting{http.DefaultTransport}.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(requests.WithLabelValues("services", "ns", "x", "Patch", "409")); got != before+1 {
		t.Errorf("counter %v after one request, want %v", got, before+1)
	}
}

func TestRolloutPhase(t *testing.T) {
	cond := func(typ rampv1.RolloutConditionType, reason string) rampv1.RolloutCondition {
		return rampv1.RolloutCondition{Type: typ, Status: corev1.ConditionTrue, Reason: reason}
	}
	for _, c := range []struct {
		conds []rampv1.RolloutCondition
		want  string
	}{
		{nil, "Progressing"},
		{[]rampv1.RolloutCondition{cond(rampv1.RolloutProgressing, "NewReplicaSetAvailable")}, "Completed"},
		{[]rampv1.RolloutCondition{cond(rampv1.RolloutProgressing, "RolloutPaused")}, "Paused"},
		{[]rampv1.RolloutCondition{cond(rampv1.RolloutProgressing, "ProgressDeadlineExceeded")}, "Timeout"},
		{[]rampv1.RolloutCondition{cond(rampv1.RolloutProgressing, "RolloutAborted")}, "Abort"},
		{[]rampv1.RolloutCondition{cond(rampv1.RolloutProgressing, "ReplicaSetCreateError")}, "Error"},
		{[]rampv1.RolloutCondition{cond(rampv1.RolloutProgressing, "ReplicaSetUpdated")}, "Progressing"},
		{[]rampv1.RolloutCondition{cond(rampv1.RolloutProgressing, "NewReplicaSetAvailable"), cond(rampv1.RolloutInvalidSpec, "InvalidSpec")}, "InvalidSpec"},
	} {
		ro := &rampv1.Rollout{Status: rampv1.RolloutStatus{Conditions: c.conds}}
		if got := RolloutPhase(ro); got != c.want {
			t.Errorf("%+v: %s, want %s", c.conds, got, c.want)
		}
	}
}

func TestStrategyAndRouter(t *testing.T) {
	canary := func(tr *rampv1.RolloutTrafficRouting) *rampv1.Rollout {
		return &rampv1.Rollout{Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{TrafficRouting: tr}}}}
	}
	for _, c := range []struct {
		ro               *rampv1.Rollout
		strategy, router string
	}{
		{&rampv1.Rollout{}, "none", ""},
		{&rampv1.Rollout{Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{}}}}, "blueGreen", ""},
		{canary(nil), "canary", ""},
		{canary(&rampv1.RolloutTrafficRouting{Istio: &rampv1.IstioTrafficRouting{}}), "canary", "Istio"},
		{canary(&rampv1.RolloutTrafficRouting{Istio: &rampv1.IstioTrafficRouting{}, Nginx: &rampv1.NginxTrafficRouting{}}), "canary", "Nginx"},
		{canary(&rampv1.RolloutTrafficRouting{ManagedRoutes: []rampv1.ManagedRoute{{Name: "h"}}}), "canary", ""},
	} {
		if s, r := StrategyAndRouter(c.ro); s != c.strategy || r != c.router {
			t.Errorf("%+v: %s/%s, want %s/%s", c.ro.Spec.Strategy, s, r, c.strategy, c.router)
		}
	}
}

// TestObjectsFromCache: the gauges of a Rollout, a run and an Experiment,
// named and labelled as upstream's, read through the reader given.
func TestObjectsFromCache(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := rampv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	three := int32(3)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		&rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app"},
			Spec: rampv1.RolloutSpec{Replicas: &three, Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{}}},
			Status: rampv1.RolloutStatus{Replicas: 4, AvailableReplicas: 3, UpdatedReplicas: 1,
				Conditions: []rampv1.RolloutCondition{{Type: rampv1.RolloutProgressing, Status: "True", Reason: "RolloutPaused"}}}},
		&rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "run"},
			Spec: rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{{Name: "rate", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{}}}},
				DryRun: []rampv1.DryRun{{MetricName: "rate"}}},
			Status: rampv1.AnalysisRunStatus{Phase: rampv1.AnalysisPhaseRunning,
				MetricResults: []rampv1.MetricResult{{Name: "rate", Phase: rampv1.AnalysisPhaseSuccessful}}}},
		&rampv1.Experiment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "exp"}},
	).Build()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(&Objects{Cache: c}); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP rollout_info Information about rollout.
# TYPE rollout_info gauge
rollout_info{name="app",namespace="ns",phase="Paused",strategy="canary",traffic_router=""} 1
# HELP rollout_info_replicas_unavailable The number of unavailable replicas per rollout.
# TYPE rollout_info_replicas_unavailable gauge
rollout_info_replicas_unavailable{name="app",namespace="ns"} 1
# HELP rollout_info_replicas_desired The number of desired replicas per rollout.
# TYPE rollout_info_replicas_desired gauge
rollout_info_replicas_desired{name="app",namespace="ns"} 3
# HELP analysis_run_metric_phase Information on the duration of a specific metric in the Analysis Run
# TYPE analysis_run_metric_phase gauge
analysis_run_metric_phase{dry_run="true",metric="rate",name="run",namespace="ns",phase="Error",type="Web"} 0
analysis_run_metric_phase{dry_run="true",metric="rate",name="run",namespace="ns",phase="Failed",type="Web"} 0
analysis_run_metric_phase{dry_run="true",metric="rate",name="run",namespace="ns",phase="Inconclusive",type="Web"} 0
analysis_run_metric_phase{dry_run="true",metric="rate",name="run",namespace="ns",phase="Pending",type="Web"} 0
analysis_run_metric_phase{dry_run="true",metric="rate",name="run",namespace="ns",phase="Running",type="Web"} 0
analysis_run_metric_phase{dry_run="true",metric="rate",name="run",namespace="ns",phase="Successful",type="Web"} 1
# HELP experiment_info Information about Experiment.
# TYPE experiment_info gauge
experiment_info{name="exp",namespace="ns",phase=""} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "rollout_info", "rollout_info_replicas_unavailable",
		"rollout_info_replicas_desired", "analysis_run_metric_phase", "experiment_info"); err != nil {
		t.Error(err)
	}
}

func TestInstrumentForgetsDeleted(t *testing.T) {
	k := Kind{histogram("test_reconcile", "t"), counter("test_reconcile_error", "t")}
	k.duration.WithLabelValues("ns", "gone").Observe(1)
	k.errors.WithLabelValues("ns", "gone").Inc()
	k.Forget("ns", "gone")
	if n := testutil.CollectAndCount(k.errors); n != 0 {
		t.Errorf("%d error series left after Forget", n)
	}
	if n := testutil.CollectAndCount(k.duration); n != 0 {
		t.Errorf("%d histogram series left after Forget", n)
	}
}
