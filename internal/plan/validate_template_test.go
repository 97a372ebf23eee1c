package plan

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// upstreamNginxTemplate is the Rollout of upstream's
// test/e2e/functional/nginx-template.yaml, whose REPLACEME its e2e replaces
// before use; as it is, upstream's controller and lint refuse it.
const upstreamNginxTemplate = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: REPLACEME
spec:
  replicas: 4
  selector:
    matchLabels:
      app: REPLACEME
  template:
    metadata:
      labels:
        app: REPLACEME
    spec:
      containers:
      - name: REPLACEME
        image: nginx:1.19-alpine
        ports:
        - name: http
          containerPort: 80
          protocol: TCP
        resources:
          requests:
            memory: 16Mi
            cpu: 5m
  strategy:
    canary:
      canaryService: REPLACEME-canary
      stableService: REPLACEME-stable
      trafficRouting:
        nginx:
          stableIngress: REPLACEME-ingress
`

const replaceMe = `spec.template.spec.containers[0].name: Invalid value: "REPLACEME": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`

// TestValidateTemplatePodSpec: after the selector, ValidateTemplate reports
// the first problem the API server would find in the template of a
// ReplicaSet, naming its full field; ValidateRollout reports it first.
func TestValidateTemplatePodSpec(t *testing.T) {
	valid := func() *rampv1.Rollout {
		ro := &rampv1.Rollout{}
		ro.Spec.Replicas = ptr.To(int32(3))
		ro.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
		// As the API server hands it over from a CRD: nothing defaulted.
		ro.Spec.Template = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}}
		ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{Steps: []rampv1.CanaryStep{weight(20), pauseForever()}}
		return ro
	}
	for _, tc := range []struct {
		name string
		edit func(*rampv1.Rollout)
		want string
	}{
		{"valid", func(*rampv1.Rollout) {}, ""},
		{"privileged", func(ro *rampv1.Rollout) {
			ro.Spec.Template.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		}, ""},
		{"container name", func(ro *rampv1.Rollout) { ro.Spec.Template.Spec.Containers[0].Name = "REPLACEME" }, replaceMe},
		{"duplicate container", func(ro *rampv1.Rollout) {
			c := &ro.Spec.Template.Spec
			c.Containers = append(c.Containers, c.Containers[0])
		}, `spec.template.spec.containers[1].name: Duplicate value: "web"`},
		{"no containers", func(ro *rampv1.Rollout) { ro.Spec.Template.Spec.Containers = nil }, "spec.template.spec.containers: Required value"},
		{"restartPolicy", func(ro *rampv1.Rollout) { ro.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
		{"selector first", func(ro *rampv1.Rollout) {
			ro.Spec.Template.Spec.Containers[0].Name = "REPLACEME"
			ro.Spec.Template.Labels["app"] = "api"
		}, `spec.selector "app=web" does not match spec.template.metadata.labels`},
		{"workloadRef without template: the controller checks the Deployment's", func(ro *rampv1.Rollout) {
			ro.Spec.Template, ro.Spec.WorkloadRef = nil, &rampv1.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := valid()
			tc.edit(ro)
			if got := ValidateTemplate(ro); got != tc.want {
				t.Errorf("ValidateTemplate\n got %s\nwant %s", got, tc.want)
			}
			if got := ValidateRollout(ro); tc.want != "" && (len(got) == 0 || got[0] != tc.want) {
				t.Errorf("ValidateRollout: %q, want %q first", got, tc.want)
			}
		})
	}
}

func TestValidateTemplateUpstreamNginxTemplate(t *testing.T) {
	var ro rampv1.Rollout
	if err := yaml.UnmarshalStrict([]byte(upstreamNginxTemplate), &ro); err != nil {
		t.Fatal(err)
	}
	if got := ValidateTemplate(&ro); got != replaceMe {
		t.Errorf("as it is:\n got %s\nwant %s", got, replaceMe)
	}
	var filled rampv1.Rollout
	if err := yaml.UnmarshalStrict([]byte(strings.ReplaceAll(upstreamNginxTemplate, "REPLACEME", "set-canary-scale")), &filled); err != nil {
		t.Fatal(err)
	}
	if got := ValidateTemplate(&filled); got != "" {
		t.Errorf("filled in as upstream's e2e does: %s", got)
	}
}
