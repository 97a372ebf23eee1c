package nginx

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// Cleanup deletes the canary Ingresses of ro. One that is gone already, or
// that ro does not control, is left alone.
func (r *Router) Cleanup(ctx context.Context, ro *rampv1.Rollout) error {
	_, n := config(ro)
	if n == nil {
		return nil
	}
	for _, stable := range stableIngresses(n) {
		key := types.NamespacedName{Namespace: ro.Namespace, Name: CanaryName(ro.Name, stable)}
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(objects.IngressGVK)
		if err := r.c.Get(ctx, key, cur); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("read Ingress %s: %w", key, err)
		}
		if !controlledBy(cur, ro) {
			continue
		}
		uid := cur.GetUID()
		if err := r.c.Delete(ctx, cur, client.Preconditions{UID: &uid}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete Ingress %s: %w", key, err)
		}
	}
	return nil
}
