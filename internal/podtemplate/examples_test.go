package podtemplate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestManifestsValid: the pod templates and job metrics of upstream's
// examples and e2e manifests, and of Ramp's e2e manifests, are valid, except
// those listed.
func TestManifestsValid(t *testing.T) {
	want := map[string]string{
		// Templates upstream's e2e fills in before use (upstream's lint
		// refuses them as they are).
		"test/e2e/functional/nginx-template.yaml Rollout/REPLACEME": `spec.template.spec.containers[0].name: Invalid value: "REPLACEME": ` + rfc1123,
		"test/e2e/step-plugin/template-rollout.yaml Rollout/step-plugin-e2e-$$name$$": `spec.template.metadata.labels: Invalid value: {"app":"step-plugin-e2e-$$name$$"}: ` +
			"`selector` is invalid: values[0][app]: Invalid value: \"step-plugin-e2e-$$name$$\": " + labelValue,
		// Invalid on purpose.
		"test/e2e/expectedfailures/experiment-invalid.yaml Experiment/experiment-invalid-spec- spec.templates[1].template": "spec.templates[1].template.spec.containers: Required value",
		// The job spec of an AnalysisTemplate has its {{ args.* }} replaced
		// when a run starts: only then can it be validated.
		"test/e2e/functional/analysistemplate-sleep-job.yaml AnalysisTemplate/sleep-job spec.metrics[0].provider.job.spec": `spec.metrics[0].provider.job.spec.template.labels: Invalid value: "{{ args.rev }}": ` + labelValue,
	}
	dirs := []string{"../../test/e2e"}
	if up := upstreamDir(t); up != "" {
		dirs = append(dirs, filepath.Join(up, "examples"), filepath.Join(up, "test/e2e"))
	}
	seen := map[string]bool{}
	n := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(file string, d fs.DirEntry, err error) error {
			if ext := filepath.Ext(file); err != nil || d.IsDir() || ext != ".yaml" && ext != ".yml" {
				return err
			}
			rel := strings.TrimPrefix(file, dir+"/")
			if strings.HasSuffix(dir, "test/e2e") {
				rel = "test/e2e/" + rel
			}
			for _, c := range checks(t, file) {
				n++
				id := rel + " " + c.name
				got := ""
				if len(c.errs) > 0 {
					got = c.errs[0].Error()
				}
				if w := want[id]; got != w {
					t.Errorf("%s (%s): first error\n got %s\nwant %s", id, dir, got, w)
				}
				seen[id] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for id := range want {
		if !seen[id] && upstreamDir(t) != "" {
			t.Errorf("%s: not found", id)
		}
	}
	if n < 10 {
		t.Errorf("only %d templates checked", n)
	}
	t.Logf("%d pod templates and job specs checked", n)
}

type check struct {
	name string // Kind/name, and the template or metric
	errs field.ErrorList
}

// checks validates the pod templates and job metrics of the Ramp kinds in a
// YAML file, skipping the documents that do not decode as one.
func checks(t *testing.T, file string) []check {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []check
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			return out // not a manifest (a kustomize patch, a values file)
		}
		var tm metav1.TypeMeta
		var meta metav1.ObjectMeta
		raw, _ := yaml.Marshal(doc)
		_ = yaml.Unmarshal(raw, &tm)
		if !strings.HasPrefix(tm.APIVersion, rampv1.GroupVersion.Group+"/") {
			continue
		}
		if m, ok := doc["metadata"].(map[string]any); ok {
			meta.Name, _ = m["name"].(string)
			if meta.Name == "" {
				meta.Name, _ = m["generateName"].(string)
			}
		}
		name := tm.Kind + "/" + meta.Name
		switch tm.Kind {
		case "Rollout":
			var ro rampv1.Rollout
			if yaml.Unmarshal(raw, &ro) != nil || ro.Spec.Template == nil {
				continue
			}
			replicas := int32(1)
			if ro.Spec.Replicas != nil {
				replicas = *ro.Spec.Replicas
			}
			out = append(out, check{name, Validate(ro.Spec.Template, ro.Spec.Selector, replicas, field.NewPath("spec", "template"))})
		case "Experiment":
			var ex rampv1.Experiment
			if yaml.Unmarshal(raw, &ex) != nil {
				continue
			}
			for i, tmpl := range ex.Spec.Templates {
				path := field.NewPath("spec", "templates").Index(i).Child("template")
				out = append(out, check{fmt.Sprintf("%s %s", name, path), Validate(&tmpl.Template, tmpl.Selector, 1, path)})
			}
		case "AnalysisTemplate", "ClusterAnalysisTemplate", "AnalysisRun":
			var spec struct {
				Spec struct{ Metrics []rampv1.Metric } `json:"spec"`
			}
			if yaml.Unmarshal(raw, &spec) != nil {
				continue
			}
			for i, m := range spec.Spec.Metrics {
				if m.Provider.Job == nil {
					continue
				}
				path := field.NewPath("spec", "metrics").Index(i).Child("provider", "job", "spec")
				out = append(out, check{fmt.Sprintf("%s %s", name, path), ValidateJob(&m.Provider.Job.Spec, path)})
			}
		}
	}
}

// upstreamDir is the Argo Rollouts module test/upstream pins, in the module
// cache ("" and the test says so if it is not there).
func upstreamDir(t *testing.T) string {
	b, err := os.ReadFile("../../test/upstream/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`github.com/argoproj/argo-rollouts (v\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("test/upstream/go.mod: no github.com/argoproj/argo-rollouts")
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Logf("go env GOMODCACHE: %v: upstream's manifests not checked", err)
		return ""
	}
	dir := filepath.Join(strings.TrimSpace(string(cache)), "github.com/argoproj/argo-rollouts@"+string(m[1]))
	if _, err := os.Stat(dir); err != nil {
		t.Logf("%v: upstream's manifests not checked (go mod download in test/upstream)", err)
		return ""
	}
	return dir
}
