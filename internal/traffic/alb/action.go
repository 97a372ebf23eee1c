package alb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// ManagedActionsAnnotation lists, as "<rollout>:<action annotation>" entries
// separated by commas, which Rollout manages which action annotation of an
// Ingress (the marker Argo Rollouts keeps, so either controller can take
// over).
const ManagedActionsAnnotation = "rollouts.argoproj.io/managed-alb-actions"

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

// The action's JSON, as the AWS Load Balancer Controller reads it.
type (
	forwardAction struct {
		Type          string        `json:"type"`
		ForwardConfig forwardConfig `json:"forwardConfig"`
	}
	forwardConfig struct {
		TargetGroups []targetGroup `json:"targetGroups"`
		Stickiness   *stickiness   `json:"targetGroupStickinessConfig,omitempty"`
	}
	targetGroup struct {
		ServiceName string `json:"serviceName"`
		ServicePort string `json:"servicePort"`
		Weight      int32  `json:"weight"`
	}
	stickiness struct {
		Enabled         bool  `json:"enabled"`
		DurationSeconds int64 `json:"durationSeconds"`
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
	rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
	for _, r := range rules {
		rule, _ := r.(map[string]interface{})
		paths, _, _ := unstructured.NestedSlice(rule, "http", "paths")
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
	name, _, _ := unstructured.NestedString(obj, append(path, "service", "name")...)
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

// managedActions returns the marker cur with the entry of rollout set to
// key, keeping every other Rollout's entry; cur itself when it already
// holds exactly that. Another Rollout managing key is an error.
func managedActions(cur, rollout, key string) (string, error) {
	mine := rollout + ":" + key
	var out []string
	entries, exact := 0, false
	for _, e := range strings.Split(cur, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		name, k, _ := strings.Cut(e, ":")
		switch {
		case name == rollout:
			entries++
			exact = exact || e == mine
			continue
		case k == key:
			return "", fmt.Errorf("action %s is managed by Rollout %s (annotation %s; remove its entry if that Rollout is gone)", key, name, ManagedActionsAnnotation)
		}
		out = append(out, e)
	}
	if entries == 1 && exact {
		return cur, nil
	}
	return strings.Join(append(out, mine), ","), nil
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
