package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// apply writes what the plan asks for, and nothing that is already so.
func (r *Reconciler) apply(ctx context.Context, ro *rampv1.Rollout, w *world, out plan.Output) error {
	if w.invalid != "" {
		return nil // an invalid spec changes nothing: the running version keeps serving
	}
	if out.CreateNew {
		if err := r.createReplicaSet(ctx, ro, w, &out.Status, out.NewReplicas); err != nil {
			return err
		}
		r.expect.createdRS(ro.UID, rsName(ro, w.hash), r.Clock.Now())
	}
	if w.bumpRevision {
		if err := r.renumber(ctx, w.newRS, w.revision); err != nil {
			return err
		}
	}
	// Services first: the plan points a Service only at pods already
	// available, and a ReplicaSet this pass scales down must no longer be
	// selected when its pods go (a Service never selects no pods).
	for _, name := range slices.Sorted(maps.Keys(out.Services)) {
		if err := r.pointService(ctx, ro, name, out.Services[name]); err != nil {
			return err
		}
	}
	for _, name := range changedReplicaSets(out) {
		rs := w.byName(name)
		if rs == nil {
			continue
		}
		rv := rs.ResourceVersion // Patch updates rs in place
		if err := r.patchReplicaSet(ctx, ro, rs, out); err != nil {
			return err
		}
		r.expect.WroteObj(rs, rv, r.Clock.Now())
	}
	if err := r.annotateRollout(ctx, ro, w); err != nil {
		return err
	}
	for _, p := range w.restart[:min(int(out.DeletePods), len(w.restart))] {
		if err := r.Client.Delete(ctx, p, client.Preconditions{UID: &p.UID}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("restart pod %s: %w", p.Name, err)
		}
		r.deleted.Store(p.UID, r.Clock.Now())
	}
	if err := r.syncEphemeral(ctx, ro, w, &out.Status); err != nil {
		return err
	}
	return r.deleteOld(ctx, "ReplicaSet", out.DeleteReplicaSets, func(name string) (client.Object, bool) {
		rs := w.byName(name)
		return rs, rs != nil
	})
}

// changedReplicaSets lists the ReplicaSets the plan scales or annotates.
func changedReplicaSets(out plan.Output) []string {
	seen := map[string]bool{}
	var names []string
	for name := range out.Scale {
		seen[name], names = true, append(names, name)
	}
	for name := range out.ScaleDownAt {
		if !seen[name] {
			names = append(names, name)
		}
	}
	return names
}

// patchReplicaSet writes a ReplicaSet's new size and scale-down deadline in
// one merge patch; a resize also records the Rollout's spec.replicas in the
// desired-replicas annotation, as upstream does.
func (r *Reconciler) patchReplicaSet(ctx context.Context, ro *rampv1.Rollout, rs *appsv1.ReplicaSet, out plan.Output) error {
	body := map[string]any{}
	annotations := map[string]any{}
	if n, ok := out.Scale[rs.Name]; ok {
		body["spec"] = map[string]any{"replicas": n}
		annotations[rampv1.DesiredReplicasAnnotation] = strconv.FormatInt(int64(ro.Replicas()), 10)
	}
	if at, ok := out.ScaleDownAt[rs.Name]; ok {
		var v any // nil removes the annotation
		if at != nil {
			v = at.UTC().Format(time.RFC3339)
		}
		annotations[rampv1.ScaleDownDeadlineAnnotation] = v
		if _, legacy := rs.Annotations[rampv1.LegacyScaleDownDeadlineAnnotation]; legacy {
			annotations[rampv1.LegacyScaleDownDeadlineAnnotation] = nil
		}
	}
	if len(annotations) > 0 {
		body["metadata"] = map[string]any{"annotations": annotations}
	}
	patch, err := json.Marshal(body)
	if err != nil {
		return err
	}
	if err := r.Client.Patch(ctx, rs, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("patch ReplicaSet %s: %w", rs.Name, err)
	}
	return nil
}

// pointService makes the Service select pods of the given hash and marks it
// managed by the Rollout (upstream's managed-by-rollouts annotation, which
// tools read to find the Services a Rollout drives). A switch is told in a
// SwitchService Event, as upstream does.
func (r *Reconciler) pointService(ctx context.Context, ro *rampv1.Rollout, name, hash string) error {
	if name == "" || hash == "" {
		return nil
	}
	var svc corev1.Service
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ro.Namespace, Name: name}, &svc); err != nil {
		return client.IgnoreNotFound(err)
	}
	old := svc.Spec.Selector[rampv1.DefaultRolloutUniqueLabelKey]
	if old == hash && svc.Annotations[rampv1.ManagedByRolloutsAnnotation] == ro.Name {
		return nil
	}
	patch := client.MergeFrom(svc.DeepCopy())
	if svc.Spec.Selector == nil {
		svc.Spec.Selector = map[string]string{}
	}
	svc.Spec.Selector[rampv1.DefaultRolloutUniqueLabelKey] = hash
	if svc.Annotations == nil {
		svc.Annotations = map[string]string{}
	}
	svc.Annotations[rampv1.ManagedByRolloutsAnnotation] = ro.Name
	if err := r.Client.Patch(ctx, &svc, patch); err != nil {
		return fmt.Errorf("point Service %s at %s: %w", name, hash, err)
	}
	if old != hash {
		r.Recorder.Eventf(ro, nil, corev1.EventTypeNormal, rampv1.RolloutReasonSwitchService, rampv1.RolloutReasonSwitchService,
			rampv1.RolloutMessageSwitchService, name, old, hash)
	}
	return nil
}

// renumber makes an existing ReplicaSet the newest revision again, keeping
// its earlier numbers in the revision-history annotation.
func (r *Reconciler) renumber(ctx context.Context, rs *appsv1.ReplicaSet, revision int64) error {
	history := rs.Annotations[rampv1.RevisionHistoryAnnotation]
	if old := rs.Annotations[rampv1.RevisionAnnotation]; old != "" {
		history = strings.TrimPrefix(history+","+old, ",")
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		rampv1.RevisionAnnotation: strconv.FormatInt(revision, 10), rampv1.RevisionHistoryAnnotation: history}}})
	if err != nil {
		return err
	}
	rv := rs.ResourceVersion
	if err := r.Client.Patch(ctx, rs, client.RawPatch(types.MergePatchType, body)); err != nil {
		return fmt.Errorf("renumber ReplicaSet %s: %w", rs.Name, err)
	}
	r.expect.WroteObj(rs, rv, r.Clock.Now())
	return nil
}

// annotateRollout records on the Rollout itself its current revision
// (rollout.argoproj.io/revision, which the plugin and Argo CD read to group
// AnalysisRuns and Experiments by revision) and, with a workloadRef, the
// generation of the Deployment (rollout.argoproj.io/workload-generation), as
// upstream does.
func (r *Reconciler) annotateRollout(ctx context.Context, ro *rampv1.Rollout, w *world) error {
	want := map[string]any{}
	if rev := strconv.FormatInt(w.revision, 10); w.revision > 0 && ro.Annotations[rampv1.RevisionAnnotation] != rev {
		want[rampv1.RevisionAnnotation] = rev
	}
	if w.workload != nil {
		if gen := strconv.FormatInt(w.workload.Generation, 10); ro.Annotations[rampv1.WorkloadGenerationAnnotation] != gen {
			want[rampv1.WorkloadGenerationAnnotation] = gen
		}
	}
	if len(want) == 0 {
		return nil
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": want}})
	if err != nil {
		return err
	}
	tmpl, rv := ro.Spec.Template, ro.ResourceVersion // a workloadRef's template, resolved in memory: the patch reply has none
	if err := r.Client.Patch(ctx, ro, client.RawPatch(types.MergePatchType, body)); err != nil {
		return fmt.Errorf("annotate rollout %s: %w", ro.Name, err)
	}
	// A pass woken (by a ReplicaSet's event) before the cache shows this
	// write would drop the status held for the new version and plan the
	// revision's start again from the stored one, telling its Events twice.
	r.expect.WroteObj(ro, rv, r.Clock.Now())
	ro.Spec.Template = tmpl
	return nil
}

// patchStatus writes the status with one merge patch, only if it changed,
// guarded by resourceVersion so a concurrent user action is never lost.
func (r *Reconciler) patchStatus(ctx context.Context, ro *rampv1.Rollout, status rampv1.RolloutStatus) error {
	if apiequality.Semantic.DeepEqual(ro.Status, status) {
		return nil
	}
	rv := ro.ResourceVersion
	patch := client.MergeFromWithOptions(ro.DeepCopy(), client.MergeFromWithOptimisticLock{})
	ro.Status = status
	if err := r.Client.Status().Patch(ctx, ro, patch); err != nil {
		return err
	}
	r.expect.WroteObj(ro, rv, r.Clock.Now())
	return nil
}

// cacheBehind reports whether the cache does not show a ReplicaSet write of
// ours yet (a creation or a scale).
func (r *Reconciler) cacheBehind(ro *rampv1.Rollout, w *world, now time.Time) bool {
	if r.expect.pendingCreate(ro.UID, func(name string) bool { return w.byName(name) != nil }, now) {
		return true
	}
	if r.expect.pendingCreate(runKey(ro.UID), func(name string) bool { return w.run(name) != nil }, now) {
		return true
	}
	for _, ar := range w.runs {
		if r.expect.Stale(ar.UID, ar.ResourceVersion, now) {
			return true
		}
	}
	for _, rs := range w.all() {
		if r.expect.Stale(rs.UID, rs.ResourceVersion, now) {
			return true
		}
	}
	return false
}
