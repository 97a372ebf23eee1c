package v1alpha1

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

func newObjectForKind(t *testing.T, doc string) runtime.Object {
	t.Helper()
	var meta struct {
		Kind string `json:"kind"`
	}
	if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
		t.Fatal(err)
	}
	switch meta.Kind {
	case "AnalysisTemplate":
		return &AnalysisTemplate{}
	case "ClusterAnalysisTemplate":
		return &ClusterAnalysisTemplate{}
	case "AnalysisRun":
		return &AnalysisRun{}
	case "Experiment":
		return &Experiment{}
	}
	t.Fatalf("unexpected kind %q", meta.Kind)
	return nil
}

// analysisManifests are manifests written the way Argo Rollouts users write
// them (testdata/analysis: the seed documents and upstream documentation
// examples). Each must decode strictly (no unknown field) and re-encode to
// the same document, so no upstream field is missing or renamed.
var analysisManifests = loadManifests()

func loadManifests() map[string]string {
	files, _ := filepath.Glob("testdata/analysis/*.yaml")
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".yaml")] = string(b)
	}
	return out
}

func TestAnalysisManifestsRoundTrip(t *testing.T) {
	if len(analysisManifests) < 6 {
		t.Fatalf("found %d manifests in testdata/analysis", len(analysisManifests))
	}
	for name, doc := range analysisManifests {
		t.Run(name, func(t *testing.T) {
			obj := newObjectForKind(t, doc)
			if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
				t.Fatalf("strict decode: %v", err)
			}
			// DeepCopy must preserve everything too.
			out, err := json.Marshal(obj.DeepCopyObject())
			if err != nil {
				t.Fatal(err)
			}
			var want, got map[string]any
			if err := yaml.Unmarshal([]byte(doc), &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			normalize(got)
			normalize(want)
			if !reflect.DeepEqual(want, got) {
				wj, _ := json.MarshalIndent(want, "", " ")
				gj, _ := json.MarshalIndent(got, "", " ")
				t.Fatalf("round trip changed the document\nwant %s\ngot  %s", wj, gj)
			}
		})
	}
}

// normalize drops what Kubernetes types add on encoding although the input
// did not carry it (creationTimestamp: null, empty resources of containers).
func normalize(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			if m, ok := e.(map[string]any); ok && len(m) == 0 && (k == "resources" || k == "metadata" || k == "status") {
				delete(x, k)
				continue
			}
			normalize(e)
		}
	case []any:
		for _, e := range x {
			normalize(e)
		}
	}
}

func TestSeedTemplateValues(t *testing.T) {
	var at AnalysisTemplate
	if err := yaml.UnmarshalStrict([]byte(analysisManifests["seed-bluegreen-success-rate"]), &at); err != nil {
		t.Fatal(err)
	}
	m := at.Spec.Metrics[0]
	if d, err := m.Interval.Duration(); err != nil || d.Seconds() != 3 {
		t.Fatalf("interval = %v, %v", d, err)
	}
	if n, err := m.EffectiveCount(); err != nil || n != 2 {
		t.Fatalf("count = %d, %v", n, err)
	}
	if n, err := m.EffectiveFailureLimit(); err != nil || n != 3 {
		t.Fatalf("failureLimit = %d, %v", n, err)
	}
	if n, _ := m.EffectiveConsecutiveErrorLimit(); n != DefaultConsecutiveErrorLimit {
		t.Fatalf("consecutiveErrorLimit default = %d", n)
	}
	if m.Provider.Prometheus == nil || !strings.HasPrefix(m.Provider.Prometheus.Address, "http://") {
		t.Fatalf("prometheus provider not decoded: %+v", m.Provider)
	}
}

func TestDefaultsAndAccessors(t *testing.T) {
	var nilMetric *Metric
	if n, _ := nilMetric.EffectiveCount(); n != 1 {
		t.Fatalf("nil metric count = %d", n)
	}
	m := Metric{Interval: "1m"}
	if n, _ := m.EffectiveCount(); n != 0 {
		t.Fatalf("count with interval = %d, want 0 (until stopped)", n)
	}
	zero := intstr.FromInt32(0)
	m.Count = &zero
	if n, _ := m.EffectiveCount(); n != 0 {
		t.Fatalf("count 0 with interval = %d", n)
	}
	m = Metric{}
	if n, _ := m.EffectiveCount(); n != 1 {
		t.Fatalf("count without interval = %d", n)
	}
	bad := intstr.FromString("{{args.limit}}")
	m.FailureLimit = &bad
	if _, err := m.EffectiveFailureLimit(); err == nil {
		t.Fatal("unresolved placeholder accepted as a limit")
	}
	str := intstr.FromString("-1")
	m.FailureLimit = &str
	if n, err := m.EffectiveFailureLimit(); err != nil || n != -1 {
		t.Fatalf("failureLimit \"-1\" = %d, %v", n, err)
	}

	var w *WebMetric
	if w.EffectiveJSONPath() != "{$}" || w.EffectiveMethod() != "GET" || w.EffectiveTimeout().Seconds() != 10 {
		t.Fatal("web defaults")
	}
	var dd *DatadogMetric
	if dd.EffectiveAPIVersion() != "v1" || dd.EffectiveInterval() != "5m" {
		t.Fatal("datadog defaults")
	}
	var nr *NewRelicMetric
	if nr.EffectiveProfile() != "newrelic" || nr.EffectiveTimeout().Seconds() != 5 {
		t.Fatal("newrelic defaults")
	}
	var es *ExperimentSpec
	if es.EffectiveProgressDeadlineSeconds() != 600 || es.EffectiveScaleDownDelaySeconds() != 30 {
		t.Fatal("experiment defaults")
	}
	var ts *TemplateSpec
	if ts.EffectiveReplicas() != 1 {
		t.Fatal("template replicas default")
	}

	dry := []DryRun{{MetricName: "error-.*"}}
	if !IsDryRunMetric(dry, "error-rate") || IsDryRunMetric(dry, "success-rate") {
		t.Fatal("dry-run matching")
	}
	ret := []MeasurementRetention{{MetricName: "success-rate", Limit: 3}}
	if MeasurementRetentionLimit(ret, "success-rate") != 3 || MeasurementRetentionLimit(ret, "x") != 10 {
		t.Fatal("retention limits")
	}
	if !AnalysisPhaseInconclusive.Completed() || AnalysisPhaseRunning.Completed() {
		t.Fatal("phase completion")
	}
	if AnalysisRunEventReason(AnalysisPhaseFailed) != "AnalysisRunFailed" {
		t.Fatal("event reason")
	}
}

func TestKindsRegistered(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"AnalysisTemplate", "AnalysisTemplateList", "ClusterAnalysisTemplate",
		"ClusterAnalysisTemplateList", "AnalysisRun", "AnalysisRunList", "Experiment", "ExperimentList"} {
		if !s.Recognizes(GroupVersion.WithKind(k)) {
			t.Errorf("kind %s not registered", k)
		}
	}
}
