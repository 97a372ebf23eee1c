package rollout

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
	"github.com/ramp-rollouts/ramp/internal/podtemplate"
)

// world is what one reconcile read from the cache.
type world struct {
	hash     string
	template *corev1.PodTemplateSpec // spec.template without the hash label
	selector labels.Selector
	newRS    *appsv1.ReplicaSet
	stableRS *appsv1.ReplicaSet
	others   []*appsv1.ReplicaSet
	revision int64 // of the new ReplicaSet (existing or to create)
	// bumpRevision: the new ReplicaSet exists with an older revision number
	// and must be renumbered to revision.
	bumpRevision bool
	invalid      string
	collision    bool
	restart      []*corev1.Pod // pods created before spec.restartAt, oldest first
	podsReady    int32
	runs         []*rampv1.AnalysisRun // the AnalysisRuns the Rollout controls
	// notReused are runs (by name) that must not be taken up as this
	// Rollout's, with the reason (checkUnrecorded, createRun).
	notReused map[string]string
	// experiments are the Experiments the Rollout controls.
	experiments []*rampv1.Experiment
	// workload is the Deployment spec.workloadRef names (nil without one).
	workload *appsv1.Deployment
	// serviceHash is the pod-template hash each referenced Service selects.
	serviceHash map[string]string
	hpas        []string // the HPAs that scale the Rollout
}

func (r *Reconciler) observe(ctx context.Context, ro *rampv1.Rollout) (*world, error) {
	w := &world{}
	var err error
	if w.workload, w.invalid, err = r.resolveWorkload(ctx, ro); err != nil {
		return nil, err
	}
	if w.invalid == "" {
		w.invalid = validateTemplate(ro)
	}
	if w.invalid != "" { // no usable template or selector: report what runs, change nothing
		return w, r.observeRunning(ctx, ro, w)
	}
	if w.selector, err = metav1.LabelSelectorAsSelector(ro.Spec.Selector); err != nil {
		return nil, err // validateTemplate reported it
	}
	w.template = ro.Spec.Template.DeepCopy()
	delete(w.template.Labels, rampv1.DefaultRolloutUniqueLabelKey)
	w.hash = plan.TemplateHash(w.template, ro.Status.CollisionCount)

	owned, err := r.ownedReplicaSets(ctx, ro, w.selector)
	if err != nil {
		return nil, err
	}
	// The ReplicaSet whose template equals spec.template is the new one even
	// when its hash differs: an undo copies a ReplicaSet's (API-defaulted)
	// template back into the Rollout, and a ReplicaSet Argo Rollouts created
	// (a live switch of controllers) is named by upstream's hash and holds
	// the template as the API server defaulted it.
	if !hasHash(owned, w.hash) {
		for _, rs := range owned {
			if rs.Labels[rampv1.DefaultRolloutUniqueLabelKey] != "" && sameTemplate(ro, rs, w.template) {
				w.hash = rs.Labels[rampv1.DefaultRolloutUniqueLabelKey]
				break
			}
		}
	}
	var maxRev int64
	for _, rs := range owned {
		rev := revisionOf(rs)
		maxRev = max(maxRev, rev)
		switch rs.Labels[rampv1.DefaultRolloutUniqueLabelKey] {
		case w.hash:
			w.newRS, w.revision = rs, rev
		case ro.Status.StableRS:
			w.stableRS = rs
		default:
			w.others = append(w.others, rs)
		}
	}
	if w.newRS != nil && w.revision < maxRev {
		// The template went back to an older ReplicaSet's (undo, a revert in
		// git, a rollback window): that ReplicaSet becomes the newest
		// revision again, as upstream numbers it.
		w.revision, w.bumpRevision = maxRev+1, true
	}
	if w.newRS == nil {
		w.revision = maxRev + 1
		w.collision, err = r.collides(ctx, ro, w)
		if err != nil {
			return nil, err
		}
	}
	if w.runs, err = r.ownedRuns(ctx, ro); err != nil {
		return nil, err
	}
	if w.experiments, err = r.ownedExperiments(ctx, ro); err != nil {
		return nil, err
	}
	if err := r.observeHPAs(ctx, ro, w); err != nil {
		return nil, err
	}
	if w.invalid, err = r.validateRefs(ctx, ro, w); err != nil || w.invalid != "" {
		return w, err
	}
	if err := r.checkUnrecorded(ctx, ro, w); err != nil {
		return nil, err
	}
	if err := r.observePods(ctx, ro, w); err != nil {
		return nil, err
	}
	return w, nil
}

// observeRunning records the ReplicaSets ro controls (by owner reference:
// its selector may be unusable) as the status names them, so an InvalidSpec
// status still counts the pods that serve.
func (r *Reconciler) observeRunning(ctx context.Context, ro *rampv1.Rollout, w *world) error {
	var owned appsv1.ReplicaSetList
	if err := r.Client.List(ctx, &owned, client.InNamespace(ro.Namespace), client.MatchingFields{ownerIndex: string(ro.UID)}); err != nil {
		return fmt.Errorf("list replicasets of rollout %s/%s: %w", ro.Namespace, ro.Name, err)
	}
	for i := range owned.Items {
		rs := &owned.Items[i]
		switch rs.Labels[rampv1.DefaultRolloutUniqueLabelKey] {
		case ro.Status.CurrentPodHash:
			w.newRS, w.revision = rs, revisionOf(rs)
		case ro.Status.StableRS:
			w.stableRS = rs
		default:
			w.others = append(w.others, rs)
		}
	}
	return nil
}

// validateTemplate reports a template or selector that cannot run, naming
// the field (plan.ValidateTemplate, the first part of plan.ValidateRollout).
func validateTemplate(ro *rampv1.Rollout) string { return plan.ValidateTemplate(ro) }

// validateRefs reports steps and hooks this controller cannot run, traffic
// routers it cannot use, and Services that are missing or whose selector
// cannot select the pods (recording what each Service selects now). An
// error reading the API is returned (the pass is retried), never taken for
// a fact about the spec.
func (r *Reconciler) validateRefs(ctx context.Context, ro *rampv1.Rollout, w *world) (string, error) {
	if msg := plan.ValidateStrategy(ro); msg != "" { // steps and blue-green hooks, as in plan.ValidateRollout
		return msg, nil
	}
	if msg := plan.ValidateSupported(ro); msg != "" {
		return msg, nil
	}
	if msg := r.checkRouters(ro); msg != "" {
		return msg, nil
	}
	w.serviceHash = map[string]string{}
	for _, ref := range plan.ServiceRefs(ro) {
		var svc corev1.Service
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: ro.Namespace, Name: ref.Name}, &svc)
		switch {
		case apierrors.IsNotFound(err):
			return fmt.Sprintf("%s: Service %q not found in namespace %q", ref.Field, ref.Name, ro.Namespace), nil
		case err != nil:
			return "", fmt.Errorf("read Service %s/%s (%s): %w", ro.Namespace, ref.Name, ref.Field, err)
		}
		w.serviceHash[ref.Name] = svc.Spec.Selector[rampv1.DefaultRolloutUniqueLabelKey]
		if msg := plan.ServiceProblem(ro, ref, &svc); msg != "" {
			return msg, nil
		}
	}
	return r.validateAnalysis(ctx, ro)
}

// observePods counts ready pods and lists those a pending restart replaces.
func (r *Reconciler) observePods(ctx context.Context, ro *rampv1.Rollout, w *world) error {
	ra := ro.Spec.RestartAt
	if !restartPending(ro) || r.Clock.Now().Before(ra.Time) {
		return nil
	}
	var pods corev1.PodList
	if err := r.Client.List(ctx, &pods, client.InNamespace(ro.Namespace), client.MatchingLabelsSelector{Selector: w.selector}); err != nil {
		return err
	}
	now := r.Clock.Now()
	r.deleted.Range(func(uid, at any) bool { // forget deletions the cache has long caught up with
		if now.Sub(at.(time.Time)) > time.Minute {
			r.deleted.Delete(uid)
		}
		return true
	})
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil {
			r.deleted.Delete(p.UID)
		}
		if _, pending := r.deleted.Load(p.UID); pending || p.DeletionTimestamp != nil || !ownedByAny(p, w) {
			continue
		}
		if podReady(p) {
			w.podsReady++
		}
		if p.CreationTimestamp.Before(ra) {
			w.restart = append(w.restart, p)
		}
	}
	sort.Slice(w.restart, func(i, j int) bool {
		return w.restart[i].CreationTimestamp.Before(&w.restart[j].CreationTimestamp)
	})
	return nil
}

func (w *world) input(ro *rampv1.Rollout, now time.Time) plan.Input {
	in := plan.Input{Rollout: ro, NewHash: w.hash, Invalid: w.invalid, Now: now,
		PodsToRestart: int32(len(w.restart)), PodsAvailable: w.podsReady, Runs: toPlanRuns(w.runs, w.notReused), ServiceHash: w.serviceHash, HPAs: w.hpas,
		Experiments: toPlanExperiments(w.experiments), Workload: planWorkload(w.workload)}
	if w.newRS != nil {
		in.New = toPlan(w.newRS)
		in.New.Revision = w.revision // renumbered when it became the newest again
	}
	if w.stableRS != nil {
		in.Stable = toPlan(w.stableRS)
	}
	for _, o := range w.others {
		in.Others = append(in.Others, *toPlan(o))
	}
	sort.Slice(in.Others, func(i, j int) bool { return in.Others[i].Revision < in.Others[j].Revision }) // oldest first
	return in
}

func toPlan(rs *appsv1.ReplicaSet) *plan.ReplicaSet {
	spec := int32(1)
	if rs.Spec.Replicas != nil {
		spec = *rs.Spec.Replicas
	}
	out := &plan.ReplicaSet{Name: rs.Name, Hash: rs.Labels[rampv1.DefaultRolloutUniqueLabelKey], Revision: revisionOf(rs), Created: rs.CreationTimestamp.Time, Spec: spec,
		Replicas: rs.Status.Replicas, Ready: rs.Status.ReadyReplicas, Available: rs.Status.AvailableReplicas,
		Deleting: rs.DeletionTimestamp != nil, Unobserved: rs.Status.ObservedGeneration < rs.Generation}
	v := rs.Annotations[rampv1.ScaleDownDeadlineAnnotation]
	if v == "" {
		v = rs.Annotations[rampv1.LegacyScaleDownDeadlineAnnotation]
	}
	if at, err := time.Parse(time.RFC3339, v); err == nil {
		out.ScaleDownAt = &at
	}
	return out
}

func revisionOf(rs *appsv1.ReplicaSet) int64 {
	v, _ := strconv.ParseInt(rs.Annotations[rampv1.RevisionAnnotation], 10, 64) // missing or not a number: revision 0 (the oldest)
	return v
}

// all lists the Rollout's ReplicaSets.
func (w *world) all() []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range append([]*appsv1.ReplicaSet{w.newRS, w.stableRS}, w.others...) {
		if rs != nil {
			out = append(out, rs)
		}
	}
	return out
}

func (w *world) byName(name string) *appsv1.ReplicaSet {
	for _, rs := range w.all() {
		if rs.Name == name {
			return rs
		}
	}
	return nil
}

func hasHash(rss []*appsv1.ReplicaSet, hash string) bool {
	for _, rs := range rss {
		if rs.Labels[rampv1.DefaultRolloutUniqueLabelKey] == hash {
			return true
		}
	}
	return false
}

// sameTemplate reports whether rs runs template: equal as written, or once
// the API server's defaults are applied to template.
func sameTemplate(ro *rampv1.Rollout, rs *appsv1.ReplicaSet, template *corev1.PodTemplateSpec) bool {
	have := withoutEphemeral(ro, rs, template)
	return apiequality.Semantic.DeepEqual(have, template) || apiequality.Semantic.DeepEqual(have, podtemplate.Defaulted(template))
}

func ownedByAny(p *corev1.Pod, w *world) bool {
	ref := metav1.GetControllerOf(p)
	if ref == nil {
		return false
	}
	for _, rs := range w.all() {
		if rs.UID == ref.UID {
			return true
		}
	}
	return false
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (w *world) run(name string) *rampv1.AnalysisRun {
	for _, ar := range w.runs {
		if ar.Name == name {
			return ar
		}
	}
	return nil
}
