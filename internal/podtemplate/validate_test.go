package podtemplate

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// web is a template as users write it: nothing the API server defaults is
// set (imagePullPolicy, terminationMessagePolicy, restartPolicy, dnsPolicy).
func web() *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "web", Image: "nginx:1.27",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
		}}},
	}
}

var webSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}

const labelValue = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`

const rfc1123 = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`

func TestValidate(t *testing.T) {
	path := field.NewPath("spec", "template")
	for _, tc := range []struct {
		name     string
		mutate   func(*corev1.PodTemplateSpec)
		selector *metav1.LabelSelector
		nilT     bool
		want     string // the first error, "" for none
	}{
		{name: "normal", want: ""},
		{name: "with resources", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")},
			}
		}},
		{name: "privileged container", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: to(true)}
			t.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox", SecurityContext: &corev1.SecurityContext{Privileged: to(true)}}}
		}},
		{name: "windows hostProcess", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.HostNetwork = true
			t.Spec.Containers[0].Ports = nil
			t.Spec.SecurityContext = &corev1.PodSecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: to(true)}}
		}},
		{name: "environment variable name a 1.36 API server accepts", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "1-not.a C identifier", Value: "x"}}
		}},
		{name: "seLinuxChangePolicy MountOption (SELinuxMount gate)", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.SecurityContext = &corev1.PodSecurityContext{SELinuxChangePolicy: to(corev1.SELinuxChangePolicyMountOption)}
		}},
		{name: "sleep 0 preStop", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 0}}}
		}},
		{name: "container name", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.Containers[0].Name = "REPLACEME" },
			want: `spec.template.spec.containers[0].name: Invalid value: "REPLACEME": ` + rfc1123},
		{name: "duplicate container names", mutate: func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "web", Image: "busybox"})
		}, want: `spec.template.spec.containers[1].name: Duplicate value: "web"`},
		{name: "no image", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.Containers[0].Image = "" },
			want: "spec.template.spec.containers[0].image: Required value"},
		{name: "no containers", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.Containers = nil },
			want: "spec.template.spec.containers: Required value"},
		{name: "restartPolicy", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.RestartPolicy = corev1.RestartPolicyOnFailure },
			want: `spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`},
		{name: "activeDeadlineSeconds", mutate: func(t *corev1.PodTemplateSpec) { t.Spec.ActiveDeadlineSeconds = to(int64(60)) },
			want: "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"},
		{name: "invalid label", mutate: func(t *corev1.PodTemplateSpec) { t.Labels["tier"] = "front end" },
			selector: webSelector, want: `spec.template.labels: Invalid value: "front end": ` + labelValue},
		{name: "selector does not match", selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
			want: "spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`"},
		{name: "nil selector", selector: nil,
			want: "spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`"},
		{name: "invalid selector", selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}},
			want: "spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` is invalid: \"Near\" is not a valid label selector operator"},
		{name: "nil template", nilT: true, selector: webSelector, want: "spec.template: Required value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmpl := web()
			if tc.mutate != nil {
				tc.mutate(tmpl)
			}
			if tc.nilT {
				tmpl = nil
			}
			sel := tc.selector
			if sel == nil && !strings.HasPrefix(tc.name, "nil") {
				sel = webSelector
			}
			errs := Validate(tmpl, sel, 3, path)
			got := ""
			if len(errs) > 0 {
				got = errs[0].Error()
			}
			if got != tc.want {
				t.Errorf("first error\n got %s\nwant %s\n(all: %v)", got, tc.want, errs)
			}
		})
	}
}

// TestValidateDoesNotChangeTheTemplate: the defaults are applied to a copy.
func TestValidateDoesNotChangeTheTemplate(t *testing.T) {
	tmpl := web()
	tmpl.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: to(true)}
	before := tmpl.DeepCopy()
	Validate(tmpl, webSelector, 1, field.NewPath("spec", "template"))
	if !apiequality.Semantic.DeepEqual(tmpl, before) {
		t.Errorf("Validate changed the template:\n%+v\nwas\n%+v", tmpl, before)
	}
	spec := &batchv1.JobSpec{Template: *web()}
	spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	jobBefore := spec.DeepCopy()
	ValidateJob(spec, field.NewPath("spec"))
	if !apiequality.Semantic.DeepEqual(spec, jobBefore) {
		t.Errorf("ValidateJob changed the spec:\n%+v\nwas\n%+v", spec, jobBefore)
	}
}

// TestTestdataValid: the templates a real API server stored in a ReplicaSet
// (and what it stored) are valid.
func TestTestdataValid(t *testing.T) {
	for _, file := range []string{"testdata/templates.yaml", "testdata/stored.yaml"} {
		for i, tmpl := range load(t, file) {
			sel := &metav1.LabelSelector{MatchLabels: tmpl.Labels}
			if errs := Validate(&tmpl, sel, 1, field.NewPath("spec", "template")); len(errs) > 0 {
				t.Errorf("%s[%d]: %v", file, i, errs)
			}
		}
	}
}

func TestValidateJob(t *testing.T) {
	path := field.NewPath("spec", "metrics").Index(0).Child("provider", "job", "spec")
	// upstream's e2e job metric (test/e2e/functional/analysis-run-job.yaml)
	sleep := func() *batchv1.JobSpec {
		return &batchv1.JobSpec{BackoffLimit: to(int32(0)), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers:    []corev1.Container{{Name: "sleep", Image: "nginx:1.19-alpine", Command: []string{"sleep", "30"}}},
			RestartPolicy: corev1.RestartPolicyNever,
		}}}
	}
	for _, tc := range []struct {
		name   string
		mutate func(*batchv1.JobSpec)
		nil    bool
		want   string
	}{
		{name: "upstream's sleep job"},
		{name: "OnFailure", mutate: func(s *batchv1.JobSpec) { s.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure }},
		{name: "labels of its own", mutate: func(s *batchv1.JobSpec) { s.Template.Labels = map[string]string{"app": "check"} }},
		{name: "manual selector", mutate: func(s *batchv1.JobSpec) {
			s.ManualSelector = to(true)
			s.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "check"}}
			s.Template.Labels = map[string]string{"app": "check"}
		}},
		{name: "indexed", mutate: func(s *batchv1.JobSpec) {
			s.CompletionMode = to(batchv1.IndexedCompletion)
			s.Completions, s.Parallelism = to(int32(3)), to(int32(3))
		}},
		{name: "restartPolicy defaults to Always", mutate: func(s *batchv1.JobSpec) { s.Template.Spec.RestartPolicy = "" },
			want: `spec.metrics[0].provider.job.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`},
		{name: "container name", mutate: func(s *batchv1.JobSpec) { s.Template.Spec.Containers[0].Name = "REPLACEME" },
			want: `spec.metrics[0].provider.job.spec.template.spec.containers[0].name: Invalid value: "REPLACEME": ` + rfc1123},
		{name: "selector without manualSelector", mutate: func(s *batchv1.JobSpec) {
			s.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "check"}}
			s.Template.Labels = map[string]string{"app": "check"}
		}, want: "spec.metrics[0].provider.job.spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"check\",\"batch.kubernetes.io/controller-uid\":\"set-by-the-api-server\"}}: `selector` not auto-generated"},
		{name: "a job-name label of its own", mutate: func(s *batchv1.JobSpec) {
			s.Template.Labels = map[string]string{"batch.kubernetes.io/job-name": "mine"}
		}, want: `spec.metrics[0].provider.job.spec.template.metadata.labels[batch.kubernetes.io/job-name]: Invalid value: {"batch.kubernetes.io/controller-uid":"set-by-the-api-server","batch.kubernetes.io/job-name":"mine","controller-uid":"set-by-the-api-server","job-name":"set-by-ramp"}: must be 'set-by-ramp'`},
		{name: "podFailurePolicy with OnFailure", mutate: func(s *batchv1.JobSpec) {
			s.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			s.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}}}}
		}, want: `spec.metrics[0].provider.job.spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified`},
		{name: "negative backoffLimit", mutate: func(s *batchv1.JobSpec) { s.BackoffLimit = to(int32(-1)) },
			want: "spec.metrics[0].provider.job.spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"},
		{name: "nil spec", nil: true, want: "spec.metrics[0].provider.job.spec: Required value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := sleep()
			if tc.mutate != nil {
				tc.mutate(spec)
			}
			if tc.nil {
				spec = nil
			}
			errs := ValidateJob(spec, path)
			got := ""
			if len(errs) > 0 {
				got = errs[0].Error()
			}
			if got != tc.want {
				t.Errorf("first error\n got %s\nwant %s\n(all: %v)", got, tc.want, errs)
			}
		})
	}
}

// TestNilPath: without a path, errors name fields relative to what was
// passed.
func TestNilPath(t *testing.T) {
	tmpl := web()
	tmpl.Spec.Containers[0].Name = "REPLACEME"
	if errs := Validate(tmpl, webSelector, 1, nil); len(errs) == 0 || errs[0].Field != "spec.containers[0].name" {
		t.Errorf("Validate: %v", errs)
	}
	spec := &batchv1.JobSpec{Template: *tmpl}
	spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	if errs := ValidateJob(spec, nil); len(errs) == 0 || errs[0].Field != "template.spec.containers[0].name" {
		t.Errorf("ValidateJob: %v", errs)
	}
	if errs := Validate(nil, nil, 0, nil); len(errs) != 1 {
		t.Errorf("Validate(nil): %v", errs)
	}
	if errs := ValidateJob(nil, nil); len(errs) != 1 {
		t.Errorf("ValidateJob(nil): %v", errs)
	}
}

func to[T any](v T) *T { return &v }
