package rollout

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// runSpec merges the templates a RolloutAnalysis references into one
// AnalysisRun spec, with the Rollout's arguments resolved (value,
// podTemplateHashValue, fieldRef; secretKeyRef is left to the run). field
// names where the analysis is in the spec, for error messages.
func (r *Reconciler) runSpec(ctx context.Context, ro *rampv1.Rollout, newHash string, a rampv1.RolloutAnalysis, field string) (rampv1.AnalysisRunSpec, error) {
	var spec rampv1.AnalysisRunSpec
	args := map[string]int{} // name -> index in spec.Args
	metrics := map[string]string{}
	for i, ref := range a.Templates {
		t, what, err := r.template(ctx, ro.Namespace, ref)
		if err != nil {
			return spec, fmt.Errorf("%s.templates[%d]: %w", field, i, err)
		}
		for _, m := range t.Metrics {
			if prev, dup := metrics[m.Name]; dup {
				return spec, fmt.Errorf("%s.templates[%d]: metric %q of %s is also defined by %s", field, i, m.Name, what, prev)
			}
			metrics[m.Name] = what
			spec.Metrics = append(spec.Metrics, *m.DeepCopy())
		}
		for _, arg := range t.Args {
			if _, seen := args[arg.Name]; !seen {
				args[arg.Name] = len(spec.Args)
				spec.Args = append(spec.Args, *arg.DeepCopy())
			}
		}
		spec.DryRun = append(spec.DryRun, t.DryRun...)
		spec.MeasurementRetention = append(spec.MeasurementRetention, t.MeasurementRetention...)
	}
	for i, ra := range a.Args {
		v, err := rolloutArg(ro, newHash, ra)
		if err != nil {
			return spec, fmt.Errorf("%s.args[%d] %q: %w", field, i, ra.Name, err)
		}
		idx, ok := args[ra.Name]
		if !ok {
			continue // an argument no template declares is ignored, as upstream
		}
		spec.Args[idx].Value, spec.Args[idx].ValueFrom = &v, nil
	}
	for _, arg := range spec.Args {
		if arg.Value == nil && arg.ValueFrom == nil {
			return spec, fmt.Errorf("%s: argument %q of the analysis templates has no value: set it in %s.args", field, arg.Name, field)
		}
	}
	spec.DryRun = append(spec.DryRun, a.DryRun...)
	spec.MeasurementRetention = append(spec.MeasurementRetention, a.MeasurementRetention...)
	if err := analysis.ValidateMetricsWithArgs(spec.Metrics, spec.Args); err != nil {
		return spec, fmt.Errorf("%s: %w", field, err)
	}
	return spec, nil
}

// readError is an error reading the API, not a fact about the spec: the
// pass returns it for a retry instead of reporting InvalidSpec.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

// template reads an AnalysisTemplate (or ClusterAnalysisTemplate) from the
// cache; what names it for messages. A missing template is a plain error
// (InvalidSpec), any other read error a readError.
func (r *Reconciler) template(ctx context.Context, ns string, ref rampv1.AnalysisTemplateRef) (*rampv1.AnalysisTemplateSpec, string, error) {
	if ref.TemplateName == "" {
		return nil, "", fmt.Errorf("templateName is required")
	}
	var (
		spec *rampv1.AnalysisTemplateSpec
		what string
		err  error
	)
	if ref.IsClusterScope() {
		var t rampv1.ClusterAnalysisTemplate
		spec, what, err = &t.Spec, fmt.Sprintf("ClusterAnalysisTemplate %q", ref.TemplateName), r.Client.Get(ctx, client.ObjectKey{Name: ref.TemplateName}, &t)
	} else {
		var t rampv1.AnalysisTemplate
		spec, what, err = &t.Spec, fmt.Sprintf("AnalysisTemplate %q", ref.TemplateName), r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.TemplateName}, &t)
	}
	switch {
	case apierrors.IsNotFound(err) && ref.IsClusterScope():
		return nil, "", fmt.Errorf("%s not found", what)
	case apierrors.IsNotFound(err):
		return nil, "", fmt.Errorf("%s not found in namespace %q", what, ns)
	case err != nil:
		return nil, "", readError{fmt.Errorf("read %s: %w", what, err)}
	}
	return spec, what, nil
}

// rolloutArg resolves one argument the Rollout passes to its templates.
func rolloutArg(ro *rampv1.Rollout, newHash string, a rampv1.AnalysisRunArgument) (string, error) {
	switch {
	case a.ValueFrom == nil:
		return a.Value, nil
	case a.ValueFrom.PodTemplateHashValue != nil:
		switch *a.ValueFrom.PodTemplateHashValue {
		case rampv1.PodTemplateHashStable:
			return ro.Status.StableRS, nil
		case rampv1.PodTemplateHashLatest:
			return newHash, nil
		}
		return "", fmt.Errorf("valueFrom.podTemplateHashValue %q: must be Stable or Latest", *a.ValueFrom.PodTemplateHashValue)
	case a.ValueFrom.FieldRef != nil:
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ro)
		if err != nil {
			return "", err
		}
		return analysis.FieldValue(obj, a.ValueFrom.FieldRef.FieldPath)
	}
	return a.Value, nil
}

// newRun is the AnalysisRun of a plan.RunStart, named
// <rollout>-<hash>-<revision>[-<step>|-pre|-post] (a suffix .N is added by
// createRun when that name is taken).
func newRun(ro *rampv1.Rollout, hash string, revision int64, start plan.RunStart, spec rampv1.AnalysisRunSpec) *rampv1.AnalysisRun {
	name := fmt.Sprintf("%s-%s-%d", ro.Name, hash, revision)
	labels := map[string]string{rampv1.DefaultRolloutUniqueLabelKey: hash, rampv1.RolloutTypeLabel: string(start.Type)}
	switch start.Type {
	case plan.RunStep:
		name += "-" + strconv.Itoa(int(*start.StepIndex))
		labels[rampv1.RolloutCanaryStepIndexLabel] = strconv.Itoa(int(*start.StepIndex))
	case plan.RunPrePromotion:
		name += "-pre"
	case plan.RunPostPromotion:
		name += "-post"
	}
	if id, ok := ro.Labels[rampv1.ControllerInstanceIDLabel]; ok {
		labels[rampv1.ControllerInstanceIDLabel] = id
	}
	// As upstream: the revision annotation, the Rollout's selector labels
	// (they win over analysisRunMetadata's).
	annotations := map[string]string{rampv1.RevisionAnnotation: strconv.FormatInt(revision, 10)}
	if md := start.Analysis.AnalysisRunMetadata; md != nil {
		maps.Copy(annotations, md.Annotations)
		for k, v := range md.Labels {
			if _, ours := labels[k]; !ours {
				labels[k] = v
			}
		}
	}
	annotations[rampv1.RunSpecHashAnnotation] = plan.RunSpecHash(spec) // after analysisRunMetadata's: not overridden
	if sel := ro.Spec.Selector; sel != nil {
		for k, v := range sel.MatchLabels {
			if _, ours := labels[k]; !ours {
				labels[k] = v
			}
		}
	}
	return &rampv1.AnalysisRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ro.Namespace, Labels: labels, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{*ownerRef(ro)}},
		Spec: spec,
	}
}
