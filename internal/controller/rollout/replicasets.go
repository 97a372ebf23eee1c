package rollout

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// ownerIndex indexes ReplicaSets by the UID of their controlling owner.
const ownerIndex = ".metadata.controller"

// ownedReplicaSets lists the Rollout's ReplicaSets from the cache, adopting
// orphans that carry a pod-template hash and match the Rollout's selector.
func (r *Reconciler) ownedReplicaSets(ctx context.Context, ro *rampv1.Rollout, sel labels.Selector) ([]*appsv1.ReplicaSet, error) {
	var owned appsv1.ReplicaSetList
	if err := r.Client.List(ctx, &owned, client.InNamespace(ro.Namespace), client.MatchingFields{ownerIndex: string(ro.UID)}); err != nil {
		return nil, err
	}
	out := make([]*appsv1.ReplicaSet, 0, len(owned.Items))
	for i := range owned.Items {
		out = append(out, &owned.Items[i])
	}
	var candidates appsv1.ReplicaSetList
	if err := r.Client.List(ctx, &candidates, client.InNamespace(ro.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return nil, err
	}
	for i := range candidates.Items {
		rs := &candidates.Items[i]
		if metav1.GetControllerOf(rs) != nil || rs.DeletionTimestamp != nil || rs.Labels[rampv1.DefaultRolloutUniqueLabelKey] == "" {
			continue
		}
		patch := client.MergeFrom(rs.DeepCopy())
		rs.OwnerReferences = append(rs.OwnerReferences, *ownerRef(ro))
		if err := r.Client.Patch(ctx, rs, patch); err != nil {
			return nil, fmt.Errorf("adopt ReplicaSet %s: %w", rs.Name, err)
		}
		r.Recorder.Eventf(ro, rs, "Normal", "AdoptedReplicaSet", "Adopt", "Adopted orphaned ReplicaSet %s", rs.Name)
		out = append(out, rs)
	}
	return out, nil
}

// collides reports whether a ReplicaSet named for the new hash exists but is
// not ours or holds another template (a hash collision).
func (r *Reconciler) collides(ctx context.Context, ro *rampv1.Rollout, w *world) (bool, error) {
	var rs appsv1.ReplicaSet
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: ro.Namespace, Name: rsName(ro, w.hash)}, &rs)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	ctl := metav1.GetControllerOf(&rs)
	return ctl == nil || ctl.UID != ro.UID || !sameTemplate(ro, &rs, w.template), nil
}

func (r *Reconciler) bumpCollisionCount(ctx context.Context, ro *rampv1.Rollout) error {
	patch := client.MergeFromWithOptions(ro.DeepCopy(), client.MergeFromWithOptimisticLock{})
	n := int32(1)
	if ro.Status.CollisionCount != nil {
		n = *ro.Status.CollisionCount + 1
	}
	ro.Status.CollisionCount = &n
	return r.Client.Status().Patch(ctx, ro, patch)
}

// previousHash is the version a new ReplicaSet replaces under status st:
// the active (blue-green) or stable ReplicaSet, "" when that is itself.
func previousHash(st *rampv1.RolloutStatus, hash string) string {
	prev := st.StableRS
	if st.BlueGreen.ActiveSelector != "" {
		prev = st.BlueGreen.ActiveSelector
	}
	if prev == hash {
		return ""
	}
	return prev
}

// createReplicaSet creates the ReplicaSet of the current template, its
// pods carrying the ephemeral metadata of its role under the planned
// status st.
func (r *Reconciler) createReplicaSet(ctx context.Context, ro *rampv1.Rollout, w *world, st *rampv1.RolloutStatus, replicas int32) error {
	tmpl := w.template.DeepCopy()
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	tmpl.Labels[rampv1.DefaultRolloutUniqueLabelKey] = w.hash
	sel := ro.Spec.Selector.DeepCopy()
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	sel.MatchLabels[rampv1.DefaultRolloutUniqueLabelKey] = w.hash
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: rsName(ro, w.hash), Namespace: ro.Namespace, Labels: tmpl.Labels,
			Annotations: map[string]string{rampv1.RevisionAnnotation: strconv.FormatInt(w.revision, 10),
				rampv1.DesiredReplicasAnnotation: strconv.FormatInt(int64(ro.Replicas()), 10)},
			OwnerReferences: []metav1.OwnerReference{*ownerRef(ro)},
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, MinReadySeconds: ro.Spec.MinReadySeconds, Selector: sel, Template: *tmpl},
	}
	rs.Labels = maps.Clone(tmpl.Labels) // the role's labels go on the pods only
	if w.workload != nil {
		rs.Annotations[rampv1.WorkloadGenerationAnnotation] = strconv.FormatInt(w.workload.Generation, 10)
	}
	withRole(ro, st, w.hash, rs)
	plan.InjectAntiAffinity(ro, previousHash(st, w.hash), &rs.Spec.Template.Spec)
	err := r.Client.Create(ctx, rs)
	switch {
	case err == nil, apierrors.IsAlreadyExists(err):
		return nil
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return nil // the namespace is going away with the Rollout
	}
	return fmt.Errorf("create ReplicaSet %s: %w", rs.Name, err)
}

func rsName(ro *rampv1.Rollout, hash string) string { return ro.Name + "-" + hash }

func ownerRef(ro *rampv1.Rollout) *metav1.OwnerReference {
	return metav1.NewControllerRef(ro, rampv1.GroupVersion.WithKind("Rollout"))
}
