package alb

import (
	"fmt"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// field is the configuration's path in a Rollout, for error messages.
const field = "spec.strategy.canary.trafficRouting.alb"

// maxStickiness is the longest target-group stickiness ALB allows (7 days).
const maxStickiness = 7 * 24 * 3600

// Check validates ro's ALB configuration and the Services it needs.
func (r *Router) Check(ro *rampv1.Rollout) error {
	cs, a := config(ro)
	if a == nil {
		return fmt.Errorf("%s: not set", field)
	}
	if len(ingresses(a)) == 0 {
		return fmt.Errorf("%s: ingress or ingresses required", field)
	}
	for i, name := range a.Ingresses {
		if name == "" {
			return fmt.Errorf("%s.ingresses[%d]: empty name", field, i)
		}
	}
	if a.ServicePort <= 0 || a.ServicePort > 65535 {
		return fmt.Errorf("%s.servicePort: must be 1-65535, got %d", field, a.ServicePort)
	}
	if s := a.StickinessConfig; s != nil && s.Enabled && (s.DurationSeconds < 1 || s.DurationSeconds > maxStickiness) {
		return fmt.Errorf("%s.stickinessConfig.durationSeconds: must be 1-%d, got %d", field, maxStickiness, s.DurationSeconds)
	}
	switch {
	case cs.CanaryService == "":
		return fmt.Errorf("spec.strategy.canary.canaryService: required by alb traffic routing")
	case cs.StableService == "":
		return fmt.Errorf("spec.strategy.canary.stableService: required by alb traffic routing")
	case cs.CanaryService == cs.StableService:
		return fmt.Errorf("spec.strategy.canary.canaryService: must differ from stableService (%q)", cs.StableService)
	}
	return nil
}
