package experiment

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestWriteFaults: a conflict, a 500 and a timeout at each write of an
// Experiment's life (ReplicaSet create, scale and deadline, Service create,
// AnalysisRun create and terminate, status) fail the pass (an error; a
// conflicting status write may end it quietly), nothing is written after
// the fault in that pass, and passes without errors reach the state of a
// run without faults.
func TestWriteFaults(t *testing.T) {
	want, log := runExperiment(t, nil)
	for _, m := range []controllertest.Match{{Verb: "create", Kind: "ReplicaSet"}, {Verb: "patch", Kind: "ReplicaSet"},
		{Verb: "create", Kind: "Service"}, {Verb: "create", Kind: "AnalysisRun"}, {Verb: "patch", Kind: "AnalysisRun"},
		{Verb: "patch", Kind: "Experiment"}} {
		if !slices.ContainsFunc(log, func(w controllertest.Write) bool { return w.Verb == m.Verb && w.Kind == m.Kind }) {
			t.Fatalf("the story never writes %s; it wrote %v", m, log)
		}
		for name, apiErr := range controllertest.Errors() {
			t.Run(m.String()+"/"+name, func(t *testing.T) {
				if got, _ := runExperiment(t, &controllertest.Match{Verb: m.Verb, Kind: m.Kind}, apiErr); got != want {
					t.Errorf("after the fault the state is\n%s\nwant (as without it)\n%s", got, want)
				}
			})
		}
	}
}

// runExperiment runs ns/exp (a template with a Service, an analysis whose
// run never ends by itself, one minute) to its end, with an error at the
// first write matching at, and returns the final state and the write log.
func runExperiment(t *testing.T, at *controllertest.Match, apiErr ...error) (string, []controllertest.Write) {
	ex := newExperiment()
	ex.Spec.Templates[0].Service = &rampv1.TemplateService{}
	ex.Spec.Analyses = []rampv1.ExperimentAnalysisTemplateRef{{Name: "web", TemplateName: "t"}}
	tmpl := &rampv1.AnalysisTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "t"},
		Spec: rampv1.AnalysisTemplateSpec{Metrics: []rampv1.Metric{{Name: "m", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}}}
	env, r := newReconciler(t, ex, tmpl)
	if at != nil {
		env.FailAt(*at, 0, apiErr[0])
	}
	for range 40 {
		mark := len(env.Log())
		res, err := pass(r)
		writes := env.Since(mark)
		if i := slices.IndexFunc(writes, func(w controllertest.Write) bool { return w.Err != nil }); i >= 0 {
			if err == nil && !apierrors.IsConflict(writes[i].Err) {
				t.Errorf("the pass that failed at %v returned no error", writes[i])
			}
			if after := writes[i+1:]; len(after) > 0 {
				t.Errorf("the pass that failed at %v went on to %v", writes[i], after)
			}
		}
		env.ReadyReplicaSets(t)
		runAnalyses(t, env)
		if err != nil || len(writes) > 0 {
			continue
		}
		if res.RequeueAfter <= 0 {
			return experimentState(t, env), env.Log()
		}
		env.Clock.Step(res.RequeueAfter)
	}
	t.Fatalf("no fixed point after 40 passes; last writes %v", env.Log()[max(len(env.Log())-10, 0):])
	return "", nil
}

// runAnalyses plays the AnalysisRun controller: a run goes on until it is
// told to stop, then succeeds.
func runAnalyses(t *testing.T, env *controllertest.Env) {
	var runs rampv1.AnalysisRunList
	if err := env.API.List(context.Background(), &runs); err != nil {
		t.Fatal(err)
	}
	for i := range runs.Items {
		ar := &runs.Items[i]
		want := rampv1.AnalysisPhaseRunning
		if ar.Spec.Terminate {
			want = rampv1.AnalysisPhaseSuccessful
		}
		if ar.Status.Phase != want {
			ar.Status.Phase = want
			if err := env.API.Update(context.Background(), ar); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// experimentState is the end of the story without times: the ReplicaSets
// and their sizes, Services, runs, and the Experiment's verdict.
func experimentState(t *testing.T, env *controllertest.Env) string {
	ctx := context.Background()
	var rss appsv1.ReplicaSetList
	var svcs corev1.ServiceList
	var runs rampv1.AnalysisRunList
	for _, l := range []client.ObjectList{&rss, &svcs, &runs} {
		if err := env.API.List(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	for _, rs := range rss.Items {
		lines = append(lines, fmt.Sprintf("ReplicaSet %s %d deadline=%v", rs.Name, *rs.Spec.Replicas, rs.Annotations[rampv1.ScaleDownDeadlineAnnotation] != ""))
	}
	for _, s := range svcs.Items {
		lines = append(lines, fmt.Sprintf("Service %s %v", s.Name, s.Spec.Selector))
	}
	for _, ar := range runs.Items {
		lines = append(lines, fmt.Sprintf("AnalysisRun %s terminate=%v", ar.Name, ar.Spec.Terminate))
	}
	slices.Sort(lines)
	ex := get(t, env, "exp", &rampv1.Experiment{})
	var records []string
	for _, a := range ex.Status.AnalysisRuns {
		records = append(records, a.Name+"="+a.AnalysisRun+":"+string(a.Phase))
	}
	lines = append(lines, fmt.Sprintf("Experiment %s %q runs=%v", ex.Status.Phase, ex.Status.Message, records))
	return strings.Join(lines, "\n")
}
