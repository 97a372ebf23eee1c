//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// rollout returns a canary Rollout manifest with the given strategy block
// (indented under spec.strategy).
func rollout(name, strategy string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: ` + name + `
spec:
  replicas: 2
  selector:
    matchLabels: {app: ` + name + `}
  template:
    metadata:
      labels: {app: ` + name + `}
    spec:
      containers:
      - name: app
        image: nginx:1.27
  strategy:
` + strategy
}

// TestInvalidManifestsRejected: invalid Rollouts are rejected at apply time
// (schema and CEL rules) with a message naming the field; valid edge cases
// are accepted.
func TestInvalidManifestsRejected(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "invalid")
	for _, tc := range []struct {
		name     string
		manifest string
		want     []string // substrings of the error; empty means must be accepted
	}{
		{"both-strategies", rollout("both", `    canary: {}
    blueGreen: {activeService: active}
`), []string{"spec.strategy", "exactly one of canary or blueGreen"}},
		{"no-strategy", rollout("none", `    {}
`), []string{"spec.strategy", "exactly one of canary or blueGreen"}},
		{"same-canary-stable-service", rollout("samesvc", `    canary:
      canaryService: web
      stableService: web
`), []string{"spec.strategy.canary", "canaryService", "stableService"}},
		{"same-active-preview-service", rollout("samebg", `    blueGreen:
      activeService: web
      previewService: web
`), []string{"spec.strategy.blueGreen", "previewService"}},
		{"set-weight-150", rollout("w150", `    canary:
      steps:
      - setWeight: 150
`), []string{"spec.strategy.canary.steps", "setWeight", "between 0 and", "100 when unset"}},
		{"negative-weight", rollout("wneg", `    canary:
      steps:
      - setWeight: -1
`), []string{"spec.strategy.canary.steps[0].setWeight", "greater than or equal to 0"}},
		{"unknown-step-type", rollout("unknown", `    canary:
      steps:
      - setWeigth: 20
`), []string{"spec.strategy.canary.steps[0]", "setWeigth"}},
		{"surge-and-unavailable-zero", rollout("zero", `    canary:
      maxSurge: 0
      maxUnavailable: "0%"
`), []string{"spec.strategy.canary", "maxSurge", "maxUnavailable"}},
		{"bad-pause-duration", rollout("pause", `    canary:
      steps:
      - pause: {duration: 10 minutes}
`), []string{"spec.strategy.canary.steps[0].pause.duration"}},
		{"valid-pause-durations", rollout("okpause", `    canary:
      steps:
      - pause: {duration: 10}
      - pause: {duration: "30s"}
      - pause: {duration: 1h30m}
      - pause: {}
      - setWeight: 0
      - setWeight: 100
`), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, err := kubectl(t, tc.manifest, "apply", "--server-side", "-n", ns, "-f", "-")
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("valid manifest rejected: %v\n%s", err, stderr)
				}
				return
			}
			if err == nil {
				t.Fatalf("invalid manifest accepted; want an error mentioning %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("error does not mention %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestUnknownStepRejectedWithoutStrictValidation: even a client that skips
// field validation cannot store a step that does nothing.
func TestUnknownStepRejectedWithoutStrictValidation(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "lax")
	_, stderr, err := kubectl(t, rollout("lax", `    canary:
      steps:
      - setWeigth: 20
`), "apply", "--server-side", "--validate=false", "-n", ns, "-f", "-")
	if err == nil {
		t.Fatal("step with only an unknown field was accepted with --validate=false")
	}
	if !strings.Contains(stderr, "spec.strategy.canary.steps[0]") {
		t.Errorf("error does not name the step:\n%s", stderr)
	}
}

// TestSelectorImmutable: spec.selector cannot change after creation.
func TestSelectorImmutable(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "selector")
	m := rollout("sel", `    canary: {}
`)
	if _, stderr, err := kubectl(t, m, "apply", "--server-side", "-n", ns, "-f", "-"); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	changed := strings.Replace(m, "matchLabels: {app: sel}", "matchLabels: {app: sel, tier: web}", 1)
	changed = strings.Replace(changed, "labels: {app: sel}", "labels: {app: sel, tier: web}", 1)
	_, stderr, err := kubectl(t, changed, "apply", "--server-side", "-n", ns, "-f", "-")
	if err == nil {
		t.Fatal("selector change accepted")
	}
	if !strings.Contains(stderr, "spec.selector") || !strings.Contains(stderr, "immutable") {
		t.Errorf("error does not say spec.selector is immutable:\n%s", stderr)
	}
}
