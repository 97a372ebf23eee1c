package alb

import (
	"encoding/json"
	"fmt"
	"strconv"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// A managed header route on ALB is three things on each Ingress, all named
// for the route (as Argo Rollouts writes them):
//
//   - <prefix>/conditions.<route>: which requests match (HTTP header
//     conditions);
//   - <prefix>/actions.<route>: forward every matching request to the
//     canary Service;
//   - a rule path with backend Service <route> and port name
//     use-annotation, first in every rule, that makes the AWS Load Balancer
//     Controller read the two into a listener rule. Paths of managed routes
//     come first, in the order of trafficRouting.managedRoutes.

// headerKeys are the action and conditions annotations of route name.
func (a action) headerKeys(name string) (actionKey, conditionsKey string) {
	return a.prefix + "/actions." + name, a.prefix + "/conditions." + name
}

// headerAction is the action of every header route: the canary Service's
// target group alone, with weight 100.
func (a action) headerAction() (string, error) {
	return a.encode(forwardAction{Type: "forward", ForwardConfig: forwardConfig{TargetGroups: []targetGroup{
		{ServiceName: a.canary, ServicePort: strconv.Itoa(int(a.port)), Weight: 100},
	}}})
}

// The conditions' JSON, as the AWS Load Balancer Controller reads it,
// spelled as Argo Rollouts writes it.
type (
	condition struct {
		Field      string       `json:"field"`
		HTTPHeader headerConfig `json:"httpHeaderConfig"`
	}
	headerConfig struct {
		Name   string   `json:"httpHeaderName"`
		Values []string `json:"values"`
	}
)

// conditions is the conditions annotation of h: one http-header condition
// per header name, in the order of first mention; several matches of one
// header become its values (ALB takes any of them; values may hold the
// wildcards * and ?).
func conditions(h rampv1.SetHeaderRoute) (string, error) {
	var cs []condition
	at := map[string]int{}
	for _, m := range h.Match {
		v, err := exactValue(m)
		if err != nil {
			return "", fmt.Errorf("setHeaderRoute %q: %w", h.Name, err)
		}
		if i, ok := at[m.HeaderName]; ok {
			cs[i].HTTPHeader.Values = append(cs[i].HTTPHeader.Values, v)
			continue
		}
		at[m.HeaderName] = len(cs)
		cs = append(cs, condition{Field: "http-header", HTTPHeader: headerConfig{Name: m.HeaderName, Values: []string{v}}})
	}
	b, err := json.Marshal(cs)
	return string(b), err
}

// exactValue is the value m matches: ALB conditions compare header values
// as written, so only a header name with an exact value can be expressed.
func exactValue(m rampv1.HeaderRoutingMatch) (string, error) {
	v := m.HeaderValue
	switch {
	case m.HeaderName == "":
		return "", fmt.Errorf("headerName required")
	case v == nil || v.Exact == "" || v.Prefix != "" || v.Regex != "":
		return "", fmt.Errorf("header %q: alb matches exact values only (headerValue.exact)", m.HeaderName)
	}
	return v.Exact, nil
}
