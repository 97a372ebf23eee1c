package alb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// ManagedActionsAnnotation maps, as a JSON object, each Rollout to the
// annotations of the Ingress it manages ({"<rollout>":["<key>",...]}): the
// marker Argo Rollouts keeps, so either controller can take over.
const ManagedActionsAnnotation = "rollouts.argoproj.io/managed-alb-annotations"

// useAnnotation is the backend port name that makes the AWS Load Balancer
// Controller take the route's action from the actions annotation.
const useAnnotation = "use-annotation"

// maxWeight is the largest weight of an ALB target group.
const maxWeight = 999

// action is the forward action one Rollout keeps on its Ingresses.
type action struct {
	rollout        string
	prefix         string
	name           string // the Service the Ingress routes to: root or stable
	canary, stable string
	port           int32
	sticky         *rampv1.StickinessConfig
}

func newAction(ro *rampv1.Rollout) action {
	cs, a := config(ro)
	act := action{rollout: ro.Name, prefix: a.AnnotationPrefix, name: a.RootService,
		canary: cs.CanaryService, stable: cs.StableService, port: a.ServicePort, sticky: a.StickinessConfig}
	if act.prefix == "" {
		act.prefix = rampv1.DefaultALBAnnotationPrefix
	}
	if act.name == "" {
		act.name = cs.StableService
	}
	return act
}

// key is the annotation that holds the action.
func (a action) key() string { return a.prefix + "/actions." + a.name }

// The action's JSON, as the AWS Load Balancer Controller reads it, spelled
// as Argo Rollouts writes it.
type (
	forwardAction struct {
		Type          string        `json:"Type"`
		ForwardConfig forwardConfig `json:"ForwardConfig"`
	}
	forwardConfig struct {
		TargetGroups []targetGroup `json:"TargetGroups"`
		Stickiness   *stickiness   `json:"TargetGroupStickinessConfig,omitempty"`
	}
	targetGroup struct {
		ServiceName string `json:"ServiceName"`
		ServicePort string `json:"ServicePort"`
		Weight      int32  `json:"Weight"`
	}
	stickiness struct {
		Enabled         bool  `json:"Enabled"`
		DurationSeconds int64 `json:"DurationSeconds"`
	}
)

// value is the action's annotation value for want: forward to the canary
// and stable Services with weights that sum to want.Max.
func (a action) value(want traffic.Route) (string, error) {
	port := strconv.Itoa(int(a.port))
	fa := forwardAction{Type: "forward", ForwardConfig: forwardConfig{TargetGroups: []targetGroup{
		{ServiceName: a.canary, ServicePort: port, Weight: want.Canary},
		{ServiceName: a.stable, ServicePort: port, Weight: want.Stable()},
	}}}
	if s := a.sticky; s != nil {
		fa.ForwardConfig.Stickiness = &stickiness{Enabled: s.Enabled, DurationSeconds: s.DurationSeconds}
	}
	b, err := json.Marshal(fa)
	return string(b), err
}

// check reports an Ingress without a backend that takes its action from the
// annotation: one of the Service the action is named for and port name
// use-annotation.
func (a action) check(u *unstructured.Unstructured) error {
	if usesAnnotation(u.Object, a.name, "spec", "defaultBackend") {
		return nil
	}
	rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules") // absent or not a list: no rule uses the action
	for _, r := range rules {
		rule, _ := r.(map[string]interface{})
		paths, _, _ := unstructured.NestedSlice(rule, "http", "paths") // likewise
		for _, p := range paths {
			if path, ok := p.(map[string]interface{}); ok && usesAnnotation(path, a.name, "backend") {
				return nil
			}
		}
	}
	return fmt.Errorf("Ingress %s/%s has no rule with backend service %s and port name %s", u.GetNamespace(), u.GetName(), a.name, useAnnotation)
}

// usesAnnotation says whether the backend at path in obj is Service svc with
// port name use-annotation.
func usesAnnotation(obj map[string]interface{}, svc string, path ...string) bool {
	name, _, _ := unstructured.NestedString(obj, append(path, "service", "name")...) // absent or not a string: not this backend
	port, _, _ := unstructured.NestedString(obj, append(path, "service", "port", "name")...)
	return name == svc && port == useAnnotation
}

// apply sets the action annotation of u to value, unless it already holds
// the same JSON, and records the Rollout in the managed-actions marker. It
// refuses an action another Rollout manages.
func (a action) apply(u *unstructured.Unstructured, value string) error {
	ann := u.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	marker, err := managedActions(ann[ManagedActionsAnnotation], a.rollout, a.key())
	if err != nil {
		return err
	}
	changed := false
	if !sameJSON(ann[a.key()], value) {
		ann[a.key()], changed = value, true
	}
	if marker != ann[ManagedActionsAnnotation] {
		ann[ManagedActionsAnnotation], changed = marker, true
	}
	if changed {
		u.SetAnnotations(ann)
	}
	return nil
}

// managedActions returns the marker cur with key listed for rollout,
// keeping every other entry; cur itself when it already lists it. Another
// Rollout managing key is an error.
func managedActions(cur, rollout, key string) (string, error) {
	m := map[string][]string{}
	if cur != "" {
		if err := json.Unmarshal([]byte(cur), &m); err != nil {
			return "", fmt.Errorf("annotation %s: %w", ManagedActionsAnnotation, err)
		}
	}
	for name, keys := range m {
		if name != rollout && slices.Contains(keys, key) {
			return "", fmt.Errorf("action %s is managed by Rollout %s (annotation %s; remove its entry if that Rollout is gone)", key, name, ManagedActionsAnnotation)
		}
	}
	if slices.Contains(m[rollout], key) {
		return cur, nil
	}
	m[rollout] = append(m[rollout], key)
	b, err := json.Marshal(m) // keys sorted, as upstream writes it
	return string(b), err
}

// sameJSON says whether a and b are the same JSON value (key order and
// spacing aside).
func sameJSON(a, b string) bool {
	var va, vb interface{}
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
