package plan

import (
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestProgressDeadlineNotFiredByLatePass: a pass that runs long after the
// deadline would have been checked (the Rollout waited in the controller's
// queue, the cache lagged) judges the deadline from the latest progress the
// world shows (Input.Progressed, a pod of the new ReplicaSet becoming
// ready): it does not declare the deadline when that progress is within
// the window; a real stall still fires, as upstream.
func TestProgressDeadlineNotFiredByLatePass(t *testing.T) {
	const window = 30 * time.Second
	for _, c := range []struct {
		name           string
		late           time.Duration // after the last status update
		progressed     time.Duration // after it; 0: none read
		fired          bool
		requeueAtLeast time.Duration // when not fired
	}{
		{name: "on time, nothing moved", late: window, fired: true},
		{name: "late, nothing moved (a real stall)", late: 10 * window, fired: true},
		{name: "late, a pod became ready within the window", late: 10 * window, progressed: 10*window - 10*time.Second,
			requeueAtLeast: window - 10*time.Second},
		{name: "late, a pod became ready but a window ago", late: 10 * window, progressed: 5 * window, fired: true},
		{name: "late, readiness before the last update", late: 10 * window, progressed: -time.Minute, fired: true},
		{name: "late, a kubelet clock ahead of ours", late: 10 * window, progressed: 10*window + time.Minute, requeueAtLeast: window - time.Second},
		{name: "on time, a pod became ready just now", late: window, progressed: window, requeueAtLeast: window - time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t, 2, weight(50))
			deadline := int32(window / time.Second)
			s.ro.Spec.ProgressDeadlineSeconds = &deadline
			s.run("v1", time.Minute)
			// The new pods are created but not all become available.
			s.ro.Status = Canary(s.input("v2")).Status
			s.rs["v2"] = &ReplicaSet{Name: "web-v2", Hash: "v2", Revision: 2, Spec: 1, Replicas: 1}
			s.rs["v1"].Spec = 1
			var out Output
			for i := 0; ; i++ { // until the status settles (counts are written after 2 s)
				out = Canary(s.input("v2"))
				if apiequality.Semantic.DeepEqual(out.Status, s.ro.Status) && out.RequeueAfter > 2*time.Second {
					break
				}
				if i == 10 {
					t.Fatal("the status does not settle")
				}
				s.ro.Status = out.Status
				s.now = s.now.Add(3 * time.Second)
			}
			updated := findCondition(&s.ro.Status, rampv1.RolloutProgressing).LastUpdateTime.Time
			if out.RequeueAfter <= 0 || out.RequeueAfter > window {
				t.Fatalf("the deadline is not checked on time: RequeueAfter %s", out.RequeueAfter)
			}

			s.now = updated.Add(c.late)
			in := s.input("v2")
			if c.progressed != 0 {
				in.Progressed = updated.Add(c.progressed)
			}
			before := s.ro.Status.DeepCopy()
			out = Canary(in)
			if got := ProgressDeadlineFired(before, &out.Status); got != c.fired {
				cond := findCondition(&out.Status, rampv1.RolloutProgressing)
				t.Fatalf("deadline fired %v, want %v (Progressing %s, lastUpdateTime %s after the last update)", got, c.fired, cond.Reason,
					cond.LastUpdateTime.Sub(updated))
			}
			if c.fired {
				if out.Status.Phase != rampv1.RolloutPhaseDegraded {
					t.Errorf("phase %s, want Degraded", out.Status.Phase)
				}
				return
			}
			if out.Status.Phase == rampv1.RolloutPhaseDegraded {
				t.Errorf("phase Degraded without a deadline")
			}
			if out.RequeueAfter < c.requeueAtLeast || out.RequeueAfter > window {
				t.Errorf("RequeueAfter %s, want the rest of the window from the progress (%s to %s)", out.RequeueAfter, c.requeueAtLeast, window)
			}
		})
	}
}
