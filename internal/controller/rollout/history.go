package rollout

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// deleteOld deletes the objects of a kind the plan names as past their
// history limit (plan.HistoryCleanup, plan.RunCleanup), in its order;
// lookup finds each in what this pass read (one it does not find, or that
// is gone already, is skipped).
func (r *Reconciler) deleteOld(ctx context.Context, kind string, names []string, lookup func(name string) (client.Object, bool)) error {
	for _, name := range names {
		obj, ok := lookup(name)
		if !ok {
			continue
		}
		uid := obj.GetUID()
		if err := r.Client.Delete(ctx, obj, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("delete old %s %s: %w", kind, name, err)
		}
		log.FromContext(ctx).V(1).Info("deleted old object", "kind", kind, "object", klog.KObj(obj))
	}
	return nil
}
