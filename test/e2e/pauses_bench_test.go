//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// pausesSteps: setWeight 20, 40, 60, 80, each followed by a 1 s pause.
const (
	pausesSteps = "steps:\n- setWeight: 20\n- pause: {duration: 1}\n- setWeight: 40\n- pause: {duration: 1}\n" +
		"- setWeight: 60\n- pause: {duration: 1}\n- setWeight: 80\n- pause: {duration: 1}\n"
	pausesTotal = 4 * time.Second
)

// seenPause is one timed pause as a watch saw it: its step, the startTime
// (second resolution) and precise start its condition was first seen with,
// and when the watch first saw it over.
type seenPause struct {
	step      int32
	startTime time.Time
	precise   *metav1.MicroTime
	over      time.Time
}

// benchPauses: the 5-replica canary with pause {duration: 1} after each of
// its 4 setWeight steps, from the image change to Healthy, printed as the
// time beyond the 4 s of pauses (issue 20 §1: goal 0.3 s). It asserts only
// correctness: every pause was seen, and none was seen over before its
// startTime + 1 s, nor before its precise start + 1 s.
func benchPauses(b *testing.B, ns string) {
	const name = "pauses"
	apply(b, ns, rolloutYAML{name: name, replicas: 5, instance: ns, canary: pausesSteps}.String())
	ro := waitHealthy(b, ns, name, "", 5)
	var beyond time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		old := ro.Status.CurrentPodHash
		start := time.Now()
		setImageDirect(b, ns, name, fmt.Sprintf("registry.example/pauses:v%d", i+2))
		var pauses []*seenPause
		ro = watchRollout(b, ns, name, 2*time.Minute, func(ro *rampv1.Rollout) bool {
			if newTemplate(old)(ro) != nil || ro.Status.CurrentStepIndex == nil {
				return false
			}
			pauses = followPause(pauses, ro.Status, time.Now())
			return healthy(5, "")(ro) == nil
		})
		took := time.Since(start)
		b.StopTimer()
		if len(pauses) != 4 {
			b.Fatalf("update %d: saw %d pauses, want 4", i+1, len(pauses))
		}
		beyond += took - pausesTotal
		b.Logf("update %d: Healthy after %s, %s beyond the pauses; pauses over (seen) after startTime+1s / precise start+1s: %s",
			i+1, took.Round(time.Millisecond), (took - pausesTotal).Round(time.Millisecond), checkPauses(b, pauses, time.Second))
		b.StartTimer()
	}
	b.ReportMetric(beyond.Seconds()/float64(b.N), "s-beyond-pauses/op")
}

// followPause records, from one state of the Rollout seen at now, the
// canary pause step it is in and the end of the one it left.
func followPause(pauses []*seenPause, s rampv1.RolloutStatus, now time.Time) []*seenPause {
	var cond *rampv1.PauseCondition
	for i := range s.PauseConditions {
		if s.PauseConditions[i].Reason == rampv1.PauseReasonCanaryPauseStep {
			cond = &s.PauseConditions[i]
		}
	}
	var cur *seenPause
	if n := len(pauses); n > 0 && pauses[n-1].over.IsZero() {
		cur = pauses[n-1]
	}
	if cur != nil && (cond == nil || *s.CurrentStepIndex != cur.step) {
		cur.over, cur = now, nil
	}
	if cond != nil && cur == nil {
		pauses = append(pauses, &seenPause{step: *s.CurrentStepIndex, startTime: cond.StartTime.Time, precise: s.Canary.PauseStartTime})
	}
	return pauses
}

// checkPauses fails b unless each pause was seen over no earlier than its
// startTime (and its precise start, when recorded) plus d; it returns how
// long after those each was seen over.
func checkPauses(b *testing.B, pauses []*seenPause, d time.Duration) string {
	b.Helper()
	var out []string
	for _, p := range pauses {
		if p.over.IsZero() {
			b.Fatalf("pause at step %d never seen over", p.step)
		}
		late := p.over.Sub(p.startTime.Add(d))
		precise := "none"
		if p.precise == nil {
			b.Errorf("pause at step %d: no status.canary.pauseStartTime", p.step)
		} else {
			pl := p.over.Sub(p.precise.Add(d))
			precise = fmt.Sprintf("%+dms", pl.Milliseconds())
			if pl < 0 {
				b.Errorf("pause at step %d (precise start %s) seen over %s early", p.step, p.precise.Format(time.RFC3339Nano), -pl)
			}
		}
		if late < 0 {
			b.Errorf("pause at step %d (startTime %s) seen over %s early", p.step, p.startTime.Format(time.RFC3339), -late)
		}
		out = append(out, fmt.Sprintf("step %d %+dms/%s", p.step, late.Milliseconds(), precise))
	}
	return strings.Join(out, ", ")
}

// BenchmarkPauseRestart: a 3 s pause whose controller is SIGKILLed as soon
// as the pause is seen and started again at once; the new controller reads
// the precise start back from status. It prints how long after its
// deadline the pause was seen over and asserts only that it was not before
// it (startTime + 3 s and precise start + 3 s).
func BenchmarkPauseRestart(b *testing.B) {
	const name, d = "restart", 3 * time.Second
	ns := namespace(b, "bench-restart")
	p := ownController(b, ns, ns)
	apply(b, ns, rolloutYAML{name: name, replicas: 2, instance: ns, canary: "steps:\n- setWeight: 50\n- pause: {duration: 3}\n- setWeight: 100\n"}.String())
	ro := waitHealthy(b, ns, name, "", 2)
	for i := 0; i < b.N; i++ {
		old := ro.Status.CurrentPodHash
		setImageDirect(b, ns, name, fmt.Sprintf("registry.example/restart:v%d", i+2))
		var pauses []*seenPause
		var restarted time.Duration
		ro = watchRollout(b, ns, name, 2*time.Minute, func(ro *rampv1.Rollout) bool {
			if newTemplate(old)(ro) != nil || ro.Status.CurrentStepIndex == nil {
				return false
			}
			n := len(pauses)
			pauses = followPause(pauses, ro.Status, time.Now())
			if len(pauses) == 1 && n == 0 { // the pause just began: crash the controller, start another
				t0 := time.Now()
				_ = p.cmd.Process.Kill()
				_ = p.cmd.Wait()
				p = ownController(b, ns, ns)
				restarted = time.Since(t0)
			}
			return healthy(2, "")(ro) == nil
		})
		b.StopTimer()
		if len(pauses) != 1 || pauses[0].over.IsZero() {
			b.Fatalf("update %d: saw %d pauses, want one, seen over", i+1, len(pauses))
		}
		b.Logf("update %d: controller SIGKILLed and ready again in %s; pause seen over after startTime+3s / precise start+3s: %s",
			i+1, restarted.Round(time.Millisecond), checkPauses(b, pauses, d))
		b.StartTimer()
	}
}
