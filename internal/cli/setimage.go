package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
)

func init() {
	register(func(e *env) *cobra.Command {
		set := &cobra.Command{Use: "set", Short: "Change a Rollout"}
		set.AddCommand(&cobra.Command{
			Use:   "image ROLLOUT CONTAINER=IMAGE...",
			Short: "Update container images (CONTAINER may be * for every container)",
			Args:  cobra.MinimumNArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				t, err := e.getRollout(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				ops, err := imageOps(t, args[1:])
				if err != nil {
					return err
				}
				body, err := json.Marshal(ops)
				if err != nil {
					return err
				}
				if err := t.patch(cmd.Context(), types.JSONPatchType, string(body), false); err != nil {
					return err
				}
				return printed(fmt.Fprintf(e.streams.Out, "rollout %q image updated\n", args[0]))
			},
		})
		return set
	})
}

// imageOps builds the JSON-patch operations that set the images (a merge
// patch would have to resend the whole containers list).
func imageOps(t *target, specs []string) ([]map[string]any, error) {
	if t.ro.Spec.Template == nil {
		return nil, fmt.Errorf("rollout %q has no spec.template (workloadRef): change the referenced workload", t.ns+"/"+t.ro.Name)
	}
	var ops []map[string]any
	for _, spec := range specs {
		name, image, ok := strings.Cut(spec, "=")
		if !ok || name == "" || image == "" {
			return nil, fmt.Errorf("%q: want CONTAINER=IMAGE", spec)
		}
		matched := false
		for kind, list := range map[string][]string{"initContainers": containerNames(t, true), "containers": containerNames(t, false)} {
			for i, c := range list {
				if name == "*" || c == name {
					ops = append(ops, map[string]any{"op": "replace", "path": fmt.Sprintf("/spec/template/spec/%s/%d/image", kind, i), "value": image})
					matched = true
				}
			}
		}
		if !matched {
			return nil, fmt.Errorf("rollout %q has no container %q", t.ns+"/"+t.ro.Name, name)
		}
	}
	return ops, nil
}

func containerNames(t *target, init bool) []string {
	var names []string
	cs := t.ro.Spec.Template.Spec.Containers
	if init {
		cs = t.ro.Spec.Template.Spec.InitContainers
	}
	for _, c := range cs {
		names = append(names, c.Name)
	}
	return names
}
