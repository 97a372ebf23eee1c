package experiment

import (
	"context"
	"fmt"
	"maps"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
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
	return &rampv1.AnalysisRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ex.Namespace, Labels: labels,
			Annotations:     maps.Clone(md.Annotations),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ex, rampv1.GroupVersion.WithKind("Experiment"))}},
		Spec: spec,
	}
}
