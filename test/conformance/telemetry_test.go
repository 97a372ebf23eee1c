//go:build conformance

package conformance

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestObserveMetrics: what a scrape contributes to an observation, so that
// the scenarios compare the families as upstream exposes them.
func TestObserveMetrics(t *testing.T) {
	text := `# HELP rollout_info Information about rollout.
# TYPE rollout_info gauge
rollout_info{name="app",namespace="ns",phase="Paused",strategy="canary",traffic_router=""} 1
# TYPE rollout_reconcile histogram
rollout_reconcile_bucket{name="app",namespace="ns",le="0.01"} 3
rollout_reconcile_sum{name="app",namespace="ns"} 0.02
rollout_reconcile_count{name="app",namespace="ns"} 4
# TYPE rollout_events_total counter
rollout_events_total{name="app",namespace="ns",reason="RolloutPaused",type="Normal"} 2
# TYPE controller_clientset_k8s_request_total counter
controller_clientset_k8s_request_total{kind="rollouts",name="app",namespace="ns",status_code="200",verb="Patch"} 7
# TYPE workqueue_depth gauge
workqueue_depth{name="rollout"} 0
`
	samples, types, err := parseExposition(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 7 || types["rollout_reconcile"] != "histogram" {
		t.Fatalf("parsed %d samples, types %v", len(samples), types)
	}
	o := observation{}
	observeMetrics(func(k string, v any) { o[k] = v.(string) }, samples)
	want := observation{
		"metric rollout_info{name=app,phase=Paused,strategy=canary,traffic_router=}": "1",
		"family rollout_info":                           "gauge name,namespace,phase,strategy,traffic_router",
		"family rollout_reconcile_count":                "histogram name,namespace",
		"family rollout_events_total":                   "counter name,namespace,reason,type",
		"family controller_clientset_k8s_request_total": "counter kind,name,namespace,status_code,verb",
	}
	for k, v := range want {
		if o[k] != v {
			t.Errorf("%s = %q, want %q", k, o[k], v)
		}
	}
	if len(o) != len(want) {
		t.Errorf("observed %d keys, want %d: %v", len(o), len(want), o)
	}
	if got := countedEvents(samples, nil); got != "Normal/RolloutPaused" {
		t.Errorf("counted events %q", got)
	}
}

func TestParseLabelsEscapes(t *testing.T) {
	samples, _, err := parseExposition(strings.NewReader(`m{a="x\"y",b="1\\2",c="l\nm"} 5` + "\n"))
	if err != nil || len(samples) != 1 {
		t.Fatalf("%v %v", samples, err)
	}
	l := samples[0].labels
	if l["a"] != `x"y` || l["b"] != `1\2` || l["c"] != "l\nm" || samples[0].value != "5" {
		t.Errorf("labels %q value %q", l, samples[0].value)
	}
}

// TestRaceOnlyReasons: a Warning said only by Events that lost a write race
// is left out of the compared reasons and counts; one also said for another
// cause is kept.
func TestRaceOnlyReasons(t *testing.T) {
	ev := func(typ, reason, msg string) unstructured.Unstructured {
		return unstructured.Unstructured{Object: map[string]any{"type": typ, "reason": reason, "message": msg,
			"involvedObject": map[string]any{"kind": "Rollout"}}}
	}
	race := `Operation cannot be fulfilled on virtualservices.networking.istio.io "vsvc": the object has been modified; please apply your changes to the latest version and try again`
	w := &world{events: []unstructured.Unstructured{ev("Normal", "RolloutPaused", "paused"),
		ev("Warning", "TrafficRoutingError", race), ev("Warning", "RolloutAborted", race), ev("Warning", "RolloutAborted", "aborted")}}
	skip := w.raceOnlyReasons()
	if !skip["Warning/TrafficRoutingError"] || skip["Warning/RolloutAborted"] || len(skip) != 1 {
		t.Fatalf("raceOnlyReasons = %v", skip)
	}
	if got := w.eventReasons(); got != "RolloutAborted RolloutPaused" {
		t.Errorf("eventReasons = %q", got)
	}
	samples := []sample{{family: "rollout_events_total", labels: map[string]string{"type": "Warning", "reason": "TrafficRoutingError"}},
		{family: "rollout_events_total", labels: map[string]string{"type": "Normal", "reason": "RolloutPaused"}}}
	if got := countedEvents(samples, skip); got != "Normal/RolloutPaused" {
		t.Errorf("countedEvents = %q", got)
	}
}
