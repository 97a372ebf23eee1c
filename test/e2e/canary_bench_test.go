//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// BenchmarkCanary measures canary updates on a controller of its own (run
// with -bench Canary -benchtime 1x -run '^$'). It prints figures and asserts
// no timing.
func BenchmarkCanary(b *testing.B) {
	ns := namespace(b, "bench")
	p := ownController(b, ns, ns)
	b.Run("steps-20-40-60-80", func(b *testing.B) { benchSteps(b, ns, p) })
	b.Run("pause-2s", func(b *testing.B) { benchPause(b, ns) })
	b.Run("pauses-4x1s", func(b *testing.B) { benchPauses(b, ns) })
}

// benchSteps: a 5-replica canary with setWeight 20, 40, 60, 80 and no pause,
// from the image-change patch to Healthy on the new hash, and the API
// requests the controller made meanwhile.
func benchSteps(b *testing.B, ns string, p *controllerProcess) {
	const name = "steps"
	apply(b, ns, rolloutYAML{name: name, replicas: 5, instance: ns, canary: "steps:\n- setWeight: 20\n- setWeight: 40\n- setWeight: 60\n- setWeight: 80\n"}.String())
	ro := waitHealthy(b, ns, name, "", 5)
	var total time.Duration
	var writes, reads float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		before := restRequests(b, p)
		old := ro.Status.CurrentPodHash
		b.StartTimer()
		start := time.Now()
		setImageDirect(b, ns, name, fmt.Sprintf("registry.example/app:v%d", i+2))
		steps := map[int32]time.Duration{}
		ro = watchRollout(b, ns, name, 3*time.Minute, func(ro *rampv1.Rollout) bool {
			if idx := ro.Status.CurrentStepIndex; idx != nil && ro.Status.CurrentPodHash != old {
				if _, seen := steps[*idx]; !seen {
					steps[*idx] = time.Since(start)
				}
			}
			return newTemplate(old)(ro) == nil && healthy(5, "")(ro) == nil
		})
		took := time.Since(start)
		b.StopTimer()
		after := restRequests(b, p)
		w, r := requestDelta(before, after)
		total, writes, reads = total+took, writes+w, reads+r
		b.Logf("update %d: Healthy on %s after %s; step first seen at %s; controller API requests: %.0f writes (%s), %.0f reads",
			i+1, ro.Status.CurrentPodHash, took.Round(time.Millisecond), stepTimes(steps), w, methodDelta(before, after), r)
	}
	n := float64(b.N)
	b.ReportMetric(total.Seconds()/n, "s-to-healthy/op")
	b.ReportMetric(writes/n, "api-writes/op")
	b.ReportMetric(reads/n, "api-reads/op")
}

// benchPause: a pause of 2 s, from the first time the pause is seen to the
// first time it is seen over, and from its recorded startTime.
func benchPause(b *testing.B, ns string) {
	const name = "pause"
	apply(b, ns, rolloutYAML{name: name, replicas: 2, instance: ns, canary: "steps:\n- setWeight: 50\n- pause: {duration: 2}\n- setWeight: 100\n"}.String())
	ro := waitHealthy(b, ns, name, "", 2)
	var overshoot time.Duration
	for i := 0; i < b.N; i++ {
		old := ro.Status.CurrentPodHash
		setImageDirect(b, ns, name, fmt.Sprintf("registry.example/app:v%d", i+2))
		var seen, over time.Time
		var startTime metav1.Time
		var precise *metav1.MicroTime
		ro = watchRollout(b, ns, name, 2*time.Minute, func(ro *rampv1.Rollout) bool {
			s := ro.Status
			if newTemplate(old)(ro) != nil || s.CurrentStepIndex == nil {
				return false
			}
			switch {
			case seen.IsZero() && *s.CurrentStepIndex == 1 && len(s.PauseConditions) > 0:
				seen, startTime, precise = time.Now(), s.PauseConditions[0].StartTime, s.Canary.PauseStartTime
			case !seen.IsZero() && over.IsZero() && (*s.CurrentStepIndex > 1 || len(s.PauseConditions) == 0):
				over = time.Now()
			}
			return !over.IsZero() && healthy(2, "")(ro) == nil
		})
		if seen.IsZero() {
			b.Fatalf("update %d: never saw the pause on step 1", i+1)
		}
		observedPause := over.Sub(seen)
		overshoot += observedPause - 2*time.Second
		b.Logf("update %d: pause seen for %s (overshoot %+dms); %s after its startTime %s (second resolution), %s",
			i+1, observedPause.Round(time.Millisecond), (observedPause - 2*time.Second).Milliseconds(),
			over.Sub(startTime.Time).Round(time.Millisecond), startTime.Format(time.RFC3339), sincePrecise(over, precise))
	}
	b.ReportMetric(overshoot.Seconds()/float64(b.N), "s-pause-overshoot/op")
}

func sincePrecise(t time.Time, precise *metav1.MicroTime) string {
	if precise == nil {
		return "no precise start"
	}
	return t.Sub(precise.Time).Round(time.Millisecond).String() + " after its precise start"
}

// setImageDirect sends setImage's merge patch with the suite's client, so
// that the measured time does not include starting kubectl.
func setImageDirect(b *testing.B, ns, name, image string) {
	b.Helper()
	ro := &rampv1.Rollout{}
	ro.Namespace, ro.Name = ns, name
	body := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":%q}]}}}}`, image)
	if err := env.client.Patch(context.Background(), ro, client.RawPatch(types.MergePatchType, []byte(body))); err != nil {
		b.Fatal(err)
	}
}

// restRequests reads the controller's rest_client_requests_total by method.
func restRequests(b *testing.B, p *controllerProcess) map[string]float64 {
	b.Helper()
	m, err := metricSum(p, "rest_client_requests_total", nil, "method")
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// requestDelta counts the requests between two readings: writes (POST, PUT,
// PATCH, DELETE) and reads (GET: gets, lists and watches).
func requestDelta(before, after map[string]float64) (writes, reads float64) {
	for method, n := range after {
		switch d := n - before[method]; method {
		case "POST", "PUT", "PATCH", "DELETE":
			writes += d
		case "GET":
			reads += d
		}
	}
	return writes, reads
}

func methodDelta(before, after map[string]float64) string {
	var out []string
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		if d := after[m] - before[m]; d > 0 {
			out = append(out, fmt.Sprintf("%s %.0f", m, d))
		}
	}
	return strings.Join(out, ", ")
}

func stepTimes(steps map[int32]time.Duration) string {
	var out []string
	for i := int32(0); i <= 4; i++ {
		if d, ok := steps[i]; ok {
			out = append(out, fmt.Sprintf("%d@%s", i, d.Round(10*time.Millisecond)))
		}
	}
	return strings.Join(out, " ")
}

// watchRollout follows the Rollout through a watch until done accepts one
// of its states (the current one included) and returns that state; the
// caller sees every state the API server reports, with no polling delay.
func watchRollout(tb testing.TB, ns, name string, timeout time.Duration, done func(*rampv1.Rollout) bool) *rampv1.Rollout {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var list rampv1.RolloutList
	if err := env.client.List(ctx, &list, client.InNamespace(ns)); err != nil {
		tb.Fatal(err)
	}
	var last *rampv1.Rollout
	for i := range list.Items {
		if list.Items[i].Name == name {
			if last = &list.Items[i]; done(last) {
				return last
			}
		}
	}
	err := watchFrom(ctx, &rampv1.RolloutList{}, ns, list.ResourceVersion, func(_ watch.EventType, obj client.Object) bool {
		ro, ok := obj.(*rampv1.Rollout)
		if !ok || ro.Name != name {
			return false
		}
		last = ro
		return done(ro)
	})
	if err != nil {
		status := "never seen"
		if last != nil {
			status = summary(last)
		}
		tb.Fatalf("watching rollout %s/%s: %v\n  last status: %s", ns, name, err, status)
	}
	return last
}

// metricSum adds up the samples of the Prometheus metric name served by p
// whose labels include match, grouped by the value of label by ("" for all;
// several labels joined by commas give keys of their values joined so).
func metricSum(p *controllerProcess, name string, match map[string]string, by string) (map[string]float64, error) {
	code, body, err := httpGet("http://" + p.metrics + "/metrics")
	if err != nil {
		return nil, fmt.Errorf("/metrics: %w", err)
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("/metrics: status %d", code)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		rest, ok := strings.CutPrefix(line, name+"{")
		if !ok {
			continue
		}
		labelText, valueText, ok := strings.Cut(rest, "} ")
		if !ok {
			return nil, fmt.Errorf("cannot parse %q", line)
		}
		labels := map[string]string{}
		for _, kv := range strings.Split(labelText, `",`) { // label values here hold no `",`
			k, v, _ := strings.Cut(kv, `="`)
			labels[k] = strings.TrimSuffix(v, `"`)
		}
		value, err := strconv.ParseFloat(strings.Fields(valueText)[0], 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		matches := true
		for k, v := range match {
			matches = matches && labels[k] == v
		}
		if matches {
			var key []string
			for _, l := range strings.Split(by, ",") {
				key = append(key, labels[l])
			}
			out[strings.Join(key, ",")] += value
		}
	}
	return out, nil
}
