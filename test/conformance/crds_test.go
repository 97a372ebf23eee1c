//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var gvrCRD = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// TestCRDShapes: the five argoproj.io CRDs as the two API servers serve
// them have the same names (plural, singular, kind, short names,
// categories), scope, versions, subresources and printer columns. Clients
// depend on each: the plugin and Argo CD patch .status of Experiments and
// AnalysisRuns on the main resource, which a status subresource would
// silently ignore; `kubectl get ro` and its columns are what users read.
func TestCRDShapes(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"rollouts", "analysisruns", "analysistemplates", "clusteranalysistemplates", "experiments"} {
		crd := name + ".argoproj.io"
		up, err := crdShape(ctx, upstreamSide, crd)
		if err != nil {
			t.Fatal(err)
		}
		ramp, err := crdShape(ctx, rampSide, crd)
		if err != nil {
			t.Fatal(err)
		}
		for k, u := range up {
			if r := ramp[k]; r != u {
				t.Errorf("%s %s:\n  upstream %s\n  ramp     %s", crd, k, u, r)
			}
		}
		for k, r := range ramp {
			if _, ok := up[k]; !ok {
				t.Errorf("%s %s: Ramp serves %s, upstream nothing", crd, k, r)
			}
		}
	}
}

// crdShape reads what clients see of a CRD, one JSON value per aspect.
func crdShape(ctx context.Context, s *side, name string) (map[string]string, error) {
	o, err := s.dyn.Resource(gvrCRD).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: CRD %s: %w", s.name, name, err)
	}
	shape := map[string]string{}
	put := func(key string, fields ...string) {
		v, found, _ := unstructured.NestedFieldNoCopy(o.Object, fields...)
		if !found {
			return
		}
		if m, ok := v.(map[string]any); ok && len(m) == 0 {
			return // an empty map says nothing more than an absent one
		}
		b, _ := json.Marshal(v)
		shape[key] = string(b)
	}
	put("names", "spec", "names")
	put("scope", "spec", "scope")
	vs, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
	for _, v := range vs {
		v, _ := v.(map[string]any)
		vo := &unstructured.Unstructured{Object: map[string]any{"v": v}}
		ver, _ := v["name"].(string)
		for _, f := range []string{"served", "storage", "subresources", "additionalPrinterColumns", "deprecated"} {
			if x, found, _ := unstructured.NestedFieldNoCopy(vo.Object, "v", f); found {
				if m, ok := x.(map[string]any); ok && len(m) == 0 {
					continue
				}
				b, _ := json.Marshal(x)
				shape[ver+" "+f] = string(b)
			}
		}
	}
	return shape, nil
}
