package alb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

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
	routes         []string // trafficRouting.managedRoutes, in precedence order
}

func newAction(ro *rampv1.Rollout) action {
	cs, a := config(ro)
	act := action{rollout: ro.Name, prefix: a.AnnotationPrefix, name: a.RootService,
		canary: cs.CanaryService, stable: cs.StableService, port: a.ServicePort, sticky: a.StickinessConfig}
	for _, mr := range cs.TrafficRouting.ManagedRoutes {
		act.routes = append(act.routes, mr.Name)
	}
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
	return a.encode(fa)
}

// encode spells fa with the target-group stickiness of the configuration,
// which (as upstream) is written only when enabled.
func (a action) encode(fa forwardAction) (string, error) {
	if s := a.sticky; s != nil && s.Enabled {
		fa.ForwardConfig.Stickiness = &stickiness{Enabled: true, DurationSeconds: s.DurationSeconds}
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
	return fmt.Errorf("ingress %s/%s has no rule with backend service %s and port name %s", u.GetNamespace(), u.GetName(), a.name, useAnnotation)
}

// usesAnnotation says whether the backend at path in obj is Service svc with
// port name use-annotation.
func usesAnnotation(obj map[string]interface{}, svc string, path ...string) bool {
	name, _, _ := unstructured.NestedString(obj, append(path, "service", "name")...) // absent or not a string: not this backend
	port, _, _ := unstructured.NestedString(obj, append(path, "service", "port", "name")...)
	return name == svc && port == useAnnotation
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
