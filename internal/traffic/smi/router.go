// Package smi is the Service Mesh Interface traffic router. It splits
// traffic between a Rollout's canary and stable Services with a TrafficSplit
// (split.smi-spec.io) that it creates with a controller ownerReference to
// the Rollout, so the garbage collector deletes it with the Rollout. It owns
// spec.service and spec.backends of that TrafficSplit and nothing else, and
// refuses to touch a TrafficSplit of the same name that another owner
// controls. SMI has no header or mirror routes.
//
// TrafficSplits are handled as unstructured objects, in whichever version
// the cluster serves: this package must not import the SMI Go types.
package smi

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// Router keeps the TrafficSplits of Rollouts.
type Router struct{ c client.Client }

var _ traffic.Router = (*Router)(nil)

// New returns a Router that reads through c (the manager's cached client),
// writes with it and asks its RESTMapper which TrafficSplit version the
// cluster serves.
func New(c client.Client) *Router { return &Router{c: c} }

// Check validates trafficRouting.smi and the Services.
func (r *Router) Check(ro *rampv1.Rollout) error {
	c := ro.Spec.Strategy.Canary
	if c == nil || c.TrafficRouting == nil || c.TrafficRouting.SMI == nil {
		return errors.New("spec.strategy.canary.trafficRouting.smi: required")
	}
	var errs []error
	switch {
	case c.CanaryService == "":
		errs = append(errs, errors.New("spec.strategy.canary.canaryService: required with trafficRouting"))
	case c.StableService == "":
		errs = append(errs, errors.New("spec.strategy.canary.stableService: required with trafficRouting"))
	case c.CanaryService == c.StableService:
		errs = append(errs, errors.New("spec.strategy.canary.stableService: must differ from canaryService"))
	}
	if n := c.TrafficRouting.SMI.TrafficSplitName; n != "" {
		if msgs := validation.IsDNS1123Subdomain(n); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("spec.strategy.canary.trafficRouting.smi.trafficSplitName: %q is not a valid object name: %s", n, msgs[0]))
		}
	}
	return errors.Join(errs...)
}

// Refs is the Rollout's TrafficSplit, in version v1alpha4 (the one the SMI
// CRD serves today); the controller maps it to the version the cluster
// serves, as Sync does.
func (r *Router) Refs(ro *rampv1.Rollout) []traffic.Ref {
	return []traffic.Ref{{GVK: splitGK.WithVersion("v1alpha4"), Namespace: ro.Namespace, Name: splitName(ro)}}
}

// Sync creates the Rollout's TrafficSplit carrying want (not yet in force:
// the mesh has still to read it) or, when it exists and the Rollout controls
// it, sets its service and backends. A cluster without the TrafficSplit CRD
// and a TrafficSplit the Rollout does not control are traffic.ConfigErrors.
func (r *Router) Sync(ctx context.Context, ro *rampv1.Rollout, want traffic.Route) (bool, error) {
	m, err := r.c.RESTMapper().RESTMapping(splitGK)
	switch {
	case meta.IsNoMatchError(err):
		return false, traffic.Misconfigured("%s is not served by this cluster: install the SMI TrafficSplit CRD", splitGK)
	case err != nil:
		return false, fmt.Errorf("find the served version of %s: %w", splitGK, err)
	}
	t := newSplit(ro, want)
	obj := t.object(ro, m.GroupVersionKind.Version)
	if ro.DeletionTimestamp != nil { // being deleted: restore an existing split, never create one
		ref := traffic.Ref{GVK: obj.GroupVersionKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
		return objects.Sync(ctx, r.c, ref, func(u *unstructured.Unstructured) error { return t.set(u) }, traffic.Write{})
	}
	cur, created, err := objects.Ensure(ctx, r.c, obj, traffic.Wrote(rampv1.RolloutReasonTrafficSplitCreated, rampv1.RolloutMessageTrafficSplitCreated, obj.GetName()))
	if err != nil || created {
		return false, err
	}
	if ref := metav1.GetControllerOf(cur); ref == nil || ref.UID != ro.UID {
		return false, traffic.Misconfigured("TrafficSplit %s/%s exists and is not controlled by Rollout %s", cur.GetNamespace(), cur.GetName(), ro.Name)
	}
	return objects.Update(ctx, r.c, cur, func(u *unstructured.Unstructured) error { return t.set(u) }, traffic.Write{}) // upstream records no Event for a patch
}
