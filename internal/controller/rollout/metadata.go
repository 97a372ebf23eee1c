package rollout

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// LegacyEphemeralKeysAnnotation is the record earlier Ramp versions wrote
// ("labels=a,b;annotations=c"): still read, removed on the next write.
const LegacyEphemeralKeysAnnotation = plan.LegacyEphemeralKeysAnnotation

// withRole adds a new ReplicaSet's role metadata to its template and
// records it (createReplicaSet).
func withRole(ro *rampv1.Rollout, st *rampv1.RolloutStatus, hash string, rs *appsv1.ReplicaSet) {
	md := plan.EphemeralRole(ro, st, hash, hash)
	record := plan.MetadataRecord(md)
	if record == "" {
		return
	}
	tm := &rs.Spec.Template.ObjectMeta
	if tm.Annotations == nil {
		tm.Annotations = map[string]string{}
	}
	for k, v := range md.Labels {
		tm.Labels[k] = v
	}
	for k, v := range md.Annotations {
		tm.Annotations[k] = v
	}
	rs.Annotations[rampv1.EphemeralMetadataAnnotation] = record
}

// syncEphemeral writes what plan.SyncMetadata says each ReplicaSet of the
// Rollout and its pods need for the role they have under st, in place:
// pods first, then the template and record, so that a restart in between
// still knows every key to remove. Rollouts without ephemeral metadata
// cost nothing.
func (r *Reconciler) syncEphemeral(ctx context.Context, ro *rampv1.Rollout, w *world, st *rampv1.RolloutStatus) error {
	for _, rs := range w.all() {
		m, ok := plan.SyncMetadata(ro, st, w.hash, rs)
		if !ok {
			continue
		}
		if err := r.syncPods(ctx, rs, m.Labels, m.Annotations); err != nil {
			return err
		}
		if !m.Write {
			continue
		}
		var record any = m.Record
		if m.Record == "" {
			record = nil
		}
		body := map[string]any{
			"metadata": map[string]any{"annotations": map[string]any{rampv1.EphemeralMetadataAnnotation: record, LegacyEphemeralKeysAnnotation: nil}},
			"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{
				"labels": m.TemplateLabels, "annotations": m.TemplateAnnotations}}},
		}
		rv := rs.ResourceVersion
		if err := r.mergePatch(ctx, rs, body); err != nil {
			return fmt.Errorf("ephemeral metadata of ReplicaSet %s: %w", rs.Name, err)
		}
		r.expect.WroteObj(rs, rv, r.Clock.Now())
	}
	return nil
}

// syncPods patches the pods of rs (from the cache) whose managed labels or
// annotations differ from what is wanted.
func (r *Reconciler) syncPods(ctx context.Context, rs *appsv1.ReplicaSet, wantL, wantA map[string]*string) error {
	var pods corev1.PodList
	if err := r.Client.List(ctx, &pods, client.InNamespace(rs.Namespace),
		client.MatchingLabels{rampv1.DefaultRolloutUniqueLabelKey: rs.Labels[rampv1.DefaultRolloutUniqueLabelKey]}); err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil || !metav1.IsControlledBy(p, rs) {
			continue
		}
		patchL, patchA := plan.MetadataPatch(p.Labels, wantL), plan.MetadataPatch(p.Annotations, wantA)
		if len(patchL)+len(patchA) == 0 {
			continue
		}
		body := map[string]any{"metadata": map[string]any{"labels": patchL, "annotations": patchA}}
		if err := r.mergePatch(ctx, p, body); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("ephemeral metadata of pod %s: %w", p.Name, err)
		}
	}
	return nil
}

func (r *Reconciler) mergePatch(ctx context.Context, obj client.Object, body map[string]any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return r.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data))
}

// withoutEphemeral is a ReplicaSet's template without what the controller
// added to it (the hash label, the ephemeral keys it records or the Rollout
// sets, the injected anti-affinity terms), to compare with the Rollout's template.
func withoutEphemeral(ro *rampv1.Rollout, rs *appsv1.ReplicaSet, template *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	tmpl := rs.Spec.Template.DeepCopy()
	delete(tmpl.Labels, rampv1.DefaultRolloutUniqueLabelKey)
	plan.RemoveAntiAffinity(ro.Namespace, &tmpl.Spec)
	managedL, managedA := plan.ManagedMetadataKeys(ro, rs.Annotations)
	restore := func(have, base map[string]string, keys []string) map[string]string {
		for _, k := range keys {
			v, ok := base[k]
			switch {
			case !ok:
				delete(have, k)
			case have == nil: // a template without labels (never one this controller made)
				have = map[string]string{k: v}
			default:
				have[k] = v
			}
		}
		return have
	}
	tmpl.Labels = restore(tmpl.Labels, template.Labels, managedL)
	if tmpl.Annotations != nil {
		tmpl.Annotations = restore(tmpl.Annotations, template.Annotations, managedA)
		if len(tmpl.Annotations) == 0 && template.Annotations == nil {
			tmpl.Annotations = nil
		}
	}
	return tmpl
}
