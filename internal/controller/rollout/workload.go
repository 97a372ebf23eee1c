package rollout

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;patch

// workloadIndex indexes Rollouts by the Deployment their workloadRef names.
const workloadIndex = ".spec.workloadRef.name"

func workloadName(ro *rampv1.Rollout) []string {
	if ref := ro.Spec.WorkloadRef; ref != nil && ref.Kind == "Deployment" && ref.Name != "" {
		return []string{ref.Name}
	}
	return nil
}

// rolloutsForDeployment enqueues the Rollouts whose workloadRef names it.
func (r *Reconciler) rolloutsForDeployment(ctx context.Context, d client.Object) []reconcile.Request {
	return r.rolloutsBy(ctx, d.GetNamespace(), workloadIndex, d.GetName())
}

// resolveWorkload gives a Rollout with workloadRef the referenced
// Deployment's pod template, in memory only (the spec is never written):
// the planner then treats it as spec.template. It returns the Deployment,
// or a message naming the field when it cannot be used.
func (r *Reconciler) resolveWorkload(ctx context.Context, ro *rampv1.Rollout) (*appsv1.Deployment, string, error) {
	ref := ro.Spec.WorkloadRef
	if ref == nil || ro.Spec.Template != nil {
		return nil, "", nil
	}
	if msg := plan.ValidateWorkloadRef(ref); msg != "" {
		return nil, msg, nil
	}
	var d appsv1.Deployment
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: ro.Namespace, Name: ref.Name}, &d)
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Sprintf("spec.workloadRef: Deployment %q not found in namespace %q", ref.Name, ro.Namespace), nil
	case err != nil:
		return nil, "", err
	}
	ro.Spec.Template = d.Spec.Template.DeepCopy()
	if ro.Spec.Selector == nil { // as upstream: the Deployment's selector serves (in memory only, never written)
		ro.Spec.Selector = d.Spec.Selector.DeepCopy()
	}
	return &d, "", nil
}

// scaleWorkload scales the referenced Deployment down as the plan asks
// (plan.WorkloadScale).
func (r *Reconciler) scaleWorkload(ctx context.Context, w *world, out *plan.Output) error {
	d, n := w.workload, out.ScaleWorkload
	if d == nil || n == nil {
		return nil
	}
	body, err := json.Marshal(map[string]any{"spec": map[string]any{"replicas": *n}})
	if err != nil {
		return err
	}
	if err := r.Client.Patch(ctx, d, client.RawPatch(types.MergePatchType, body)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("scale down Deployment %s (workloadRef): %w", d.Name, err)
	}
	log.FromContext(ctx).V(1).Info("scaled down workload", "deployment", klog.KObj(d), "replicas", *n)
	return nil
}

// planWorkload is what the plan knows of the workloadRef's Deployment.
func planWorkload(d *appsv1.Deployment) *plan.Workload {
	if d == nil {
		return nil
	}
	return &plan.Workload{Generation: d.Generation, Replicas: d.Spec.Replicas}
}
