package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRules: each fixture in testdata holds the cases of one rule, good and
// bad; want lists every finding as "line severity field".
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		file     string
		want     []string
		mentions []string // substrings some message must contain
	}{
		{"schema.yaml", []string{
			"2 error spec.strategy",
			"13 error spec.strategy.canary.stableService",
			"13 error spec.strategy.canary",
			"27 error spec.strategy.canary.steps[1].setWeigth",
			"27 error spec.strategy.canary.steps[0].setWeight",
			"27 error spec.strategy.canary.steps[5].setCanaryScale.weight",
			"27 error spec.strategy.canary.steps[1]",
			"27 error spec.strategy.canary.steps[2].pause.duration",
			"27 error spec.strategy.canary.steps[3].pause.duration",
			"27 error spec.strategy.canary.steps[4]",
			"46 error spec.strategy.canary.trafficRouting.istio",
			"65 error spec.replicas",
			"74 error spec.strategy.blueGreen.previewService",
			"74 error spec.strategy.blueGreen.previewReplicaCount",
		}, []string{"exactly one of canary or blueGreen", "unknown field", "120 must be between 0 and 100",
			"sets more than one of setWeight, pause, experiment and analysis", "got a string, want int32"}},
		{"controller.yaml", []string{
			"2 warning spec.workloadRef",
			"12 error spec.selector",
			"12 error spec.strategy.canary.steps[2].setHeaderRoute",
			"26 error spec.selector",
		}, []string{`"app=a" does not match spec.template.metadata.labels`, "needs spec.strategy.canary.trafficRouting"}},
		{"hpa-traffic-routing.yaml", []string{
			"25 warning spec.metrics[0]",
			"39 warning spec.metrics[1]",
			"52 warning spec.targetCPUUtilizationPercentage",
			"60 warning spec",
		}, []string{`Rollout "rollouts-demo" sets rollout.ramp.dev/hpa-accounting: surge`, "ceil(8 x 28/54) = 5",
			"remove the annotation: Ramp then takes the canary's pods from stable"}},
		{"hpa-requests.yaml", []string{
			"22 warning spec.metrics[0]",
			"22 warning spec.metrics[1]",
			"40 warning spec.targetCPUUtilizationPercentage",
			"48 warning spec",
		}, []string{`no cpu request on container "sidecar"`, `no memory request on container "app"`, "does nothing (seed 002)"}},
		{"canary-stalls.yaml", []string{
			"3 warning spec.strategy.canary.steps[1]",
			"28 warning spec.strategy.canary.steps[1]",
		}, []string{"setWeight: 50: this step never completes at 10 replicas: canary pods come from stable (an HPA targets it)",
			"(dynamicStableScale)", "hold the weight at 30 instead of 50"}},
		{"experiment.yaml", []string{
			"14 error spec.templates[0].selector",
		}, []string{`"app=demo,color=purple" does not match spec.templates[0].template.metadata.labels`}},
		{"bluegreen-post-promotion.yaml", []string{
			"2 warning spec.strategy.blueGreen.autoPromotionEnabled",
		}, []string{"waits for a manual promote"}},
		{"argocd-hooks.yaml", []string{
			"2 warning spec.template.spec.containers[0]",
			"21 warning spec.template.spec.containers[1]",
			"34 warning spec.containers[0]",
		}, []string{"PostSync hook", "Sync hook", "analysis step"}},
		{"header-routes.yaml", []string{
			"2 error spec.strategy.canary.steps[1].setMirrorRoute.percentage",
			"2 error spec.strategy.canary.steps[1].setMirrorRoute",
		}, []string{"the alb traffic router cannot express mirror routes"}},
		{"malformed.yaml", []string{"10 error ", "12 error kind", "15 error "},
			[]string{"yaml: line 10: mapping values are not allowed", "not a Kubernetes object"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			fs := Check(File{Name: tc.file, Data: data})
			var got, all []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%d %s %s", f.Line, f.Severity, f.Field))
				all = append(all, f.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\n\nwant:\n%s", strings.Join(all, "\n"), strings.Join(tc.want, "\n"))
			}
			for _, m := range tc.mentions {
				if !strings.Contains(strings.Join(all, "\n"), m) {
					t.Errorf("no finding mentions %q", m)
				}
			}
		})
	}
}

// TestAcrossFiles: an HPA is checked against a Rollout in another file, and
// findings come in the files' order.
func TestAcrossFiles(t *testing.T) {
	data, err := os.ReadFile("testdata/hpa-traffic-routing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.SplitN(string(data), "\n---\n", 3)
	fs := Check(File{Name: "hpa.yaml", Data: []byte(docs[1])}, File{Name: "rollout.yaml", Data: []byte(docs[0])})
	if len(fs) != 1 || fs[0].File != "hpa.yaml" || fs[0].Line != 1 || fs[0].Severity != Warning {
		t.Fatalf("findings %v, want one warning at hpa.yaml:1", fs)
	}
	if HasErrors(fs) {
		t.Error("HasErrors = true for a warning")
	}
}

func TestFindingString(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{File: "a.yaml", Line: 3, Field: "spec.strategy", Severity: Error, Message: "bad"}, "a.yaml:3: error: spec.strategy: bad"},
		{Finding{File: "-", Line: 1, Severity: Warning, Message: "odd"}, "-:1: warning: odd"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestSplitField(t *testing.T) {
	for msg, want := range map[string][2]string{
		"spec.template: required":                                    {"spec.template", "required"},
		`spec.selector "app=a" does not match x`:                     {"spec.selector", `"app=a" does not match x`},
		`spec.strategy.canary.steps[0].pause.duration "1x": time: e`: {"spec.strategy.canary.steps[0].pause.duration", `"1x": time: e`},
	} {
		if f, rest := splitField(msg); f != want[0] || rest != want[1] {
			t.Errorf("splitField(%q) = %q, %q; want %q, %q", msg, f, rest, want[0], want[1])
		}
	}
}
