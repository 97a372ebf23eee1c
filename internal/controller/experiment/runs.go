package experiment

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// runSpec is the AnalysisRun spec of one of the Experiment's analyses: the
// template's metrics and arguments, the analysis's argument values (with
// {{templates.<name>.podTemplateHash}} resolved), and the Experiment's
// dryRun and measurementRetention.
func (r *Reconciler) runSpec(ctx context.Context, ex *rampv1.Experiment, a rampv1.ExperimentAnalysisTemplateRef, hashes map[string]string) (rampv1.AnalysisRunSpec, error) {
	t, err := r.template(ctx, ex.Namespace, a)
	if err != nil {
		return rampv1.AnalysisRunSpec{}, err
	}
	spec := rampv1.AnalysisRunSpec{Metrics: t.Metrics, Args: t.Args,
		DryRun:               append(append([]rampv1.DryRun(nil), t.DryRun...), ex.Spec.DryRun...),
		MeasurementRetention: append(append([]rampv1.MeasurementRetention(nil), t.MeasurementRetention...), ex.Spec.MeasurementRetention...)}
	for _, given := range a.Args {
		for i := range spec.Args {
			if spec.Args[i].Name != given.Name {
				continue
			}
			spec.Args[i] = *given.DeepCopy()
			if v := spec.Args[i].Value; v != nil {
				resolved := templateVars(*v, hashes)
				spec.Args[i].Value = &resolved
			}
		}
	}
	for _, arg := range spec.Args {
		if arg.Value == nil && arg.ValueFrom == nil {
			return spec, fmt.Errorf("argument %q of %s has no value: set it in args", arg.Name, a.TemplateName)
		}
	}
	if err := analysis.ValidateMetricsWithArgs(spec.Metrics, spec.Args); err != nil {
		return spec, err
	}
	return spec, nil
}

// templateVars replaces {{templates.<name>.podTemplateHash}}.
func templateVars(v string, hashes map[string]string) string {
	for name, h := range hashes {
		v = strings.ReplaceAll(v, "{{templates."+name+".podTemplateHash}}", h)
	}
	return v
}

// readError is an error reading the API, not a fact about the spec: the
// pass returns it for a retry instead of ending the Experiment in Error.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

// template reads the (Cluster)AnalysisTemplate an analysis names, from the
// cache. A missing template is a plain error, any other a readError.
func (r *Reconciler) template(ctx context.Context, ns string, a rampv1.ExperimentAnalysisTemplateRef) (*rampv1.AnalysisTemplateSpec, error) {
	if a.ClusterScope {
		var t rampv1.ClusterAnalysisTemplate
		err := r.Client.Get(ctx, client.ObjectKey{Name: a.TemplateName}, &t)
		switch {
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("ClusterAnalysisTemplate %q not found", a.TemplateName)
		case err != nil:
			return nil, readError{fmt.Errorf("read ClusterAnalysisTemplate %q: %w", a.TemplateName, err)}
		}
		return t.Spec.DeepCopy(), nil
	}
	var t rampv1.AnalysisTemplate
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: a.TemplateName}, &t)
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("AnalysisTemplate %q not found in namespace %q", a.TemplateName, ns)
	case err != nil:
		return nil, readError{fmt.Errorf("read AnalysisTemplate %q: %w", a.TemplateName, err)}
	}
	return t.Spec.DeepCopy(), nil
}

// newRun is the AnalysisRun named name (freeRunName) of an analysis.
func newRun(ex *rampv1.Experiment, name string, spec rampv1.AnalysisRunSpec) *rampv1.AnalysisRun {
	labels := map[string]string{} // as upstream: no labels of Ramp's; the run is found by owner and name
	if id, ok := ex.Labels[rampv1.ControllerInstanceIDLabel]; ok {
		labels[rampv1.ControllerInstanceIDLabel] = id
	}
	md := ex.Spec.AnalysisRunMetadata
	for k, v := range md.Labels {
		if _, ours := labels[k]; !ours {
			labels[k] = v
		}
	}
	annotations := maps.Clone(md.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[rampv1.RunSpecHashAnnotation] = plan.RunSpecHash(spec) // after analysisRunMetadata's: not overridden
	return &rampv1.AnalysisRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ex.Namespace, Labels: labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ex, rampv1.GroupVersion.WithKind("Experiment"))}},
		Spec: spec,
	}
}

// maxRunNameTries bounds the names startRun tries for one run.
const maxRunNameTries = 10

// startRun creates the run of an analysis under the first name no run the
// Experiment owns holds (freeRunName) and returns that name. A name the
// API server reports taken is the Experiment's own run only when
// plan.RunReuse allows it (created by a pass whose status write was lost);
// a run there that it may not take up is reported (w.notReused) and the
// next name is tried.
func (r *Reconciler) startRun(ctx context.Context, ex *rampv1.Experiment, w *world, analysis string, spec rampv1.AnalysisRunSpec) (string, error) {
	want := plan.RunSpecHash(spec)
	for range maxRunNameTries {
		run := newRun(ex, freeRunName(ex, analysis, w.runNames), spec)
		err := r.Client.Create(ctx, run)
		if err == nil {
			return run.Name, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("create AnalysisRun for analysis %q: %w", analysis, err)
		}
		existing, err := r.readRun(ctx, client.ObjectKeyFromObject(run))
		if err != nil {
			return "", fmt.Errorf("create AnalysisRun for analysis %q: %s exists, and reading it failed: %w", analysis, run.Name, err)
		}
		why := plan.RunReuse(existing, ex.UID, want)
		if why == "" {
			return run.Name, nil
		}
		w.notReuse(run.Name, why)
		w.runNames[run.Name] = true
	}
	return "", fmt.Errorf("create AnalysisRun for analysis %q: %d names tried, each held by a run this Experiment may not take up", analysis, maxRunNameTries)
}

// readRun reads a run from the cache, then live when the cache has not
// seen it.
func (r *Reconciler) readRun(ctx context.Context, key client.ObjectKey) (*rampv1.AnalysisRun, error) {
	ar := &rampv1.AnalysisRun{}
	err := r.Client.Get(ctx, key, ar)
	if apierrors.IsNotFound(err) && r.Live != nil {
		err = r.Live.Get(ctx, key, ar)
	}
	return ar, err
}

// notReuse records that the run name is not taken up, and why.
func (w *world) notReuse(name, why string) {
	if w.notReused == nil {
		w.notReused = map[string]string{}
	}
	w.notReused[name] = why
}

// reportNotReused records one Warning Event per run not taken up this pass.
func (r *Reconciler) reportNotReused(ex *rampv1.Experiment, w *world) {
	for _, name := range slices.Sorted(maps.Keys(w.notReused)) {
		r.Recorder.Eventf(ex, nil, corev1.EventTypeWarning, rampv1.RunNotReusedReason, "Create",
			"%s", plan.NotReusedMessage(name, w.notReused[name]))
	}
}
