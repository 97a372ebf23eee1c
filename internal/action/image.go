package action

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// SetImage is the JSON patch that sets container images, each spec being
// CONTAINER=IMAGE (CONTAINER * for every container). A JSON patch, as a
// merge patch would have to resend the whole containers list.
func SetImage(ro *rampv1.Rollout, specs []string) (Patch, error) {
	id := ro.Namespace + "/" + ro.Name
	if ro.Spec.Template == nil {
		return Patch{}, fmt.Errorf("rollout %q has no spec.template (workloadRef): change the referenced workload", id)
	}
	if len(specs) == 0 {
		return Patch{}, fmt.Errorf("rollout %q: no CONTAINER=IMAGE given", id)
	}
	var ops []map[string]any
	for _, spec := range specs {
		name, image, ok := strings.Cut(spec, "=")
		if !ok || name == "" || image == "" {
			return Patch{}, fmt.Errorf("%q: want CONTAINER=IMAGE", spec)
		}
		matched := false
		for _, kind := range []string{"initContainers", "containers"} {
			for i, c := range containerNames(ro, kind == "initContainers") {
				if name == "*" || c == name {
					ops = append(ops, map[string]any{"op": "replace", "path": fmt.Sprintf("/spec/template/spec/%s/%d/image", kind, i), "value": image})
					matched = true
				}
			}
		}
		if !matched {
			return Patch{}, fmt.Errorf("rollout %q has no container %q", id, name)
		}
	}
	body, err := json.Marshal(ops)
	return Patch{types.JSONPatchType, string(body), false}, err
}

func containerNames(ro *rampv1.Rollout, init bool) []string {
	cs := ro.Spec.Template.Spec.Containers
	if init {
		cs = ro.Spec.Template.Spec.InitContainers
	}
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		names = append(names, c.Name)
	}
	return names
}
