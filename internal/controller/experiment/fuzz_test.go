package experiment

import (
	"encoding/json"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// experimentSeeds are the fuzz corpus's seeds: a spec and a status (JSON)
// and the knobs that derive the rest.
var experimentSeeds = []struct {
	spec, status string
	knobs        uint64
}{
	{`{"duration":"1m","templates":[{"name":"a","replicas":1,"selector":{"matchLabels":{"app":"exp"}},"template":{"metadata":{"labels":{"app":"exp"}}}}]}`, `{}`, 0},
	{`{"templates":[{"name":"a","replicas":2,"selector":{"matchLabels":{"app":"exp"}},"template":{"metadata":{"labels":{"app":"exp"}}},"service":{}}],` +
		`"analyses":[{"name":"web","templateName":"t","requiredForCompletion":true}]}`, `{"phase":"Running"}`, 1<<3 | 1<<4},
	{`{"templates":[{"name":"a","selector":{"matchExpressions":[{"key":"app","operator":"DoesNotExist"}]},"template":{}}]}`, `{}`, 1 << 1},
	{`{"templates":[{"name":"a"},{"name":"a"}],"scaleDownDelaySeconds":-5,"progressDeadlineSeconds":-1}`, `{"phase":"Bogus"}`, 1},
	{`{"terminate":true,"duration":"bogus","analyses":[{"name":"x","templateName":"gone","clusterScope":true}]}`,
		`{"phase":"Running","analysisRuns":[{"name":"x","analysisRun":"unknown","phase":"Running"}],"templateStatuses":[{"name":"zzz","status":"Running"}]}`, 1 << 5},
	{`{}`, `{"phase":"Successful","availableAt":"2020-01-01T00:00:00Z"}`, 1<<2 | 1<<3},
}

// FuzzExperimentReconcile: whatever the spec, status and owned objects,
// Reconcile never panics, and a pass writes the status, returns an error,
// or finds the status already as planned (a further pass writes nothing).
func FuzzExperimentReconcile(f *testing.F) {
	for _, s := range experimentSeeds {
		f.Add([]byte(s.spec), []byte(s.status), s.knobs)
	}
	f.Fuzz(func(t *testing.T, spec, status []byte, knobs uint64) {
		ex := fuzzExperiment(spec, status, knobs)
		env, r := newReconciler(t, append(fuzzObjects(ex, knobs), ex)...)
		var last []controllertest.Write
		for range 2 {
			mark := len(env.Log())
			if _, err := pass(r); err != nil {
				return
			}
			last = env.Since(mark)
			for _, w := range last {
				if w.Verb == "patch" && w.Kind == "Experiment" {
					return
				}
			}
		}
		if len(last) > 0 {
			t.Errorf("two passes without an error or a status write; the last wrote %v", last)
		}
	})
}

// fuzzExperiment is ns/exp from the fuzz input (a spec that decodes and
// has templates replaces the default one; the status decodes over it),
// then knobs' bits: 0 a nil selector, 1 a template without
// labels, 2 an empty template.
func fuzzExperiment(spec, status []byte, knobs uint64) *rampv1.Experiment {
	ex := newExperiment()
	var sp rampv1.ExperimentSpec
	if json.Unmarshal(spec, &sp) == nil && len(sp.Templates) > 0 {
		ex.Spec = sp
	}
	_ = json.Unmarshal(status, &ex.Status) // random bytes: whatever decodes is used
	for i := range ex.Spec.Templates {
		t := &ex.Spec.Templates[i]
		switch {
		case knobs&1 != 0:
			t.Selector = nil
		case knobs&(1<<1) != 0:
			t.Template.Labels = nil
		case knobs&(1<<2) != 0:
			t.Template = corev1.PodTemplateSpec{}
		}
	}
	return ex
}

// fuzzObjects are the objects around ex: bit 3 a ReplicaSet per template
// (sized by the knobs), bit 4 the AnalysisTemplate "t", bit 5 a run of each
// analysis owned by ex.
func fuzzObjects(ex *rampv1.Experiment, knobs uint64) []client.Object {
	var objs []client.Object
	ref := *metav1.NewControllerRef(ex, rampv1.GroupVersion.WithKind("Experiment"))
	for i, t := range ex.Spec.Templates {
		if knobs&(1<<3) == 0 || i > 7 {
			break
		}
		n := int32(knobs >> (16 + 4*uint(i)) & 15)
		objs = append(objs, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("exp-%d", i),
			UID: types.UID(fmt.Sprintf("rs-%d", i)), Annotations: map[string]string{rampv1.ExperimentTemplateNameAnnotation: t.Name}, OwnerReferences: []metav1.OwnerReference{ref}},
			Spec:   appsv1.ReplicaSetSpec{Replicas: &n},
			Status: appsv1.ReplicaSetStatus{Replicas: n, ReadyReplicas: n / 2, AvailableReplicas: n / 3}})
	}
	if knobs&(1<<4) != 0 {
		objs = append(objs, &rampv1.AnalysisTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "t"},
			Spec: rampv1.AnalysisTemplateSpec{Metrics: []rampv1.Metric{{Name: "m", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}}})
	}
	for i, a := range ex.Spec.Analyses {
		if knobs&(1<<5) == 0 || i > 7 {
			break
		}
		objs = append(objs, &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("exp-%s", a.Name),
			UID: types.UID(fmt.Sprintf("run-%d", i)), OwnerReferences: []metav1.OwnerReference{ref}},
			Status: rampv1.AnalysisRunStatus{Phase: []rampv1.AnalysisPhase{"", rampv1.AnalysisPhaseRunning, rampv1.AnalysisPhaseFailed}[knobs>>(48+uint(i))&1]}})
	}
	return objs
}
