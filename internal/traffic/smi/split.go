package smi

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// splitGK is the TrafficSplit kind; its version depends on the cluster.
var splitGK = schema.GroupKind{Group: "split.smi-spec.io", Kind: "TrafficSplit"}

// splitName is trafficRouting.smi.trafficSplitName, or the Rollout's name.
func splitName(ro *rampv1.Rollout) string {
	if c := ro.Spec.Strategy.Canary; c != nil && c.TrafficRouting != nil && c.TrafficRouting.SMI != nil && c.TrafficRouting.SMI.TrafficSplitName != "" {
		return c.TrafficRouting.SMI.TrafficSplitName
	}
	return ro.Name
}

// split is what a Rollout's TrafficSplit carries.
type split struct {
	// service is the root Service clients address.
	service string
	// canary and stable are the backend Services.
	canary, stable string
	// canaryWeight and stableWeight are their weights.
	canaryWeight, stableWeight int64
}

// newSplit is what ro wants of its TrafficSplit.
func newSplit(ro *rampv1.Rollout, want traffic.Route) split {
	c := ro.Spec.Strategy.Canary
	s := split{
		service:      c.StableService,
		canary:       c.CanaryService,
		stable:       c.StableService,
		canaryWeight: int64(want.Canary),
		stableWeight: int64(want.Stable()),
	}
	if c.TrafficRouting != nil && c.TrafficRouting.SMI != nil && c.TrafficRouting.SMI.RootService != "" {
		s.service = c.TrafficRouting.SMI.RootService
	}
	return s
}

// set sets spec.service and spec.backends of the TrafficSplit u, and
// nothing else. Weights are integers, which every TrafficSplit version
// accepts (v1alpha1 takes a quantity, later versions an integer).
func (s split) set(u *unstructured.Unstructured) error {
	if err := unstructured.SetNestedField(u.Object, s.service, "spec", "service"); err != nil {
		return err
	}
	return unstructured.SetNestedSlice(u.Object, s.backends(), "spec", "backends")
}

func (s split) backends() []any {
	return []any{
		map[string]any{"service": s.canary, "weight": s.canaryWeight},
		map[string]any{"service": s.stable, "weight": s.stableWeight},
	}
}

// object is the TrafficSplit to create for ro, in the given version: the
// split, controlled by ro, with no labels or annotations.
func (s split) object(ro *rampv1.Rollout, version string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(splitGK.WithVersion(version))
	u.SetNamespace(ro.Namespace)
	u.SetName(splitName(ro))
	u.SetOwnerReferences([]metav1.OwnerReference{*metav1.NewControllerRef(ro, rampv1.GroupVersion.WithKind("Rollout"))})
	u.Object["spec"] = map[string]any{"service": s.service, "backends": s.backends()}
	return u
}
