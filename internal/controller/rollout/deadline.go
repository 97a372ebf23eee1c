package rollout

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// lastReady is when the latest of the new ReplicaSet's ready pods became
// ready, read live (Reconciler.Live): the cache may lag behind the API
// server under the same load that backs the queue up, and it keeps no
// transition times (slim pods). Zero without a new ReplicaSet or ready pod.
// It is read only in a pass about to declare the progress deadline
// exceeded (plan.ProgressDeadlineFired), so at most once per deadline.
func (r *Reconciler) lastReady(ctx context.Context, ro *rampv1.Rollout, w *world) (time.Time, error) {
	if w.newRS == nil {
		return time.Time{}, nil
	}
	live := r.Live
	if live == nil {
		live = r.Client
	}
	var pods corev1.PodList
	if err := live.List(ctx, &pods, client.InNamespace(ro.Namespace),
		client.MatchingLabels{rampv1.DefaultRolloutUniqueLabelKey: w.hash}); err != nil {
		return time.Time{}, fmt.Errorf("read pod readiness of rollout %s/%s before its progress deadline: %w", ro.Namespace, ro.Name, err)
	}
	var last time.Time
	for i := range pods.Items {
		p := &pods.Items[i]
		if !metav1.IsControlledBy(p, w.newRS) || p.DeletionTimestamp != nil {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && c.LastTransitionTime.After(last) {
				last = c.LastTransitionTime.Time
			}
		}
	}
	return last, nil
}
