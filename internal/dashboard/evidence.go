package dashboard

import (
	"context"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/gather"
	"github.com/ramp-rollouts/ramp/internal/plan"
	"github.com/ramp-rollouts/ramp/internal/view"
)

// addEvidence adds what the rollout page decides on beyond the objects:
// the planner's forecast of the rest of the update and what each action
// would do (both from one simulation, plan.Simulate as `ramp plan` runs
// it, with an HPA when one scales the rollout), the traffic routing and the
// HPAs. Every decision is in internal/plan and internal/view.
func addEvidence(d *RolloutDetail, o *gather.Objects, hpas []autoscalingv2.HorizontalPodAutoscaler) {
	ro := o.Rollout
	tr, err := plan.Simulate(ro, plan.SimOptions{HPA: len(hpas) > 0})
	d.Forecast = view.ForecastOf(ro, tr, err)
	d.Confirm = view.ConfirmationsOf(ro, o.ReplicaSets, tr, err)
	d.Traffic = view.TrafficOf(ro)
	for i := range hpas {
		d.HPAs = append(d.HPAs, view.HPAOf(&hpas[i]))
	}
}

// rolloutHPAs are the HPAs in ro's namespace that scale it.
func rolloutHPAs(ctx context.Context, c client.Reader, ro *rampv1.Rollout) ([]autoscalingv2.HorizontalPodAutoscaler, error) {
	var l autoscalingv2.HorizontalPodAutoscalerList
	if err := c.List(ctx, &l, client.InNamespace(ro.Namespace)); err != nil {
		return nil, err
	}
	var out []autoscalingv2.HorizontalPodAutoscaler
	for i := range l.Items {
		if view.TargetsRollout(&l.Items[i], ro.Name) {
			out = append(out, l.Items[i])
		}
	}
	return out, nil
}
