package podtemplate

import (
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	"k8s.io/kubernetes/pkg/apis/batch"
	batchinternal "k8s.io/kubernetes/pkg/apis/batch/v1"
	batchvalidation "k8s.io/kubernetes/pkg/apis/batch/validation"
	"k8s.io/kubernetes/pkg/apis/core"
	coreinternal "k8s.io/kubernetes/pkg/apis/core/v1"
)

// Validate reports what the API server would refuse in t as the pod
// template of a ReplicaSet with this selector and replica count: the
// template's labels must match the selector, restartPolicy must be Always,
// activeDeadlineSeconds unset, and the pod spec valid. path is the
// template's field from the object's root (spec.template,
// spec.templates[1].template); errors name full paths under it.
//
// The template is defaulted first, as the API server defaults a
// ReplicaSet's, on a copy: t is not changed. The selector's own problems are
// the caller's to report at its own field; here a nil selector matches no
// labels (as in the API server) and an invalid one is reported against the
// template's labels.
func Validate(t *corev1.PodTemplateSpec, selector *metav1.LabelSelector, replicas int32, path *field.Path) field.ErrorList {
	if t == nil {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		errs = append(errs, field.Invalid(path.Child("metadata", "labels"), t.Labels, "`selector` is invalid: "+err.Error()))
		sel = labels.Everything() // validate the rest
	}
	tmpl := corev1.PodTemplate{Template: *t.DeepCopy()}
	coreinternal.SetObjectDefaults_PodTemplate(&tmpl)
	var internal core.PodTemplateSpec
	if err := coreinternal.Convert_v1_PodTemplateSpec_To_core_PodTemplateSpec(&tmpl.Template, &internal, nil); err != nil {
		return append(errs, field.InternalError(path, err))
	}
	errs = append(errs, appsvalidation.ValidatePodTemplateSpecForReplicaSet(&internal, sel, replicas, path, podOptions)...)
	return clusterPolicyless(errs)
}

// ValidateJob reports what the API server would refuse in spec as the spec
// of a Job created without a selector of its own, as an AnalysisTemplate's
// job metric creates one: the API server then generates the selector and
// the template's job-name and controller-uid labels, and the template's
// restartPolicy must be Never or OnFailure. path is the spec's field from
// the object's root (spec.metrics[0].provider.job.spec); errors name full
// paths under it. spec is not changed.
//
// The Job's metadata (its name, labels and namespace) is Ramp's to choose
// when it creates the Job, so it is not checked here.
func ValidateJob(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	if spec == nil {
		return field.ErrorList{field.Required(path, "")}
	}
	job := batchv1.Job{
		// Read in messages about the generated selector and labels.
		ObjectMeta: metav1.ObjectMeta{Name: "set-by-ramp", Namespace: "set-by-ramp", UID: "set-by-the-api-server"},
		Spec:       *spec.DeepCopy(),
	}
	batchinternal.SetObjectDefaults_Job(&job)
	var internal batch.Job
	if err := batchinternal.Convert_v1_Job_To_batch_Job(&job, &internal, nil); err != nil {
		return field.ErrorList{field.InternalError(path, err)}
	}
	if internal.Spec.ManualSelector == nil || !*internal.Spec.ManualSelector {
		generateSelector(&internal)
	}
	opts := batchvalidation.JobValidationOptions{PodValidationOptions: podOptions, RequirePrefixedLabels: true}
	return clusterPolicyless(reroot(batchvalidation.ValidateJob(&internal, opts), path))
}

// generateSelector does what the API server does to a Job created without
// manualSelector: it adds the job-name and controller-uid labels to the
// template (those the user set are kept, and validation refuses a wrong one)
// and selects the controller-uid label.
func generateSelector(job *batch.Job) {
	t := &job.Spec.Template
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	for key, value := range map[string]string{
		batch.LegacyJobNameLabel: job.Name, batch.JobNameLabel: job.Name,
		batch.LegacyControllerUidLabel: string(job.UID), batch.ControllerUidLabel: string(job.UID),
	} {
		if _, ok := t.Labels[key]; !ok {
			t.Labels[key] = value
		}
	}
	if job.Spec.Selector == nil {
		job.Spec.Selector = &metav1.LabelSelector{}
	}
	if job.Spec.Selector.MatchLabels == nil {
		job.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, ok := job.Spec.Selector.MatchLabels[batch.ControllerUidLabel]; !ok {
		job.Spec.Selector.MatchLabels[batch.ControllerUidLabel] = string(job.UID)
	}
}

// reroot keeps the errors about the Job's spec, naming them under path
// instead of "spec", and drops those about the Job's metadata.
func reroot(errs field.ErrorList, path *field.Path) field.ErrorList {
	var out field.ErrorList
	for _, e := range errs {
		rest, ok := strings.CutPrefix(e.Field, "spec")
		if !ok || (rest != "" && rest[0] != '.' && rest[0] != '[') {
			continue
		}
		c := *e
		if path == nil {
			c.Field = strings.TrimPrefix(rest, ".")
		} else {
			c.Field = path.String() + rest
		}
		out = append(out, &c)
	}
	return out
}

// clusterPolicyless drops the errors that depend on the cluster's
// --allow-privileged flag, which Ramp cannot read: the validation library
// reads it from a process-wide setting (k8s.io/kubernetes/pkg/capabilities)
// that only an API server sets, and that refuses privileged and Windows
// hostProcess containers when unset. Most clusters allow them; where one does
// not, creating the ReplicaSet fails and says so.
func clusterPolicyless(errs field.ErrorList) field.ErrorList {
	out := errs[:0:0]
	for _, e := range errs {
		if e.Type == field.ErrorTypeForbidden && strings.HasSuffix(e.Detail, "disallowed by cluster policy") {
			continue
		}
		out = append(out, e)
	}
	return out
}
