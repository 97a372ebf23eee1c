// Package experiment is the Experiment controller: it reads an Experiment,
// its ReplicaSets and AnalysisRuns from the cache, asks the pure planner
// (internal/experiment) what should be, and writes the difference.
package experiment

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/experiment"
	"github.com/ramp-rollouts/ramp/internal/outcome"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// NameLabel, TemplateLabel and AnalysisLabel are what Ramp versions before
// upstream fidelity labelled an Experiment's objects with: still read
// (objects made then), no longer written. Upstream's keys are
// rampv1.ExperimentNameAnnotation and rampv1.ExperimentTemplateNameAnnotation.
const (
	NameLabel     = "experiment.ramp.dev/name"
	TemplateLabel = "experiment.ramp.dev/template"
	AnalysisLabel = "experiment.ramp.dev/analysis"
)

// Reconciler runs Experiments.
type Reconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
	Clock    clock.Clock
	// Live reads the Experiment from the API server (not the cache) in
	// one rare case: a status write that conflicted after this pass
	// created AnalysisRuns, whose names must still be recorded (recordRuns).
	Live client.Reader

	// created remembers, per Experiment UID and analysis, the run a pass
	// created until the cache shows it recorded in the status: a pass that
	// reads the Experiment from a cache not yet holding that status write
	// must not take the run for missing and start another.
	created sync.Map
}

// +kubebuilder:rbac:groups=argoproj.io,resources=experiments,verbs=get;list;watch;patch

// Reconcile reads the world, plans and writes the difference.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ex := &rampv1.Experiment{}
	if err := r.Client.Get(ctx, req.NamespacedName, ex); err != nil || ex.DeletionTimestamp != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	r.expectRuns(ex)
	w, err := r.observe(ctx, ex)
	if err != nil {
		return ctrl.Result{}, err
	}
	in := experiment.Input{Experiment: ex, Now: r.Clock.Now(), Invalid: w.invalid, ReplicaSets: w.planRS(), Runs: w.planRuns(),
		Services: map[string]string{}}
	for name, svc := range w.services {
		in.Services[name] = svc.Name
	}
	out := experiment.Plan(in)
	if err := r.apply(ctx, ex, w, &out); err != nil {
		return ctrl.Result{}, err
	}
	if !apiequality.Semantic.DeepEqual(ex.Status, out.Status) {
		patch := client.MergeFromWithOptions(ex.DeepCopy(), client.MergeFromWithOptimisticLock{})
		ex.Status = out.Status
		if err := r.Client.Patch(ctx, ex, patch); err != nil {
			if apierrors.IsConflict(err) && len(out.Start) > 0 {
				return ctrl.Result{}, r.recordRuns(ctx, req.NamespacedName, out.Status.AnalysisRuns)
			}
			if apierrors.IsConflict(err) {
				return ctrl.Result{}, nil // the change that conflicted queues the next pass
			}
			if apierrors.IsNotFound(err) { // deleted since the read (a namespace torn down): nothing to report to
				r.forgetRuns(ex)
				log.FromContext(ctx).V(1).Info("experiment gone before its status write", "experiment", req)
				return ctrl.Result{}, nil
			}
			return ctrl.Result{}, fmt.Errorf("patch status of experiment %s: %w", req, err)
		}
	}
	outcome.Record(r.Recorder, ex, out.Events)
	r.reportNotReused(ex, w)
	return ctrl.Result{RequeueAfter: out.RequeueAfter}, nil
}

// world is what one reconcile read.
type world struct {
	invalid string
	rs      map[string]*appsv1.ReplicaSet  // by template name
	runs    map[string]*rampv1.AnalysisRun // by analysis name: each analysis's current run
	// runNames are the names of every run the Experiment owns (a new run
	// takes the first free name of <experiment>-<analysis>[.N]).
	runNames map[string]bool
	hashes   map[string]string                 // template name -> pod-template hash
	specs    map[string]rampv1.AnalysisRunSpec // analysis name -> run spec, resolved when valid
	// services are the templates' Services, by template name.
	services map[string]*corev1.Service
	// notReused are runs (by name) this Experiment must not take up as its
	// own, with the reason (unrecordedRuns, startRun): reported as Events.
	notReused map[string]string
}

func (r *Reconciler) observe(ctx context.Context, ex *rampv1.Experiment) (*world, error) {
	w := &world{rs: map[string]*appsv1.ReplicaSet{}, runs: map[string]*rampv1.AnalysisRun{}, hashes: map[string]string{},
		specs: map[string]rampv1.AnalysisRunSpec{}, runNames: map[string]bool{}}
	// Owned objects are found by owner reference and named by upstream's
	// template-name annotation (ReplicaSets) or their name (runs); the
	// experiment.ramp.dev labels of objects made by earlier Ramp versions
	// still name them.
	var rss appsv1.ReplicaSetList
	if err := r.Client.List(ctx, &rss, client.InNamespace(ex.Namespace)); err != nil {
		return nil, err
	}
	for i := range rss.Items {
		if rs := &rss.Items[i]; metav1.IsControlledBy(rs, ex) {
			w.rs[cmp.Or(rs.Annotations[rampv1.ExperimentTemplateNameAnnotation], rs.Labels[TemplateLabel])] = rs
		}
	}
	var runs rampv1.AnalysisRunList
	if err := r.Client.List(ctx, &runs, client.InNamespace(ex.Namespace)); err != nil {
		return nil, err
	}
	var owned []*rampv1.AnalysisRun
	for i := range runs.Items {
		if ar := &runs.Items[i]; metav1.IsControlledBy(ar, ex) {
			owned = append(owned, ar)
			w.runNames[ar.Name] = true
		}
	}
	recordedRuns(ex, owned, w.runs)
	for _, t := range ex.Spec.Templates {
		w.hashes[t.Name] = templateHash(ex, t)
	}
	if err := r.observeServices(ctx, ex, w); err != nil {
		return nil, err
	}
	if msg := experiment.Validate(ex); msg != "" {
		w.invalid = msg
	}
	if w.invalid != "" || ex.Status.Phase.Completed() {
		unrecordedRuns(ex, owned, w.runs, nil) // only to be stopped: no verdict of theirs is used
		return w, nil
	}
	for i, a := range ex.Spec.Analyses {
		if _, started := w.runs[a.Name]; started {
			continue
		}
		spec, err := r.runSpec(ctx, ex, a, w.hashes)
		if errors.As(err, new(readError)) {
			return nil, err
		}
		if err != nil {
			w.invalid = fmt.Sprintf("spec.analyses[%d]: %v", i, err)
			return w, nil
		}
		w.specs[a.Name] = spec
	}
	want := map[string]string{}
	for name, spec := range w.specs {
		want[name] = plan.RunSpecHash(spec)
	}
	w.notReused = unrecordedRuns(ex, owned, w.runs, want)
	return w, nil
}

func createdKey(ex *rampv1.Experiment, analysis string) string {
	return string(ex.UID) + "/" + analysis
}

// expectRuns adds to ex (this pass's copy) the record of each run a pass
// created whose status write the cache does not show yet, and forgets
// those it shows.
func (r *Reconciler) expectRuns(ex *rampv1.Experiment) {
	for _, a := range ex.Spec.Analyses {
		key := createdKey(ex, a.Name)
		name, ok := r.created.Load(key)
		switch {
		case !ok:
		case runRecord(ex, a.Name) != nil:
			r.created.Delete(key) // the write is in the cache
		default:
			ex.Status.AnalysisRuns = append(ex.Status.AnalysisRuns,
				rampv1.ExperimentAnalysisRunStatus{Name: a.Name, AnalysisRun: name.(string), Phase: rampv1.AnalysisPhasePending})
		}
	}
}

// forgetRuns drops the runs a pass created of an Experiment that is gone.
func (r *Reconciler) forgetRuns(ex *rampv1.Experiment) {
	r.created.Range(func(k, _ any) bool {
		if strings.HasPrefix(k.(string), string(ex.UID)+"/") {
			r.created.Delete(k)
		}
		return true
	})
}

// recordRuns writes into the Experiment as it is now the records of the
// runs a pass created when that pass's status write conflicted: a run that
// completed before it was recorded would otherwise be taken for an earlier
// attempt's (currentRuns) and started again.
func (r *Reconciler) recordRuns(ctx context.Context, key client.ObjectKey, created []rampv1.ExperimentAnalysisRunStatus) error {
	if r.Live == nil {
		return nil
	}
	ex := &rampv1.Experiment{}
	if err := r.Live.Get(ctx, key, ex); err != nil {
		return client.IgnoreNotFound(err)
	}
	patch := client.MergeFromWithOptions(ex.DeepCopy(), client.MergeFromWithOptimisticLock{})
	changed := false
	for _, c := range created {
		if c.AnalysisRun != "" && runRecord(ex, c.Name) == nil {
			ex.Status.AnalysisRuns = append(ex.Status.AnalysisRuns, c)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	log.FromContext(ctx).V(1).Info("record created runs", "experiment", key, "runs", len(created))
	if err := r.Client.Patch(ctx, ex, patch); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
		return fmt.Errorf("record AnalysisRuns of experiment %s: %w", key, err)
	}
	return nil
}

func runRecord(ex *rampv1.Experiment, analysis string) *rampv1.ExperimentAnalysisRunStatus {
	for i := range ex.Status.AnalysisRuns {
		if ex.Status.AnalysisRuns[i].Name == analysis {
			return &ex.Status.AnalysisRuns[i]
		}
	}
	return nil
}

// templateHash is a template's pod-template hash. It is salted with the
// Experiment and template names, so the Experiment's pods never share a hash
// (and so a Service selection) with a Rollout's pods of the same spec.
func templateHash(ex *rampv1.Experiment, t rampv1.TemplateSpec) string {
	tmpl := t.Template.DeepCopy()
	if tmpl.Annotations == nil {
		tmpl.Annotations = map[string]string{}
	}
	tmpl.Annotations[TemplateLabel] = ex.Namespace + "/" + ex.Name + "/" + t.Name
	return plan.TemplateHash(tmpl, nil)
}

// recordedRuns picks each analysis's run that its status names.
func recordedRuns(ex *rampv1.Experiment, owned []*rampv1.AnalysisRun, out map[string]*rampv1.AnalysisRun) {
	byName := map[string]*rampv1.AnalysisRun{}
	for _, ar := range owned {
		byName[ar.Name] = ar
	}
	for _, a := range ex.Spec.Analyses {
		for _, st := range ex.Status.AnalysisRuns {
			if st.Name == a.Name && byName[st.AnalysisRun] != nil {
				out[a.Name] = byName[st.AnalysisRun]
			}
		}
	}
}

// unrecordedRuns picks the run of each analysis recordedRuns found none
// for (a new Experiment, one the plugin's retry reset, or a pass whose
// status write was lost): a run of its name, <experiment>-<analysis>[.N],
// that has not completed (as upstream, a completed run is never taken up
// again: a retry starts a new one) and, when want (analysis -> spec hash)
// is given, that the Experiment may take up as its own (plan.RunReuse).
// It returns the runs it did not take up for that reason, with why.
func unrecordedRuns(ex *rampv1.Experiment, owned []*rampv1.AnalysisRun, out map[string]*rampv1.AnalysisRun, want map[string]string) map[string]string {
	var notReused map[string]string
	for _, a := range ex.Spec.Analyses {
		if out[a.Name] != nil {
			continue
		}
		for _, ar := range owned {
			if analysisOf(ex, ar) != a.Name || ar.Status.Phase.Completed() {
				continue
			}
			if want != nil {
				if why := plan.RunReuse(ar, ex.UID, want[a.Name]); why != "" {
					if notReused == nil {
						notReused = map[string]string{}
					}
					notReused[ar.Name] = why
					continue
				}
			}
			out[a.Name] = ar
		}
	}
	return notReused
}

// analysisOf is the analysis a run is for: its legacy label, or its name
// without the Experiment's prefix and a collision suffix (".N").
func analysisOf(ex *rampv1.Experiment, ar *rampv1.AnalysisRun) string {
	if l := ar.Labels[AnalysisLabel]; l != "" {
		return l
	}
	name := strings.TrimPrefix(ar.Name, ex.Name+"-")
	if i := strings.LastIndex(name, "."); i > 0 && isDigits(name[i+1:]) {
		name = name[:i]
	}
	return name
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// freeRunName is the first of <experiment>-<analysis>, then .1, .2, ...
// that no run of the namespace the Experiment owns has (bounded: after 100
// collisions the last is tried and the API server says AlreadyExists).
func freeRunName(ex *rampv1.Experiment, analysis string, taken map[string]bool) string {
	base := ex.Name + "-" + analysis
	name := base
	for i := 1; taken[name] && i <= 100; i++ {
		name = fmt.Sprintf("%s.%d", base, i)
	}
	return name
}

func (w *world) planRS() map[string]experiment.ReplicaSet {
	out := map[string]experiment.ReplicaSet{}
	for name, rs := range w.rs {
		spec := int32(1)
		if rs.Spec.Replicas != nil {
			spec = *rs.Spec.Replicas
		}
		r := experiment.ReplicaSet{Name: rs.Name, Hash: rs.Labels[rampv1.DefaultRolloutUniqueLabelKey], Spec: spec, Replicas: rs.Status.Replicas,
			Ready: rs.Status.ReadyReplicas, Available: min(rs.Status.AvailableReplicas, spec), Updated: rs.Status.FullyLabeledReplicas}
		if at, err := time.Parse(time.RFC3339, rs.Annotations[rampv1.ScaleDownDeadlineAnnotation]); err == nil {
			r.ScaleDownAt = at
		}
		out[name] = r
	}
	return out
}

func (w *world) planRuns() map[string]experiment.Run {
	out := map[string]experiment.Run{}
	for name, ar := range w.runs {
		out[name] = experiment.Run{Name: ar.Name, Phase: ar.Status.Phase, Message: ar.Status.Message}
	}
	return out
}

// apply creates and scales the ReplicaSets and starts and stops the runs.
func (r *Reconciler) apply(ctx context.Context, ex *rampv1.Experiment, w *world, out *experiment.Output) error {
	for _, name := range out.Create {
		if err := r.createReplicaSet(ctx, ex, name, w.hashes[name], out.Scale[name]); err != nil {
			return err
		}
	}
	for name, n := range out.Scale {
		rs := w.rs[name]
		d, had := out.ScaleDownDeadline, rs != nil && rs.Annotations[rampv1.ScaleDownDeadlineAnnotation] != ""
		var deadline any // the annotation to write: a time, nil to remove, or nothing
		switch {
		case rs != nil && !d.IsZero() && n > 0 && !had: // as upstream
			deadline = d.UTC().Format(time.RFC3339)
		case had && d.IsZero(): // running again (retried): the old verdict's deadline goes
			deadline = nil
		default:
			deadline = false
		}
		if deadline != false {
			if err := mergePatch(ctx, r.Client, rs, map[string]any{"metadata": map[string]any{"annotations": map[string]any{rampv1.ScaleDownDeadlineAnnotation: deadline}}}); err != nil {
				return fmt.Errorf("annotate ReplicaSet %s: %w", rs.Name, err)
			}
		}
		if rs == nil || (rs.Spec.Replicas != nil && *rs.Spec.Replicas == n) {
			continue
		}
		if err := mergePatch(ctx, r.Client, rs, map[string]any{"spec": map[string]any{"replicas": n}}); err != nil {
			return fmt.Errorf("scale ReplicaSet %s: %w", rs.Name, err)
		}
	}
	if err := r.applyServices(ctx, ex, w, out.Services); err != nil {
		return err
	}
	for _, name := range out.Start {
		spec, ok := w.specs[name]
		if !ok {
			continue
		}
		run, err := r.startRun(ctx, ex, w, name, spec)
		if err != nil {
			return err
		}
		r.created.Store(createdKey(ex, name), run)
		// recorded at once, as upstream: the next pass finds it by this
		// record even if it has completed by then
		out.Status.AnalysisRuns = append(out.Status.AnalysisRuns, rampv1.ExperimentAnalysisRunStatus{Name: name, AnalysisRun: run, Phase: rampv1.AnalysisPhasePending})
	}
	for _, name := range out.Terminate {
		if ar := w.runs[name]; ar != nil && !ar.Spec.Terminate {
			if err := mergePatch(ctx, r.Client, ar, map[string]any{"spec": map[string]any{"terminate": true}}); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("terminate AnalysisRun %s: %w", ar.Name, err)
			}
		}
	}
	return nil
}

func (r *Reconciler) createReplicaSet(ctx context.Context, ex *rampv1.Experiment, name, hash string, replicas int32) error {
	var t rampv1.TemplateSpec
	for _, x := range ex.Spec.Templates {
		if x.Name == name {
			t = x
		}
	}
	tmpl := t.Template.DeepCopy()
	tmpl.Labels = maps.Clone(tmpl.Labels)
	if tmpl.Labels == nil { // a template without labels (its selector may match none: DoesNotExist)
		tmpl.Labels = map[string]string{}
	}
	tmpl.Labels[rampv1.DefaultRolloutUniqueLabelKey] = hash
	sel := t.Selector.DeepCopy()
	if sel == nil { // the CRD requires a selector; an object stored without one must not crash the pass
		sel = &metav1.LabelSelector{}
	}
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	sel.MatchLabels[rampv1.DefaultRolloutUniqueLabelKey] = hash
	labels := maps.Clone(tmpl.Labels) // as upstream: the template's labels and the hash, nothing of Ramp's
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: ex.Name + "-" + name, Namespace: ex.Namespace, Labels: labels,
			Annotations:     map[string]string{rampv1.ExperimentNameAnnotation: ex.Name, rampv1.ExperimentTemplateNameAnnotation: name}, // as upstream
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ex, rampv1.GroupVersion.WithKind("Experiment"))}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, MinReadySeconds: t.MinReadySeconds, Selector: sel, Template: *tmpl},
	}
	if err := r.Client.Create(ctx, rs); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("create ReplicaSet %s: %w", rs.Name, err)
	}
	return nil
}

func mergePatch(ctx context.Context, c client.Client, obj client.Object, body map[string]any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data))
}
