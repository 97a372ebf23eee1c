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
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
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
	const ns = "c-admission"
	for _, s := range []*side{rampSide, upstreamSide} {
		_, _ = s.run(ctx, "", cfg.kubectl, "create", "namespace", ns)
		t.Cleanup(func() { _, _ = s.run(context.Background(), "", cfg.kubectl, "delete", "namespace", ns, "--wait=false") })
	}
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
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
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
