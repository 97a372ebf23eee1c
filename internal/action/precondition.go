package action

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
)

// WithResourceVersion is p made conditional on the Rollout still being at
// resourceVersion rv: the API server answers 409 Conflict, applying
// nothing, when it has changed since. A merge patch gets
// metadata.resourceVersion; a JSON patch gets an operation that sets it
// first. The rest of the body is p's, unchanged.
func WithResourceVersion(p Patch, rv string) (Patch, error) {
	if rv == "" {
		return Patch{}, fmt.Errorf("no resourceVersion to make the patch conditional on")
	}
	switch p.Type {
	case types.MergePatchType:
		var body map[string]json.RawMessage
		if err := json.Unmarshal([]byte(p.Body), &body); err != nil {
			return Patch{}, fmt.Errorf("merge patch: %w", err)
		}
		meta, err := json.Marshal(map[string]string{"resourceVersion": rv})
		if err != nil {
			return Patch{}, err
		}
		body["metadata"] = meta
		b, err := json.Marshal(body)
		return Patch{p.Type, string(b), p.Status}, err
	case types.JSONPatchType:
		var ops []json.RawMessage
		if err := json.Unmarshal([]byte(p.Body), &ops); err != nil {
			return Patch{}, fmt.Errorf("JSON patch: %w", err)
		}
		op, err := json.Marshal(map[string]string{"op": "replace", "path": "/metadata/resourceVersion", "value": rv})
		if err != nil {
			return Patch{}, err
		}
		b, err := json.Marshal(append([]json.RawMessage{op}, ops...))
		return Patch{p.Type, string(b), p.Status}, err
	}
	return Patch{}, fmt.Errorf("patch type %q cannot carry a resourceVersion precondition", p.Type)
}
