package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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
const LegacyEphemeralKeysAnnotation = "rollout.ramp.dev/ephemeral-keys"

// ephemeralKeys are label and annotation keys.
type ephemeralKeys struct{ labels, annotations []string }

func (k ephemeralKeys) empty() bool { return len(k.labels)+len(k.annotations) == 0 }

func (k ephemeralKeys) String() string {
	if k.empty() {
		return ""
	}
	return "labels=" + strings.Join(k.labels, ",") + ";annotations=" + strings.Join(k.annotations, ",")
}

// record is the rampv1.EphemeralMetadataAnnotation value for role md ("" when it
// sets no key).
func record(md *rampv1.PodTemplateMetadata) string {
	if roleKeys(md).empty() {
		return ""
	}
	b, _ := json.Marshal(rampv1.PodTemplateMetadata{Labels: md.Labels, Annotations: md.Annotations}) // string maps always encode
	return string(b)
}

// recordedKeys reads the keys of rampv1.EphemeralMetadataAnnotation and of
// LegacyEphemeralKeysAnnotation.
func recordedKeys(rs *appsv1.ReplicaSet) ephemeralKeys {
	var k ephemeralKeys
	var md rampv1.PodTemplateMetadata
	if v := rs.Annotations[rampv1.EphemeralMetadataAnnotation]; v != "" && json.Unmarshal([]byte(v), &md) == nil {
		k = roleKeys(&md)
	}
	for part := range strings.SplitSeq(rs.Annotations[LegacyEphemeralKeysAnnotation], ";") {
		name, list, _ := strings.Cut(part, "=")
		var keys []string
		if list != "" {
			keys = strings.Split(list, ",")
		}
		switch name {
		case "labels":
			k.labels = union(k.labels, keys)
		case "annotations":
			k.annotations = union(k.annotations, keys)
		}
	}
	return k
}

// union merges sorted key lists.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// roleKeys are the keys a role's metadata sets, sorted.
func roleKeys(md *rampv1.PodTemplateMetadata) ephemeralKeys {
	l, a := plan.MetadataKeys(md)
	return ephemeralKeys{labels: l, annotations: a}
}

// wantMetadata is what each managed key of a ReplicaSet with role md should
// be: labels and annotations, nil for absent.
func wantMetadata(ro *rampv1.Rollout, md *rampv1.PodTemplateMetadata, managed ephemeralKeys) (labels, annotations map[string]*string) {
	var roleL, roleA map[string]string
	if md != nil {
		roleL, roleA = md.Labels, md.Annotations
	}
	t := ro.Spec.Template
	return plan.WantMetadata(t.Labels, roleL, managed.labels), plan.WantMetadata(t.Annotations, roleA, managed.annotations)
}

// withRole adds a new ReplicaSet's role metadata to its template and
// records the keys (createReplicaSet).
func withRole(ro *rampv1.Rollout, st *rampv1.RolloutStatus, hash string, rs *appsv1.ReplicaSet) {
	md := plan.EphemeralRole(ro, st, hash, hash)
	keys := roleKeys(md)
	if keys.empty() {
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
	rs.Annotations[rampv1.EphemeralMetadataAnnotation] = record(md)
}

// syncEphemeral gives every ReplicaSet of the Rollout and its pods the
// ephemeral metadata of the role it has under st, in place: pods first,
// then the template and record, so that a restart in between still knows
// every key to remove. Rollouts without ephemeral metadata cost nothing.
func (r *Reconciler) syncEphemeral(ctx context.Context, ro *rampv1.Rollout, w *world, st *rampv1.RolloutStatus) error {
	specL, specA := plan.EphemeralKeys(ro)
	for _, rs := range w.all() {
		rec := recordedKeys(rs)
		managed := ephemeralKeys{labels: union(specL, rec.labels), annotations: union(specA, rec.annotations)}
		if managed.empty() {
			continue
		}
		md := plan.EphemeralRole(ro, st, w.hash, rs.Labels[rampv1.DefaultRolloutUniqueLabelKey])
		wantL, wantA := wantMetadata(ro, md, managed)
		if err := r.syncPods(ctx, rs, wantL, wantA); err != nil {
			return err
		}
		tm := rs.Spec.Template.ObjectMeta
		patchL, patchA := plan.MetadataPatch(tm.Labels, wantL), plan.MetadataPatch(tm.Annotations, wantA)
		want := record(md)
		_, legacy := rs.Annotations[LegacyEphemeralKeysAnnotation]
		if len(patchL)+len(patchA) == 0 && rs.Annotations[rampv1.EphemeralMetadataAnnotation] == want && !legacy {
			continue
		}
		var recV any = want
		if want == "" {
			recV = nil
		}
		body := map[string]any{
			"metadata": map[string]any{"annotations": map[string]any{rampv1.EphemeralMetadataAnnotation: recV, LegacyEphemeralKeysAnnotation: nil}},
			"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{
				"labels": patchL, "annotations": patchA}}},
		}
		rv := rs.ResourceVersion
		if err := r.mergePatch(ctx, rs, body); err != nil {
			return fmt.Errorf("ephemeral metadata of ReplicaSet %s: %w", rs.Name, err)
		}
		r.expect.wrote(rs.UID, rv, r.Clock.Now())
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
	rec := recordedKeys(rs)
	specL, specA := plan.EphemeralKeys(ro)
	restore := func(have, base map[string]string, keys []string) {
		for _, k := range keys {
			if v, ok := base[k]; ok {
				have[k] = v
			} else {
				delete(have, k)
			}
		}
	}
	restore(tmpl.Labels, template.Labels, union(specL, rec.labels))
	if tmpl.Annotations != nil {
		restore(tmpl.Annotations, template.Annotations, union(specA, rec.annotations))
		if len(tmpl.Annotations) == 0 && template.Annotations == nil {
			tmpl.Annotations = nil
		}
	}
	return tmpl
}
