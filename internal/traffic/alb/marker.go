package alb

import (
	"encoding/json"
	"fmt"
	"slices"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// marker is the managed-annotations marker of one Ingress
// (rampv1.ManagedALBAnnotationsAnnotation), parsed: for each Rollout, the
// annotations it manages, in the order they were first written. Only the entry of the
// Rollout being synced changes; the others are read to refuse a key that
// belongs to another Rollout.
type marker struct {
	raw     string
	entries map[string][]string
	changed bool
}

func parseMarker(raw string) (*marker, error) {
	m := &marker{raw: raw, entries: map[string][]string{}}
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &m.entries); err != nil {
			return nil, fmt.Errorf("annotation %s: %w", rampv1.ManagedALBAnnotationsAnnotation, err)
		}
	}
	return m, nil
}

// owner is the Rollout other than rollout whose entry lists key, "" if
// there is none.
func (m *marker) owner(rollout, key string) string {
	for name, keys := range m.entries {
		if name != rollout && slices.Contains(keys, key) {
			return name
		}
	}
	return ""
}

// claim lists key for rollout, appended after the keys it already lists
// (the order Argo Rollouts keeps). A key another Rollout lists is an error:
// two Rollouts would overwrite each other's routes.
func (m *marker) claim(rollout, key string) error {
	if other := m.owner(rollout, key); other != "" {
		return fmt.Errorf("%s is managed by Rollout %s (annotation %s; remove its entry if that Rollout is gone)", key, other, rampv1.ManagedALBAnnotationsAnnotation)
	}
	if !slices.Contains(m.entries[rollout], key) {
		m.entries[rollout] = append(m.entries[rollout], key)
		m.changed = true
	}
	return nil
}

// release drops key from rollout's entry; the entry itself stays, as
// upstream keeps it (possibly empty).
func (m *marker) release(rollout, key string) {
	keys := m.entries[rollout]
	if i := slices.Index(keys, key); i >= 0 {
		m.entries[rollout] = slices.Delete(slices.Clone(keys), i, i+1)
		m.changed = true
	}
}

// encode is the annotation's value: as read when rollout's entry did not
// change (another spelling of the same JSON is left alone), else the JSON
// of every entry, keys sorted as upstream writes them.
func (m *marker) encode() (string, error) {
	if !m.changed {
		return m.raw, nil
	}
	for name, keys := range m.entries {
		if keys == nil {
			m.entries[name] = []string{} // [] as upstream, never null
		}
	}
	b, err := json.Marshal(m.entries)
	return string(b), err
}
