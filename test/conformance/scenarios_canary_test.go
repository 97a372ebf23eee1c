//go:build conformance

package conformance

import (
	"fmt"
	"testing"
)

// rollout renders a Rollout "app" (pods app=app, one container "app").
func rollout(replicas int, strategy string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: app}
spec:
  replicas: %d
  revisionHistoryLimit: 3
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec: {containers: [{name: app, image: "registry.example/app:v1"}]}
  strategy:
%s
`, replicas, strategy)
}

// basicCanary: a weight step, a pause, then promotion to the end.
func basicCanary(replicas, weight int, budget string) scenario {
	name := fmt.Sprintf("canary-%d-w%d", replicas, weight)
	if budget != "" {
		name += "-" + budget
	}
	b := ""
	switch budget {
	case "surge0":
		b = "\n      maxSurge: 0\n      maxUnavailable: 1"
	case "unavail0":
		b = "\n      maxSurge: 1\n      maxUnavailable: 0"
	case "large":
		b = "\n      maxSurge: \"100%\"\n      maxUnavailable: \"100%\""
	}
	return scenario{
		name:    name,
		yaml:    rollout(replicas, fmt.Sprintf("    canary:%s\n      steps: [{setWeight: %d}, {pause: {}}]", b, weight)),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: pausedAt(1)},
			{name: "promote", do: promote, until: healthy},
		},
	}
}

func canaryScenarios() []scenario {
	var out []scenario
	for _, c := range []struct {
		replicas, weight int
		budget           string
		ci               bool
	}{
		{1, 50, "", true}, {3, 20, "", true}, {5, 40, "", false}, {10, 33, "", false}, {2, 1, "", false},
		{2, 99, "", false}, {5, 40, "surge0", false}, {5, 40, "unavail0", false}, {10, 90, "large", false},
	} {
		sc := basicCanary(c.replicas, c.weight, c.budget)
		sc.ci = c.ci
		out = append(out, sc)
	}
	out = append(out, scenario{
		name:    "canary-abort-retry",
		ci:      true,
		yaml:    rollout(4, "    canary:\n      steps: [{setWeight: 25}, {pause: {}}, {setWeight: 75}, {pause: {}}]"),
		initial: healthy,
		steps:   append(abortRetrySteps(), step{name: "promote full", do: promoteFull, until: healthy}),
	})
	return out
}

// abortRetrySteps: to the second pause, abort there, retry to the first.
func abortRetrySteps() []step {
	return []step{
		{name: "set image", do: setImage("registry.example/app:v2"), until: pausedAt(1)},
		{name: "promote", do: promote, until: pausedAt(3)},
		{name: "abort", do: abort, until: aborted},
		{name: "retry", do: retry, until: pausedAt(1)},
	}
}

// TestScenarioTable: scenario names are unique (they name namespaces and
// subtests), every step says what ends it, and the CI subset is not empty.
func TestScenarioTable(t *testing.T) {
	seen, ci := map[string]bool{}, 0
	for _, sc := range scenarios() {
		if sc.name == "" || seen[sc.name] {
			t.Errorf("scenario name %q empty or repeated", sc.name)
		}
		seen[sc.name] = true
		if sc.ci {
			ci++
		}
		for i, st := range sc.steps {
			if st.name == "" || st.until.desc == "" {
				t.Errorf("%s: step %d has no name or no condition", sc.name, i)
			}
		}
	}
	if ci == 0 {
		t.Error("no scenario is marked for the CI subset")
	}
}

func scenarios() []scenario {
	out := append(canaryScenarios(), canaryMoreScenarios()...)
	out = append(out, blueGreenScenarios()...)
	out = append(out, moreBlueGreenScenarios()...)
	out = append(out, trafficScenarios()...)
	out = append(out, experimentScenarios()...)
	return append(out, analysisScenarios()...)
}
