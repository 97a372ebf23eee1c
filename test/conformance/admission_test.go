//go:build conformance

package conformance

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// TestAdmission: every argoproj.io object in upstream's own example and e2e
// manifests is sent (dry run) to both API servers. Ramp's CRDs may reject
// only what upstream's also reject, or a pod template that Kubernetes itself
// rejects in a Deployment or Job (docs/conformance.md: pod templates).
func TestAdmission(t *testing.T) {
	mod := os.Getenv("RAMP_CONF_UPSTREAM_MODULE")
	if mod == "" {
		t.Skip("RAMP_CONF_UPSTREAM_MODULE unset (hack/conformance.sh sets it)")
	}
	ctx := context.Background()
	ns := newNamespace(t, "c-admission")
	objs := upstreamManifests(t, mod)
	if len(objs) < 50 {
		t.Fatalf("read %d argoproj.io objects from upstream's manifests, want at least 50", len(objs))
	}
	var admitted, bothRejected, templateRejected int
	for _, o := range objs {
		rampErr := dryRun(ctx, rampSide, ns, o.obj)
		upErr := dryRun(ctx, upstreamSide, ns, o.obj)
		switch {
		case rampErr == nil && upErr == nil:
			admitted++
		case rampErr != nil && upErr != nil:
			bothRejected++
		case rampErr == nil:
			t.Errorf("%s: Ramp admits what upstream's CRD rejects: %v", o.where, upErr)
		case deploymentRejects(ctx, ns, o.obj) || jobRejects(ctx, ns, o.obj):
			templateRejected++ // intended: Kubernetes rejects the same template in a Deployment
		default:
			t.Errorf("%s: Ramp rejects what upstream admits: %v", o.where, rampErr)
		}
	}
	t.Logf("%d objects: %d admitted by both, %d rejected by both, %d pod templates rejected by Ramp as Kubernetes rejects them in a Deployment",
		len(objs), admitted, bothRejected, templateRejected)
}

type manifest struct {
	where string // file:document
	obj   *unstructured.Unstructured
}

// upstreamManifests reads every argoproj.io object of upstream's examples/
// and test/e2e/ YAML files, in a stable order.
func upstreamManifests(t *testing.T, mod string) []manifest {
	var out []manifest
	for _, dir := range []string{"examples", "test/e2e"} {
		err := filepath.WalkDir(filepath.Join(mod, dir), func(path string, d fs.DirEntry, err error) error {
			if ext := filepath.Ext(path); err != nil || d.IsDir() || ext != ".yaml" && ext != ".yml" {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
			for i := 0; ; i++ {
				var m map[string]any
				if err := dec.Decode(&m); err != nil {
					if !errors.Is(err, io.EOF) {
						t.Logf("%s: document %d does not parse (skipped): %v", path, i, err)
					}
					break
				}
				u := &unstructured.Unstructured{Object: m}
				if m == nil || u.GroupVersionKind().Group != "argoproj.io" {
					continue
				}
				rel, _ := filepath.Rel(mod, path)
				out = append(out, manifest{where: rel + ":" + u.GetKind() + "/" + u.GetName(), obj: u})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].where < out[j].where })
	return out
}

func resourceOf(kind string) string {
	return map[string]string{"Rollout": "rollouts", "AnalysisTemplate": "analysistemplates", "ClusterAnalysisTemplate": "clusteranalysistemplates",
		"AnalysisRun": "analysisruns", "Experiment": "experiments"}[kind]
}

func dryRun(ctx context.Context, s *side, ns string, obj *unstructured.Unstructured) error {
	o := obj.DeepCopy()
	gvr := schema.GroupVersionResource{Group: "argoproj.io", Version: o.GroupVersionKind().Version, Resource: resourceOf(o.GetKind())}
	if gvr.Resource == "" {
		return nil // a kind neither serves (compared elsewhere)
	}
	if o.GetName() == "" && o.GetGenerateName() == "" {
		o.SetGenerateName("x-")
	}
	opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	var err error
	if o.GetKind() == "ClusterAnalysisTemplate" {
		o.SetNamespace("")
		_, err = s.dyn.Resource(gvr).Create(ctx, o, opts)
	} else {
		o.SetNamespace(ns)
		_, err = s.dyn.Resource(gvr).Namespace(ns).Create(ctx, o, opts)
	}
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// deploymentRejects says whether Ramp's API server rejects a Deployment with
// the object's pod template (a Rollout's spec.template, or the first
// Experiment template's).
func deploymentRejects(ctx context.Context, ns string, obj *unstructured.Unstructured) bool {
	tmpl, ok, _ := unstructured.NestedMap(obj.Object, "spec", "template")
	if !ok {
		if ts, _, _ := unstructured.NestedSlice(obj.Object, "spec", "templates"); len(ts) > 0 {
			tmpl, ok, _ = unstructured.NestedMap(ts[0].(map[string]any), "template")
		}
	}
	if !ok {
		return false
	}
	labels, _, _ := unstructured.NestedStringMap(tmpl, "metadata", "labels")
	if len(labels) == 0 {
		labels = map[string]string{"app": "x"}
		_ = unstructured.SetNestedStringMap(tmpl, labels, "metadata", "labels")
	}
	sel := map[string]any{}
	for k, v := range labels {
		sel[k] = v
	}
	d := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"generateName": "x-", "namespace": ns},
		"spec":     map[string]any{"selector": map[string]any{"matchLabels": sel}, "template": tmpl},
	}}
	_, err := rampSide.dyn.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).
		Namespace(ns).Create(ctx, d, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err != nil
}

// jobRejects says whether Ramp's API server rejects a Job with the spec of
// one of the object's job metrics (AnalysisTemplate, ClusterAnalysisTemplate,
// AnalysisRun).
func jobRejects(ctx context.Context, ns string, obj *unstructured.Unstructured) bool {
	metrics, _, _ := unstructured.NestedSlice(obj.Object, "spec", "metrics")
	for _, m := range metrics {
		spec, ok, _ := unstructured.NestedMap(m.(map[string]any), "provider", "job", "spec")
		if !ok {
			continue
		}
		job := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "batch/v1", "kind": "Job",
			"metadata": map[string]any{"generateName": "x-", "namespace": ns}, "spec": spec,
		}}
		_, err := rampSide.dyn.Resource(schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}).
			Namespace(ns).Create(ctx, job, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return true
		}
	}
	return false
}

// admissionRule is one manifest that breaks exactly one of the value rules
// Ramp's CRDs once enforced with markers (api/v1alpha1), or the valid
// baseline; edit changes a copy of base.
type admissionRule struct {
	name string
	base string // a YAML object from admissionBases
	edit func(o map[string]any)
}

// admissionBases are valid objects both API servers admit.
var admissionBases = map[string]string{
	"canary": `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: rules-canary}
spec:
  replicas: 2
  selector: {matchLabels: {app: rules}}
  template:
    metadata: {labels: {app: rules}}
    spec: {containers: [{name: app, image: nginx:1.25}]}
  strategy:
    canary:
      canaryService: canary
      stableService: stable
      steps: [{setWeight: 20}, {pause: {duration: 10}}]`,
	"bluegreen": `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: rules-bluegreen}
spec:
  selector: {matchLabels: {app: rules}}
  template:
    metadata: {labels: {app: rules}}
    spec: {containers: [{name: app, image: nginx:1.25}]}
  strategy:
    blueGreen: {activeService: active, previewService: preview}`,
	"template": `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: rules-template}
spec:
  metrics:
  - name: m
    provider:
      prometheus: {address: "http://prometheus:9090", query: "up"}`,
	"run": `apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: rules-run}
spec:
  metrics:
  - name: m
    provider:
      web: {url: "http://example.com"}`,
	"experiment": `apiVersion: argoproj.io/v1alpha1
kind: Experiment
metadata: {name: rules-experiment}
spec:
  templates:
  - name: baseline
    selector: {matchLabels: {app: rules}}
    template:
      metadata: {labels: {app: rules}}
      spec: {containers: [{name: app, image: nginx:1.25}]}`,
}

// set returns an edit that sets the value at a dotted path ("steps.0"
// indexes a list).
func set(path string, v any) func(map[string]any) {
	return func(o map[string]any) { setPath(o, strings.Split(path, "."), v) }
}

func setPath(node any, path []string, v any) {
	switch n := node.(type) {
	case map[string]any:
		if len(path) == 1 {
			n[path[0]] = v
			return
		}
		if _, ok := n[path[0]]; !ok {
			n[path[0]] = map[string]any{}
		}
		setPath(n[path[0]], path[1:], v)
	case []any:
		i, _ := strconv.Atoi(path[0])
		if len(path) == 1 {
			n[i] = v
			return
		}
		setPath(n[i], path[1:], v)
	}
}

// admissionRules: one case per marker Ramp's CRDs carried (see git history
// of api/v1alpha1), each breaking exactly that rule, plus the baselines.
var admissionRules = []admissionRule{
	{"baseline canary", "canary", nil},
	{"baseline blueGreen", "bluegreen", nil},
	{"baseline AnalysisTemplate", "template", nil},
	{"baseline AnalysisRun", "run", nil},
	{"baseline Experiment", "experiment", nil},
	// Rollout
	{"no strategy", "canary", set("spec.strategy", map[string]any{})},
	{"both strategies", "canary", set("spec.strategy.blueGreen", map[string]any{"activeService": "active"})},
	{"canaryService = stableService", "canary", set("spec.strategy.canary.canaryService", "stable")},
	{"maxSurge and maxUnavailable 0", "canary", func(o map[string]any) {
		set("spec.strategy.canary.maxSurge", int64(0))(o)
		set("spec.strategy.canary.maxUnavailable", "0%")(o)
	}},
	{"setWeight above 100", "canary", set("spec.strategy.canary.steps.0.setWeight", int64(101))},
	{"setWeight negative", "canary", set("spec.strategy.canary.steps.0.setWeight", int64(-1))},
	{"setCanaryScale.weight above 100", "canary", set("spec.strategy.canary.steps.0", map[string]any{"setCanaryScale": map[string]any{"weight": int64(101)}})},
	{"setCanaryScale.weight negative", "canary", set("spec.strategy.canary.steps.0", map[string]any{"setCanaryScale": map[string]any{"weight": int64(-1)}})},
	{"setCanaryScale.replicas negative", "canary", set("spec.strategy.canary.steps.0", map[string]any{"setCanaryScale": map[string]any{"replicas": int64(-1)}})},
	{"more than 1000 steps", "canary", func(o map[string]any) {
		steps := make([]any, 1001)
		for i := range steps {
			steps[i] = map[string]any{"setWeight": int64(10)}
		}
		set("spec.strategy.canary.steps", steps)(o)
	}},
	{"pause.duration negative", "canary", set("spec.strategy.canary.steps.1.pause.duration", int64(-5))},
	{"pause.duration not a duration", "canary", set("spec.strategy.canary.steps.1.pause.duration", "10x")},
	{"pause.duration longer than 64", "canary", set("spec.strategy.canary.steps.1.pause.duration", strings.Repeat("1s", 33))},
	{"setMirrorRoute.percentage above 100", "canary", set("spec.strategy.canary.steps.0", map[string]any{"setMirrorRoute": map[string]any{"name": "m", "percentage": int64(101)}})},
	{"setMirrorRoute.percentage negative", "canary", set("spec.strategy.canary.steps.0", map[string]any{"setMirrorRoute": map[string]any{"name": "m", "percentage": int64(-1)}})},
	{"minPodsPerReplicaSet negative", "canary", set("spec.strategy.canary.minPodsPerReplicaSet", int64(-1))},
	{"analysis.startingStep negative", "canary", set("spec.strategy.canary.analysis", map[string]any{
		"templates": []any{map[string]any{"templateName": "t"}}, "startingStep": int64(-1)})},
	{"istio virtualService and virtualServices", "canary", set("spec.strategy.canary.trafficRouting", map[string]any{"istio": map[string]any{
		"virtualService": map[string]any{"name": "a"}, "virtualServices": []any{map[string]any{"name": "b"}}}})},
	{"nginx stableIngress and stableIngresses", "canary", set("spec.strategy.canary.trafficRouting", map[string]any{"nginx": map[string]any{
		"stableIngress": "a", "stableIngresses": []any{"b"}}})},
	{"antiAffinity both kinds", "canary", set("spec.strategy.canary.antiAffinity", map[string]any{
		"requiredDuringSchedulingIgnoredDuringExecution":  map[string]any{},
		"preferredDuringSchedulingIgnoredDuringExecution": map[string]any{"weight": int64(50)}})},
	{"antiAffinity weight 0", "canary", set("spec.strategy.canary.antiAffinity.preferredDuringSchedulingIgnoredDuringExecution", map[string]any{"weight": int64(0)})},
	{"antiAffinity weight 101", "canary", set("spec.strategy.canary.antiAffinity.preferredDuringSchedulingIgnoredDuringExecution", map[string]any{"weight": int64(101)})},
	{"rollbackWindow.revisions negative", "canary", set("spec.rollbackWindow", map[string]any{"revisions": int64(-1)})},
	{"activeService empty", "bluegreen", set("spec.strategy.blueGreen.activeService", "")},
	{"activeService missing", "bluegreen", func(o map[string]any) {
		delete(o["spec"].(map[string]any)["strategy"].(map[string]any)["blueGreen"].(map[string]any), "activeService")
	}},
	{"previewService = activeService", "bluegreen", set("spec.strategy.blueGreen.previewService", "active")},
	{"previewReplicaCount negative", "bluegreen", set("spec.strategy.blueGreen.previewReplicaCount", int64(-1))},
	// AnalysisTemplate and AnalysisRun
	{"prometheus timeout negative", "template", set("spec.metrics.0.provider.prometheus.timeout", int64(-1))},
	{"web timeoutSeconds negative", "template", set("spec.metrics.0.provider", map[string]any{"web": map[string]any{"url": "http://x", "timeoutSeconds": int64(-1)}})},
	{"web jsonBody not an object", "template", set("spec.metrics.0.provider", map[string]any{"web": map[string]any{"url": "http://x", "jsonBody": "text"}})},
	{"newRelic timeout negative", "template", set("spec.metrics.0.provider", map[string]any{"newRelic": map[string]any{"query": "q", "timeout": int64(-1)}})},
	{"datadog apiVersion v3", "template", set("spec.metrics.0.provider", map[string]any{"datadog": map[string]any{"query": "q", "apiVersion": "v3"}})},
	{"datadog aggregator median", "template", set("spec.metrics.0.provider", map[string]any{"datadog": map[string]any{"query": "q", "apiVersion": "v2", "aggregator": "median"}})},
	{"measurementRetention limit negative", "template", set("spec.measurementRetention", []any{map[string]any{"metricName": "m", "limit": int64(-1)}})},
	{"ttlStrategy.secondsAfterCompletion negative", "run", set("spec.ttlStrategy", map[string]any{"secondsAfterCompletion": int64(-1)})},
	{"ttlStrategy.secondsAfterFailure negative", "run", set("spec.ttlStrategy", map[string]any{"secondsAfterFailure": int64(-1)})},
	{"ttlStrategy.secondsAfterSuccess negative", "run", set("spec.ttlStrategy", map[string]any{"secondsAfterSuccess": int64(-1)})},
	// Experiment
	{"experiment progressDeadlineSeconds negative", "experiment", set("spec.progressDeadlineSeconds", int64(-1))},
	{"experiment scaleDownDelaySeconds negative", "experiment", set("spec.scaleDownDelaySeconds", int64(-1))},
	{"experiment template replicas negative", "experiment", set("spec.templates.0.replicas", int64(-1))},
	{"experiment template minReadySeconds negative", "experiment", set("spec.templates.0.minReadySeconds", int64(-1))},
}

// TestAdmissionRules sends each admissionRules manifest (dry run) to both
// API servers: Ramp may reject only what upstream's CRDs reject (or a pod
// template Kubernetes rejects in a Deployment or Job), and must reject all
// of it. The baselines must be admitted by both. Then it changes a stored
// Rollout's selector: both reject the update (upstream's CRD has the same
// transition rule).
func TestAdmissionRules(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t, "c-admission-rules")
	for _, rule := range admissionRules {
		var m map[string]any
		if err := sigsyaml.Unmarshal([]byte(admissionBases[rule.base]), &m); err != nil {
			t.Fatalf("%s: %v", rule.base, err)
		}
		if rule.edit != nil {
			rule.edit(m)
		}
		obj := &unstructured.Unstructured{Object: m}
		rampErr, upErr := dryRun(ctx, rampSide, ns, obj), dryRun(ctx, upstreamSide, ns, obj)
		verdict := func(err error) string {
			if err != nil {
				return "rejects"
			}
			return "admits"
		}
		t.Logf("%-45s ramp %s, upstream %s", rule.name, verdict(rampErr), verdict(upErr))
		switch {
		case rule.edit == nil && (rampErr != nil || upErr != nil):
			t.Errorf("%s: the baseline must be admitted by both: ramp %v; upstream %v", rule.name, rampErr, upErr)
		case rampErr == nil && upErr != nil:
			t.Errorf("%s: Ramp admits what upstream's CRD rejects: %v", rule.name, upErr)
		case rampErr != nil && upErr == nil && !deploymentRejects(ctx, ns, obj) && !jobRejects(ctx, ns, obj):
			t.Errorf("%s: Ramp rejects what upstream admits: %v", rule.name, rampErr)
		}
	}
	t.Run("selector is immutable", func(t *testing.T) { selectorImmutable(t, ctx, ns) })
}

// selectorImmutable stores the canary baseline on both sides and sends a
// selector change as a dry-run update.
func selectorImmutable(t *testing.T, ctx context.Context, ns string) {
	var m map[string]any
	if err := sigsyaml.Unmarshal([]byte(admissionBases["canary"]), &m); err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: m}
	obj.SetName("rules-selector")
	obj.SetNamespace(ns)
	for _, s := range []*side{rampSide, upstreamSide} {
		ri := s.dyn.Resource(gvrRollout).Namespace(ns)
		stored, err := ri.Create(ctx, obj.DeepCopy(), metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			stored, err = ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
		}
		if err != nil {
			t.Fatalf("%s: store the Rollout: %v", s.name, err)
		}
		// the controller may write to it meanwhile: a conflict is retried
		// on the latest version (a few times at most)
		for range 5 {
			changed := stored.DeepCopy()
			_ = unstructured.SetNestedStringMap(changed.Object, map[string]string{"app": "rules", "tier": "web"}, "spec", "selector", "matchLabels")
			_ = unstructured.SetNestedStringMap(changed.Object, map[string]string{"app": "rules", "tier": "web"}, "spec", "template", "metadata", "labels")
			_, err = ri.Update(ctx, changed, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			if !apierrors.IsConflict(err) {
				break
			}
			if stored, err = ri.Get(ctx, obj.GetName(), metav1.GetOptions{}); err != nil {
				t.Fatalf("%s: read the Rollout back: %v", s.name, err)
			}
		}
		if err == nil || !strings.Contains(err.Error(), "spec.selector is immutable") {
			t.Errorf("%s: a selector change: got %v, want .spec.selector is immutable", s.name, err)
		}
	}
}
