//go:build conformance

package conformance

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// metrics is the HTTP server the web provider measures: GET /<key> answers
// {"value": <the value the scenario last set for key>}. Both controllers run
// on this host, so they reach it on loopback.
var metrics struct {
	once sync.Once
	addr string
	mu   sync.Mutex
	vals map[string]string
}

// metricURL starts the server (once) and returns the URL of key.
func metricURL(key string) string {
	metrics.once.Do(func() {
		metrics.vals = map[string]string{}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(fmt.Sprintf("conformance: metric server: %v", err))
		}
		metrics.addr = l.Addr().String()
		go func() {
			_ = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				metrics.mu.Lock()
				v, ok := metrics.vals[strings.TrimPrefix(r.URL.Path, "/")]
				metrics.mu.Unlock()
				if !ok {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = fmt.Fprintf(w, `{"value": %s}`, v) // a failed write is the client's (the controller's) error to report
			}))
		}()
	})
	return "http://" + metrics.addr + "/" + key
}

// setMetric sets the value key answers (the same on both sides).
func setMetric(key, v string) func(context.Context, *actor) error {
	return func(context.Context, *actor) error {
		metrics.mu.Lock()
		defer metrics.mu.Unlock()
		metrics.vals[key] = v
		return nil
	}
}

// then runs actions in order.
func then(do ...func(context.Context, *actor) error) func(context.Context, *actor) error {
	return func(ctx context.Context, a *actor) error {
		for _, d := range do {
			if err := d(ctx, a); err != nil {
				return err
			}
		}
		return nil
	}
}

// webTemplate renders an AnalysisTemplate name measuring key: at least 5
// succeeds, below 1 fails, anything between is inconclusive. interval ""
// takes one measurement.
func webTemplate(name, key, interval string) string {
	iv := ""
	if interval != "" {
		iv = "\n    interval: " + interval
	}
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: %s}
spec:
  metrics:
  - name: value%s
    successCondition: result >= 5
    failureCondition: result < 1
    provider:
      web:
        url: %q
        jsonPath: "{$.value}"
---
`, name, iv, metricURL(key))
}

// analysisPhase: the AnalysisRun whose name ends in suffix (after the
// normalized hash) has phase p.
func runPhase(suffix, p string) func(w *world) error {
	return func(w *world) error {
		for _, r := range w.runs {
			if strings.HasSuffix(r.GetName(), suffix) {
				got, _, _ := unstructured.NestedString(r.Object, "status", "phase")
				if got == p {
					return nil
				}
				return fmt.Errorf("analysisrun %s phase %q", r.GetName(), got)
			}
		}
		return fmt.Errorf("no analysisrun *%s", suffix)
	}
}

func analysisScenarios() []scenario {
	stepAnalysis := "      steps: [{setWeight: 50}, {analysis: {templates: [{templateName: web}]}}, {pause: {}}]"
	return []scenario{{
		// A passing analysis step, then a failing one that aborts.
		name:    "analysis-step",
		ci:      true,
		pre:     webTemplate("web", "analysis-step", ""),
		yaml:    rollout(2, "    canary:\n"+stepAnalysis),
		initial: healthy,
		steps: []step{
			{name: "pass", do: then(setMetric("analysis-step", "10"), setImage("registry.example/app:v2")), until: pausedAt(2)},
			{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")},
			{name: "fail", do: then(setMetric("analysis-step", "0"), setImage("registry.example/app:v3")), until: aborted},
		},
	}, {
		name:    "analysis-inconclusive",
		pre:     webTemplate("web", "analysis-inconclusive", ""),
		yaml:    rollout(2, "    canary:\n"+stepAnalysis),
		initial: healthy,
		steps: []step{
			{name: "inconclusive", do: then(setMetric("analysis-inconclusive", "3"), setImage("registry.example/app:v2")), until: pausedAt(1)},
			{name: "promote", do: promote, until: pausedAt(2)},
			{name: "promote", do: promote, until: healthy},
		},
	}, {
		// A failing metric in dryRun: the run succeeds, the summary says.
		name:    "analysis-dryrun",
		pre:     webTemplate("web", "analysis-dryrun", ""),
		yaml:    rollout(2, "    canary:\n      steps: [{setWeight: 50}, {analysis: {templates: [{templateName: web}], dryRun: [{metricName: value}]}}, {pause: {}}]"),
		initial: healthy,
		steps: []step{
			{name: "set image", do: then(setMetric("analysis-dryrun", "0"), setImage("registry.example/app:v2")), until: pausedAt(2)},
			{name: "promote", do: promote, until: healthy},
		},
	}, {
		// Background analysis from step 1: running while paused, its
		// failure aborts the update.
		name: "analysis-background",
		ci:   true,
		pre:  webTemplate("web", "analysis-background", "2s"),
		yaml: rollout(4, "    canary:\n      analysis: {templates: [{templateName: web}], startingStep: 1}\n"+
			"      steps: [{setWeight: 25}, {pause: {}}, {setWeight: 50}, {pause: {}}]"),
		initial: healthy,
		steps: []step{
			{name: "set image", do: then(setMetric("analysis-background", "10"), setImage("registry.example/app:v2")), until: pausedAt(1)},
			{name: "promote", do: promote, until: pausedAt(3)},
			{name: "fail", do: setMetric("analysis-background", "0"), until: aborted},
		},
	}, {
		// Blue-green pre- and post-promotion analysis passing, then a
		// failing pre-promotion analysis that aborts.
		name: "analysis-bluegreen",
		pre:  bgServices + webTemplate("web", "analysis-bluegreen", ""),
		yaml: rollout(2, blueGreen("scaleDownDelaySeconds: 20",
			"prePromotionAnalysis: {templates: [{templateName: web}]}",
			"postPromotionAnalysis: {templates: [{templateName: web}]}")),
		initial: healthy,
		steps: []step{
			{name: "pass", do: then(setMetric("analysis-bluegreen", "10"), setImage("registry.example/app:v2")),
				until: cond{desc: "healthy after post-promotion analysis", ok: healthy.ok, world: runPhase("-post", "Successful")}},
			{name: "delay over", until: oldScaledDown},
			{name: "fail", do: then(setMetric("analysis-bluegreen", "0"), setImage("registry.example/app:v3")), until: aborted},
		},
	}}
}
