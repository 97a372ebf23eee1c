package view

import (
	"fmt"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// HPA is an HorizontalPodAutoscaler that targets a Rollout, as the rollout
// page shows it.
type HPA struct {
	Name    string `json:"name"`
	Min     int32  `json:"min"`
	Max     int32  `json:"max"`
	Current int32  `json:"current"`
	Desired int32  `json:"desired"`
	// Metrics are each metric's current value against its target.
	Metrics []HPAMetric `json:"metrics,omitempty"`
	// Conditions are the HPA's conditions that are not True (why it
	// cannot scale), as "Type: Reason: message".
	Conditions []string `json:"conditions,omitempty"`
}

// HPAMetric is one metric: "cpu", "28%", "target 54% (utilization)".
type HPAMetric struct {
	Name    string `json:"name"`
	Current string `json:"current"`
	Target  string `json:"target"`
}

// TargetsRollout reports whether h scales the Rollout named name (same
// namespace, scaleTargetRef kind Rollout of argoproj.io).
func TargetsRollout(h *autoscalingv2.HorizontalPodAutoscaler, name string) bool {
	t := h.Spec.ScaleTargetRef
	return t.Kind == "Rollout" && t.Name == name && strings.HasPrefix(t.APIVersion, rampv1.GroupVersion.Group+"/")
}

// HPAOf is h's figures.
func HPAOf(h *autoscalingv2.HorizontalPodAutoscaler) HPA {
	v := HPA{Name: h.Name, Min: 1, Max: h.Spec.MaxReplicas, Current: h.Status.CurrentReplicas, Desired: h.Status.DesiredReplicas}
	if h.Spec.MinReplicas != nil {
		v.Min = *h.Spec.MinReplicas
	}
	for i, m := range h.Spec.Metrics {
		v.Metrics = append(v.Metrics, hpaMetric(m, currentOf(m, h.Status.CurrentMetrics, i)))
	}
	for _, c := range h.Status.Conditions {
		if c.Status != "True" {
			v.Conditions = append(v.Conditions, fmt.Sprintf("%s: %s: %s", c.Type, c.Reason, c.Message))
		}
	}
	return v
}

// currentOf is the status of metric m: the one at the same index when it
// is of the same type (the HPA controller keeps the spec's order), else
// none yet.
func currentOf(m autoscalingv2.MetricSpec, cur []autoscalingv2.MetricStatus, i int) *autoscalingv2.MetricStatus {
	if i < len(cur) && cur[i].Type == m.Type {
		return &cur[i]
	}
	return nil
}

func hpaMetric(m autoscalingv2.MetricSpec, cur *autoscalingv2.MetricStatus) HPAMetric {
	var (
		name   string
		target autoscalingv2.MetricTarget
		now    *autoscalingv2.MetricValueStatus
	)
	switch {
	case m.Resource != nil:
		name, target = string(m.Resource.Name), m.Resource.Target
		if cur != nil && cur.Resource != nil {
			now = &cur.Resource.Current
		}
	case m.ContainerResource != nil:
		name, target = m.ContainerResource.Container+"/"+string(m.ContainerResource.Name), m.ContainerResource.Target
		if cur != nil && cur.ContainerResource != nil {
			now = &cur.ContainerResource.Current
		}
	case m.Pods != nil:
		name, target = "pods "+m.Pods.Metric.Name, m.Pods.Target
		if cur != nil && cur.Pods != nil {
			now = &cur.Pods.Current
		}
	case m.Object != nil:
		name, target = fmt.Sprintf("%s (%s %s)", m.Object.Metric.Name, m.Object.DescribedObject.Kind, m.Object.DescribedObject.Name), m.Object.Target
		if cur != nil && cur.Object != nil {
			now = &cur.Object.Current
		}
	case m.External != nil:
		name, target = "external "+m.External.Metric.Name, m.External.Target
		if cur != nil && cur.External != nil {
			now = &cur.External.Current
		}
	default:
		return HPAMetric{Name: strings.ToLower(string(m.Type)), Current: "?", Target: "?"}
	}
	return HPAMetric{Name: name, Current: metricValue(target.Type, now), Target: targetValue(target)}
}

// targetValue is "54% (utilization)", "500m (average)" or "10 (value)".
func targetValue(t autoscalingv2.MetricTarget) string {
	switch {
	case t.AverageUtilization != nil:
		return fmt.Sprintf("%d%% (average utilization)", *t.AverageUtilization)
	case t.AverageValue != nil:
		return t.AverageValue.String() + " (average value)"
	case t.Value != nil:
		return t.Value.String() + " (value)"
	}
	return "?"
}

// metricValue is the current value in the target's terms, "?" before the
// HPA measured it.
func metricValue(kind autoscalingv2.MetricTargetType, v *autoscalingv2.MetricValueStatus) string {
	switch {
	case v == nil:
		return "?"
	case kind == autoscalingv2.UtilizationMetricType && v.AverageUtilization != nil:
		return fmt.Sprintf("%d%%", *v.AverageUtilization)
	case kind == autoscalingv2.ValueMetricType && v.Value != nil:
		return v.Value.String()
	case v.AverageValue != nil:
		return v.AverageValue.String()
	case v.Value != nil:
		return v.Value.String()
	case v.AverageUtilization != nil:
		return fmt.Sprintf("%d%%", *v.AverageUtilization)
	}
	return "?"
}
