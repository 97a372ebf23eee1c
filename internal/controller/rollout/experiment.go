package rollout

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// ownedExperiments lists the Experiments the Rollout controls (cache).
func (r *Reconciler) ownedExperiments(ctx context.Context, ro *rampv1.Rollout) ([]*rampv1.Experiment, error) {
	var list rampv1.ExperimentList
	if err := r.Client.List(ctx, &list, client.InNamespace(ro.Namespace), client.MatchingFields{ownerIndex: string(ro.UID)}); err != nil {
		return nil, fmt.Errorf("list experiments of rollout %s/%s: %w", ro.Namespace, ro.Name, err)
	}
	out := make([]*rampv1.Experiment, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, &list.Items[i])
	}
	return out, nil
}

func toPlanExperiments(exs []*rampv1.Experiment) map[string]plan.Experiment {
	out := make(map[string]plan.Experiment, len(exs))
	for _, ex := range exs {
		out[ex.Name] = plan.Experiment{Name: ex.Name, Hash: ex.Labels[rampv1.DefaultRolloutUniqueLabelKey], StepIndex: experimentStepIndex(ex),
			Phase: ex.Status.Phase, Message: ex.Status.Message, Terminating: ex.Spec.Terminate}
	}
	return out
}

// applyExperiments creates the Experiment the plan asks for and stops
// those it no longer wants.
func (r *Reconciler) applyExperiments(ctx context.Context, ro *rampv1.Rollout, w *world, out *plan.Output) error {
	if s := out.StartExperiment; s != nil {
		ex, err := newExperiment(ro, w, s)
		if err != nil {
			return err
		}
		if err := r.createExperiment(ctx, ro, ex, w); err != nil {
			return err
		}
		out.ExperimentStarted(ex.Name)
	}
	for _, ex := range w.experiments {
		if !slices.Contains(out.TerminateExperiments, ex.Name) {
			continue
		}
		body := []byte(`{"spec":{"terminate":true}}`)
		if err := r.Client.Patch(ctx, ex, client.RawPatch(types.MergePatchType, body)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("terminate experiment %s: %w", ex.Name, err)
		}
	}
	return nil
}

// createExperiment creates ex, named <name>.N when an ended Experiment of
// an earlier try (before a retry) holds the name; one still going is the
// same try's, created by a pass whose status write has not arrived. ex.Name
// is the name it settled on.
func (r *Reconciler) createExperiment(ctx context.Context, ro *rampv1.Rollout, ex *rampv1.Experiment, w *world) error {
	cached := func(name string) nameUse {
		i := slices.IndexFunc(w.experiments, func(x *rampv1.Experiment) bool { return x.Name == name })
		switch {
		case i < 0:
			return nameFree
		case w.experiments[i].Status.Phase.Completed() || w.experiments[i].Spec.Terminate:
			return nameSpent
		}
		return nameOurs
	}
	ours := func(context.Context, string) (nameUse, error) { return nameOurs, nil } // not cached yet: this try's
	created, err := r.createFree(ctx, "experiment", ex, cached, ours)
	if err != nil {
		return err
	}
	if created { // as upstream, said on the Rollout
		r.Recorder.Eventf(ro, ex, corev1.EventTypeNormal, rampv1.RolloutReasonExperimentCreated, "Create", rampv1.RolloutMessageExperimentCreated, ex.Name)
	}
	return nil
}

// newExperiment is the Experiment of an experiment step, named
// <rollout>-<hash>-<revision>-<step>: its templates are the stable or the
// new pod template (with the step's metadata), its analyses get the
// Rollout's argument values.
func newExperiment(ro *rampv1.Rollout, w *world, s *plan.ExperimentStart) (*rampv1.Experiment, error) {
	e, idx := s.Step, s.StepIndex
	field := fmt.Sprintf("spec.strategy.canary.steps[%d].experiment", idx)
	spec := rampv1.ExperimentSpec{Duration: e.Duration, DryRun: e.DryRun, ScaleDownDelaySeconds: e.ScaleDownDelaySeconds}
	spec.AnalysisRunMetadata = *e.AnalysisRunMetadata.DeepCopy()
	for _, t := range e.Templates {
		tmpl := w.template.DeepCopy()
		if t.SpecRef == rampv1.StableSpecRef {
			if w.stableRS == nil {
				return nil, fmt.Errorf("%s: template %q: specRef stable, but there is no stable ReplicaSet", field, t.Name)
			}
			tmpl = withoutEphemeral(ro, w.stableRS, w.template)
		}
		tmpl.Labels = merged(tmpl.Labels, t.Metadata.Labels)
		tmpl.Annotations = merged(tmpl.Annotations, t.Metadata.Annotations)
		sel := ro.Spec.Selector.DeepCopy()
		if t.Selector != nil {
			sel = t.Selector.DeepCopy()
		}
		spec.Templates = append(spec.Templates, rampv1.TemplateSpec{Name: t.Name, Replicas: t.Replicas, Selector: sel,
			Template: *tmpl, MinReadySeconds: ro.Spec.MinReadySeconds, Service: t.Service.DeepCopy()})
	}
	for i, a := range e.Analyses {
		ref := rampv1.ExperimentAnalysisTemplateRef{Name: a.Name, TemplateName: a.TemplateName, ClusterScope: a.IsClusterScope(),
			RequiredForCompletion: a.RequiredForCompletion}
		for j, arg := range a.Args {
			v, err := rolloutArg(ro, w.hash, arg)
			if err != nil {
				return nil, fmt.Errorf("%s.analyses[%d].args[%d] %q: %w", field, i, j, arg.Name, err)
			}
			ref.Args = append(ref.Args, rampv1.Argument{Name: arg.Name, Value: &v})
		}
		spec.Analyses = append(spec.Analyses, ref)
	}
	labels := merged(ro.Labels, map[string]string{rampv1.DefaultRolloutUniqueLabelKey: w.hash}) // upstream: the Rollout's labels and the hash
	if id, ok := ro.Labels[rampv1.ControllerInstanceIDLabel]; ok {
		labels[rampv1.ControllerInstanceIDLabel] = id
	}
	return &rampv1.Experiment{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%s-%d-%d", ro.Name, w.hash, w.revision, idx), Namespace: ro.Namespace,
			Labels: labels, Annotations: map[string]string{rampv1.RevisionAnnotation: strconv.FormatInt(int64(w.revision), 10)}, OwnerReferences: []metav1.OwnerReference{*ownerRef(ro)}},
		Spec: spec,
	}, nil
}

func merged(base, extra map[string]string) map[string]string {
	if len(extra) == 0 {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, extra)
	return out
}

// experimentStepIndex is the step an Experiment runs: the last number of
// its name (<rollout>-<hash>-<revision>-<step>[.<collision>]), or the
// step-index label earlier Ramp versions wrote.
func experimentStepIndex(ex *rampv1.Experiment) int32 {
	s, ok := ex.Labels[rampv1.RolloutCanaryStepIndexLabel]
	if !ok {
		s, _, _ = strings.Cut(ex.Name[strings.LastIndex(ex.Name, "-")+1:], ".")
	}
	n, _ := strconv.ParseInt(s, 10, 32) // not a number: step 0
	return int32(n)
}
