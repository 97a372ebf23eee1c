package doctor

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/lint"
)

// LeaseName is the controller's leader-election Lease.
const LeaseName = "ramp-controller"

// controller reports whether a Ramp controller holds its Lease and renews it.
func controller(s Snapshot) []Finding {
	switch {
	case s.LeaseErr != nil:
		obj := ref("Lease", strings.Join(s.LeaseNamespaces, ","), LeaseName)
		return []Finding{{Object: obj, Severity: Info, Message: "not checked: " + s.LeaseErr.Error()}}
	case s.Lease == nil:
		obj := ref("Lease", strings.Join(s.LeaseNamespaces, ","), LeaseName)
		return []Finding{{Object: obj, Severity: lint.Warning, Message: "not found: no Ramp controller with leader election " +
			"runs against these namespaces, so nothing reconciles Rollouts (install config/default, or pass " +
			"--controller-namespace with the controller's --leader-election-namespace)"}}
	}
	l := s.Lease
	obj := ref("Lease", l.Namespace, l.Name)
	holder := "nobody"
	if h := l.Spec.HolderIdentity; h != nil && *h != "" {
		holder = *h
	}
	if holder == "nobody" || l.Spec.RenewTime == nil {
		return []Finding{{Object: obj, Severity: lint.Warning, Message: "no controller holds it (the last leader " +
			"released it): nothing reconciles Rollouts until a controller starts"}}
	}
	duration := 15 * time.Second
	if d := l.Spec.LeaseDurationSeconds; d != nil {
		duration = rampv1.SaturatingSeconds(int64(*d))
	}
	age := s.Now.Sub(l.Spec.RenewTime.Time).Round(time.Second)
	if age > duration {
		return []Finding{{Object: obj, Severity: lint.Warning, Message: fmt.Sprintf("held by %s but not renewed for %s "+
			"(lease duration %s): the controller is down or cannot reach the API server", holder, age, duration)}}
	}
	return []Finding{{Object: obj, Severity: Info, Message: fmt.Sprintf("held by %s, renewed %s ago", holder, max(age, 0))}}
}

// rollout reports what the controller says about a Rollout: InvalidSpec
// (unless lint already found the same problem), Degraded, a generation not
// yet observed, and how HPAs count its pods.
func rollout(ro *rampv1.Rollout, found []Finding) []Finding {
	obj := ref("Rollout", ro.Namespace, ro.Name)
	var out []Finding
	invalid := false
	for _, c := range ro.Status.Conditions {
		switch {
		case c.Type == rampv1.RolloutInvalidSpec && c.Status == corev1.ConditionTrue:
			invalid = true
			if !reported(found, obj, c.Message) {
				out = append(out, Finding{Object: obj, Severity: lint.Error, Message: "the controller reports InvalidSpec: " + c.Message})
			}
		case c.Type == rampv1.RolloutHPAAccounting && c.Status == corev1.ConditionFalse:
			out = append(out, Finding{Object: obj, Severity: lint.Warning, Message: c.Message})
		case c.Type == rampv1.RolloutHPAAccounting:
			out = append(out, Finding{Object: obj, Severity: Info, Message: c.Message})
		}
	}
	if ro.Status.Phase == rampv1.RolloutPhaseDegraded && !invalid {
		out = append(out, Finding{Object: obj, Severity: lint.Warning, Message: "Degraded: " + ro.Status.Message})
	}
	if g := strconv.FormatInt(ro.Generation, 10); ro.Status.ObservedGeneration != g {
		seen := cmp.Or(ro.Status.ObservedGeneration, "none")
		out = append(out, Finding{Object: obj, Severity: lint.Warning, Message: fmt.Sprintf("the controller has not "+
			"processed generation %s yet (status is for generation %s): its status is out of date", g, seen)})
	}
	return out
}

// reported reports whether a lint error on obj already says msg.
func reported(found []Finding, obj, msg string) bool {
	return slices.ContainsFunc(found, func(f Finding) bool {
		return f.Object == obj && f.Severity == lint.Error && f.Message != "" && strings.Contains(msg, f.Message)
	})
}

// hpa reports an HPA targeting a Rollout that does not exist, a metrics API
// its resource metrics cannot do without, and what its own conditions say.
func hpa(s Snapshot, h *autoscalingv2.HorizontalPodAutoscaler) []Finding {
	t := h.Spec.ScaleTargetRef
	if t.Kind != "Rollout" || !strings.HasPrefix(t.APIVersion, rampv1.GroupVersion.Group+"/") {
		return nil
	}
	obj := ref("HorizontalPodAutoscaler", h.Namespace, h.Name)
	var out []Finding
	if !slices.ContainsFunc(s.Rollouts, func(ro rampv1.Rollout) bool { return ro.Namespace == h.Namespace && ro.Name == t.Name }) {
		out = append(out, Finding{Object: obj, Field: "spec.scaleTargetRef", Severity: lint.Warning,
			Message: fmt.Sprintf("Rollout %q does not exist in namespace %q", t.Name, h.Namespace)})
	}
	if s.MetricsAPI != nil && slices.ContainsFunc(h.Spec.Metrics, lint.ResourceMetric) {
		out = append(out, Finding{Object: obj, Field: "spec.metrics", Severity: lint.Error, Message: "metrics.k8s.io/v1beta1 " +
			"is not served (" + s.MetricsAPI.Error() + "): the HPA cannot read resource usage; install metrics-server"})
	}
	for _, c := range h.Status.Conditions {
		bad := (c.Type == autoscalingv2.ScalingActive || c.Type == autoscalingv2.AbleToScale) && c.Status == corev1.ConditionFalse
		if bad {
			out = append(out, Finding{Object: obj, Severity: lint.Error, Message: fmt.Sprintf("%s is False (%s): %s",
				c.Type, c.Reason, c.Message)})
		}
	}
	out = append(out, Finding{Object: obj, Severity: Info, Message: summary(h)})
	return out
}

// summary is "targets Rollout web: 4 replicas (desired 4, min 4, max 10);
// memory 28%/54%".
func summary(h *autoscalingv2.HorizontalPodAutoscaler) string {
	lo := int32(1)
	if h.Spec.MinReplicas != nil {
		lo = *h.Spec.MinReplicas
	}
	var ms []string
	for i, m := range h.Spec.Metrics {
		ms = append(ms, metric(m, h.Status.CurrentMetrics, i))
	}
	s := fmt.Sprintf("targets Rollout %s: %d replicas (desired %d, min %d, max %d)", h.Spec.ScaleTargetRef.Name,
		h.Status.CurrentReplicas, h.Status.DesiredReplicas, lo, h.Spec.MaxReplicas)
	if len(ms) > 0 {
		s += "; " + strings.Join(ms, ", ")
	}
	return s
}

// metric is "memory 28%/54%" ("?" before the HPA has measured it); metrics
// other than resource utilization are named by type.
func metric(m autoscalingv2.MetricSpec, current []autoscalingv2.MetricStatus, i int) string {
	if m.Resource == nil || m.Resource.Target.AverageUtilization == nil {
		return strings.ToLower(string(m.Type))
	}
	now := "?"
	if i < len(current) {
		if r := current[i].Resource; r != nil && r.Name == m.Resource.Name && r.Current.AverageUtilization != nil {
			now = fmt.Sprintf("%d%%", *r.Current.AverageUtilization)
		}
	}
	return fmt.Sprintf("%s %s/%d%%", m.Resource.Name, now, *m.Resource.Target.AverageUtilization)
}

// experiment reports an Experiment that ended other than Successful, with
// its verdict (once when lint already explains it).
func experiment(ex *rampv1.Experiment, found []Finding) []Finding {
	obj := ref("Experiment", ex.Namespace, ex.Name)
	phase := ex.Status.Phase
	if !phase.Completed() || phase == rampv1.AnalysisPhaseSuccessful || reported(found, obj, ex.Status.Message) {
		return nil
	}
	sev := lint.Warning
	if phase == rampv1.AnalysisPhaseError {
		sev = lint.Error
	}
	return []Finding{{Object: obj, Severity: sev, Message: fmt.Sprintf("%s: %s", phase, ex.Status.Message)}}
}
