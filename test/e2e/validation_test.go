//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
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

// TestAdmission: the API server rejects only what upstream's CRD schema
// rejects (here an unknown step field under kubectl's strict field
// validation), naming the field; valid edge cases are accepted.
func TestAdmission(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "admission")
	for _, tc := range []struct {
		name     string
		manifest string
		want     []string // substrings of the error; empty means must be accepted
	}{
		{"unknown-step-type", rollout("unknown", `    canary:
      steps:
      - setWeigth: 20
`), []string{"spec.strategy.canary.steps[0]", "setWeigth"}},
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

// TestInvalidSpecReported: what upstream's CRD admits but cannot run is
// stored, and the controller reports it as InvalidSpec naming the field
// (phase Degraded), as upstream's controller does; nothing is created.
func TestInvalidSpecReported(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		manifest string
		want     string // a substring of the InvalidSpec message
	}{
		{"both-strategies", rollout("both", `    canary: {}
    blueGreen: {activeService: active}
`), "spec.strategy: exactly one of canary or blueGreen must be set"},
		{"no-strategy", rollout("none", `    {}
`), "spec.strategy: exactly one of canary or blueGreen must be set"},
		{"same-canary-stable-service", rollout("samesvc", `    canary:
      canaryService: web
      stableService: web
`), `spec.strategy.canary.stableService: must name a different Service than spec.strategy.canary.canaryService (both "web")`},
		{"same-active-preview-service", rollout("samebg", `    blueGreen:
      activeService: web
      previewService: web
`), `spec.strategy.blueGreen.previewService: must differ from spec.strategy.blueGreen.activeService (both "web")`},
		{"set-weight-150", rollout("w150", `    canary:
      steps:
      - setWeight: 150
`), "spec.strategy.canary.steps[0].setWeight: 150 must be between 0 and 100 (trafficRouting.maxTrafficWeight, 100 when unset)"},
		{"negative-weight", rollout("wneg", `    canary:
      steps:
      - setWeight: -1
`), "spec.strategy.canary.steps[0].setWeight: -1 must be between 0 and 100"},
		{"surge-and-unavailable-zero", rollout("zero", `    canary:
      maxSurge: 0
      maxUnavailable: "0%"
`), "spec.strategy.canary: maxSurge and maxUnavailable cannot both be 0"},
		{"bad-pause-duration", rollout("pause", `    canary:
      steps:
      - pause: {duration: 10 minutes}
`), `spec.strategy.canary.steps[0].pause.duration "10 minutes": time: unknown unit " minutes" in duration "10 minutes"`},
		{"negative-pause-duration", rollout("pauseneg", `    canary:
      steps:
      - pause: {duration: -5}
`), `spec.strategy.canary.steps[0].pause.duration "-5": must not be negative`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := namespace(t, "invalid-"+tc.name)
			name := rolloutName(tc.manifest)
			if _, stderr, err := kubectl(t, tc.manifest, "apply", "--server-side", "-n", ns, "-f", "-"); err != nil {
				t.Fatalf("upstream's CRD admits this manifest, Ramp's must too: %v\n%s", err, stderr)
			}
			waitRollout(t, ns, name, 30*time.Second, "InvalidSpec", invalidSpec(tc.want))
			if rss, err := replicaSets(ns, name); err != nil || len(rss) != 0 {
				t.Fatalf("ReplicaSets while InvalidSpec: %v (%v)", rss, err)
			}
		})
	}
}

// TestUnknownStepWithoutStrictValidation: a client that skips field
// validation stores the step without its unknown field, an empty step, which
// the controller reports as InvalidSpec naming it (upstream's CRD admits it
// too).
func TestUnknownStepWithoutStrictValidation(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "lax")
	_, stderr, err := kubectl(t, rollout("lax", `    canary:
      steps:
      - setWeigth: 20
`), "apply", "--validate=false", "-n", ns, "-f", "-") // client-side: server-side apply refuses unknown fields whatever the flag
	if err != nil {
		t.Fatalf("apply with --validate=false: %v\n%s", err, stderr)
	}
	waitRollout(t, ns, "lax", 30*time.Second, "InvalidSpec", invalidSpec("spec.strategy.canary.steps[0]: sets no action"))
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

// rolloutName is the metadata.name of a rollout() manifest.
func rolloutName(manifest string) string {
	_, rest, _ := strings.Cut(manifest, "  name: ")
	name, _, _ := strings.Cut(rest, "\n")
	return name
}
