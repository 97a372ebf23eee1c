package podtemplate

import (
	"encoding/json"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// FuzzValidate: no template, selector or job spec makes the validation
// panic, and every error names a field under the path given.
func FuzzValidate(f *testing.F) {
	for _, file := range []string{"testdata/templates.yaml", "testdata/stored.yaml"} {
		for _, tmpl := range load(f, file) {
			b, _ := json.Marshal(tmpl)
			f.Add(b, []byte(`{"matchLabels":{"app":"app"}}`))
		}
	}
	f.Add([]byte(`{"spec":{"containers":[{"name":"REPLACEME","image":"nginx"}],"restartPolicy":"Never"}}`), []byte(`{"matchExpressions":[{"key":"app","operator":"Near"}]}`))
	f.Add([]byte(`{"spec":{"containers":[{"name":"a","image":"x","resources":{"limits":{"hugepages-2Mi":"3Mi"}}}],"volumes":[{"name":"v"}]}}`), []byte(`null`))
	f.Add([]byte(`null`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, template, selector []byte) {
		var tmpl *corev1.PodTemplateSpec
		var sel *metav1.LabelSelector
		if yaml.Unmarshal(template, &tmpl) != nil || yaml.Unmarshal(selector, &sel) != nil {
			t.Skip()
		}
		under := func(errs field.ErrorList, root string) {
			for _, e := range errs {
				if e.Field != root && (len(e.Field) <= len(root) || e.Field[:len(root)] != root || (e.Field[len(root)] != '.' && e.Field[len(root)] != '[')) {
					t.Errorf("%v: not under %s", e, root)
				}
			}
		}
		under(Validate(tmpl, sel, 1, field.NewPath("spec", "templates").Index(1).Child("template")), "spec.templates[1].template")
		var spec *batchv1.JobSpec
		if tmpl != nil {
			spec = &batchv1.JobSpec{Template: *tmpl, Selector: sel}
		}
		under(ValidateJob(spec, field.NewPath("spec", "metrics").Index(0).Child("provider", "job", "spec")), "spec.metrics[0].provider.job.spec")
	})
}
