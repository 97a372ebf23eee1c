//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestCanarySeedRolloutsDemo drives seed 003's rollouts-demo (5 replicas;
// steps 20, pause, 40, pause 10, 60, pause 10, 80, pause 10): the first apply
// goes straight to stable; an image change stops on the indefinite pause with
// 1 canary and 4 stable pods; one promote and the timed pauses end by
// themselves with 5 pods of the new version.
func TestCanarySeedRolloutsDemo(t *testing.T) {
	t.Parallel()
	const name = "rollouts-demo"
	ns := namespace(t, "demo")
	if _, stderr, err := kubectl(t, "", "apply", "--server-side", "-n", ns, "-f", "testdata/seeds/003-rollouts-demo.yaml"); err != nil {
		t.Fatalf("apply seed: %v\n%s", err, stderr)
	}
	ro := waitHealthy(t, ns, name, "", 5)
	stable := ro.Status.CurrentPodHash
	waitPods(t, ns, name, map[string]int{stable: 5})
	checkReplicaSet(t, ro, stable, "1")

	setImage(t, ns, name, "rollouts-demo", "argoproj/rollouts-demo:yellow")
	ro = waitRollout(t, ns, name, 60*time.Second, "paused on step 1 with a new pod hash", func(ro *rampv1.Rollout) error {
		if err := newTemplate(stable)(ro); err != nil {
			return err
		}
		return pausedAt(1)(ro)
	})
	canary := ro.Status.CurrentPodHash
	if ro.Status.StableRS != stable {
		t.Errorf("stableRS = %q during the canary, want the previous %q", ro.Status.StableRS, stable)
	}
	if w := ro.Status.Canary.Weights; w != nil { // as upstream: weights describe traffic routers only
		t.Errorf("status.canary.weights = %+v without trafficRouting, want none", w)
	}
	waitReplicaSets(t, ns, name, map[string]int32{canary: 1, stable: 4})
	waitPods(t, ns, name, map[string]int{canary: 1, stable: 4})
	checkReplicaSet(t, ro, canary, "2")

	promoted := time.Now()
	patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`)
	pausedOn := map[int32]bool{}
	ro = waitRollout(t, ns, name, 3*time.Minute, "Healthy on the new version after the timed pauses", func(ro *rampv1.Rollout) error {
		if s := ro.Status; s.Phase == rampv1.RolloutPhasePaused && s.CurrentStepIndex != nil && len(s.PauseConditions) > 0 {
			pausedOn[*s.CurrentStepIndex] = true
		}
		return healthy(5, canary)(ro)
	})
	took := time.Since(promoted)
	t.Logf("promote to Healthy: %s", took.Round(100*time.Millisecond))
	for _, step := range []int32{3, 5, 7} {
		if !pausedOn[step] {
			t.Errorf("never saw the rollout paused on step %d (saw %v)", step, pausedOn)
		}
	}
	// Three 10 s pauses; a stored startTime has second resolution, so each may end up to 1 s early.
	if took < 27*time.Second {
		t.Errorf("promote to Healthy took %s: the three 10 s pauses were not waited out", took)
	}
	if s := ro.Status.CurrentStepIndex; s == nil || *s != 8 {
		t.Errorf("currentStepIndex = %s, want 8 (all steps done)", stepString(s))
	}
	waitReplicaSets(t, ns, name, map[string]int32{canary: 5, stable: 0})
	waitPods(t, ns, name, map[string]int{canary: 5})
	for typ, want := range map[rampv1.RolloutConditionType]corev1.ConditionStatus{
		rampv1.RolloutAvailable: corev1.ConditionTrue, rampv1.RolloutCompleted: corev1.ConditionTrue, rampv1.RolloutHealthy: corev1.ConditionTrue,
	} {
		if c := condition(ro, typ); c == nil || c.Status != want {
			t.Errorf("condition %s = %+v, want status %s", typ, c, want)
		}
	}
	if c := condition(ro, rampv1.RolloutProgressing); c == nil || c.Reason != rampv1.RolloutReasonNewReplicaSetAvailable {
		t.Errorf("Progressing condition = %+v, want reason %s", c, rampv1.RolloutReasonNewReplicaSetAvailable)
	}
	waitEvents(t, ns, name, rampv1.RolloutReasonUpdated, rampv1.RolloutReasonScalingReplicaSet, rampv1.RolloutReasonPaused,
		rampv1.RolloutReasonResumed, rampv1.RolloutReasonStepCompleted, rampv1.RolloutReasonCompleted)
}

// checkReplicaSet: the ReplicaSet of hash is controlled by the Rollout,
// selects and labels its pods with the hash, and carries the revision.
func checkReplicaSet(t *testing.T, ro *rampv1.Rollout, hash, revision string) {
	t.Helper()
	rss, err := replicaSets(ro.Namespace, ro.Name)
	if err != nil {
		t.Fatal(err)
	}
	rs := rss[hash]
	switch {
	case rs == nil:
		t.Errorf("no ReplicaSet controlled by the Rollout with %s=%s (have %d)", hashLabel, hash, len(rss))
	case metav1.GetControllerOf(rs).UID != ro.UID:
		t.Errorf("ReplicaSet %s is controlled by %+v, not Rollout uid %s", rs.Name, rs.OwnerReferences, ro.UID)
	case rs.Spec.Selector.MatchLabels[hashLabel] != hash || rs.Spec.Template.Labels[hashLabel] != hash:
		t.Errorf("ReplicaSet %s selector %v template labels %v, want %s=%s", rs.Name, rs.Spec.Selector.MatchLabels, rs.Spec.Template.Labels, hashLabel, hash)
	case rs.Annotations[revisionKey] != revision:
		t.Errorf("ReplicaSet %s annotation %s = %q, want %q", rs.Name, revisionKey, rs.Annotations[revisionKey], revision)
	}
}

// TestCanaryKeepsCapacity: with 10 replicas, maxSurge 1 and maxUnavailable 0,
// every state of the pods during an update, as a watch reports them, has at
// least 10 ready pods and at most 11 pods that are not terminating.
func TestCanaryKeepsCapacity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, steps string }{
		{"rolling-update", ""},
		{"steps-50-100", "steps:\n- setWeight: 50\n- setWeight: 100\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const name = "capacity"
			ns := namespace(t, "capacity")
			apply(t, ns, rolloutYAML{name: name, replicas: 10, canary: "maxSurge: 1\nmaxUnavailable: 0\n" + tc.steps}.String())
			ro := waitHealthy(t, ns, name, "", 10)
			old := ro.Status.CurrentPodHash
			waitPods(t, ns, name, map[string]int{old: 10})

			minReady, maxPods := 10, 10
			w := watchPods(t, ns, func(pods map[string]*corev1.Pod) error {
				ready := 0
				for _, p := range pods {
					if podReady(p) {
						ready++
					}
				}
				minReady, maxPods = min(minReady, ready), max(maxPods, len(pods))
				if ready < 10 || len(pods) > 11 {
					return fmt.Errorf("%d ready of %d pods: %s", ready, len(pods), describePods(pods))
				}
				return nil
			})
			setImage(t, ns, name, "app", "registry.example/app:v2")
			ro = waitRollout(t, ns, name, 30*time.Second, "new template", newTemplate(old))
			updated := ro.Status.CurrentPodHash
			waitHealthy(t, ns, name, updated, 10)
			waitPods(t, ns, name, map[string]int{updated: 10})
			states, violations, err := w.stop()
			if err != nil {
				t.Fatalf("pod watch failed after %d states: %v", states, err)
			}
			t.Logf("checked %d pod states: at least %d ready, at most %d pods", states, minReady, maxPods)
			for _, v := range violations {
				t.Errorf("capacity broken %s", v)
			}
			// 10 pods created (each at least created, scheduled, ready) and 10 deleted.
			if states < 40 {
				t.Errorf("the watch reported only %d states: it did not follow the update", states)
			}
		})
	}
}

// describePods lists pods as hash:ready/all.
func describePods(pods map[string]*corev1.Pod) string {
	all, ready := map[string]int{}, map[string]int{}
	for _, p := range pods {
		all[p.Labels[hashLabel]]++
		if podReady(p) {
			ready[p.Labels[hashLabel]]++
		}
	}
	var out []string
	for h, n := range all {
		out = append(out, fmt.Sprintf("%s:%d/%d", h, ready[h], n))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestCanarySurvivesControllerRestart: a controller replaced while the
// canary waits on its first pause resumes exactly there (no step repeated or
// skipped, the pause's startTime kept), and a promote then goes on to the
// next pause.
func TestCanarySurvivesControllerRestart(t *testing.T) {
	t.Parallel()
	const name = "survivor"
	ns := namespace(t, "ctrl-restart")
	first := ownController(t, ns, ns)
	apply(t, ns, rolloutYAML{name: name, replicas: 5, instance: ns, canary: `steps:
- setWeight: 20
- pause: {}
- setWeight: 40
- pause: {}
- setWeight: 60
- pause: {}
`}.String())
	stable := waitHealthy(t, ns, name, "", 5).Status.CurrentPodHash
	setImage(t, ns, name, "app", "registry.example/app:v2")
	ro := waitRollout(t, ns, name, 60*time.Second, "paused on step 1", pausedAt(1))
	canary, since := ro.Status.CurrentPodHash, ro.Status.PauseConditions[0].StartTime
	waitReplicaSets(t, ns, name, map[string]int32{canary: 1, stable: 4})
	waitStepEvents(t, ns, name, 1)
	before, err := replicaSets(ns, name)
	if err != nil {
		t.Fatal(err)
	}

	first.stop()
	second := ownController(t, ns, ns)
	eventually(t, 30*time.Second, "the new controller reconciled the rollout", func() error {
		m, err := metricSum(second, "controller_runtime_reconcile_total", map[string]string{"controller": "rollout"}, "")
		if err == nil && m[""] < 1 {
			err = fmt.Errorf("no rollout reconciles yet")
		}
		return err
	})
	ro = waitRollout(t, ns, name, 10*time.Second, "still paused on step 1", pausedAt(1))
	if got := ro.Status.PauseConditions[0].StartTime; !got.Equal(&since) || ro.Status.CurrentPodHash != canary || ro.Status.StableRS != stable {
		t.Errorf("after the restart: pause since %s, current %q, stable %q; before: %s, %q, %q",
			got, ro.Status.CurrentPodHash, ro.Status.StableRS, since, canary, stable)
	}
	after, err := replicaSets(ns, name)
	if err != nil {
		t.Fatal(err)
	}
	for h, rs := range after {
		if b := before[h]; b == nil || b.UID != rs.UID || *b.Spec.Replicas != *rs.Spec.Replicas {
			t.Errorf("ReplicaSet %s (%s) changed across the restart: %d replicas, before %v", rs.Name, h, *rs.Spec.Replicas, b)
		}
	}
	if n, err := eventCount(ns, name, rampv1.RolloutReasonStepCompleted); err != nil || n != 1 {
		t.Errorf("%d RolloutStepCompleted events after the restart (%v), want 1 (step 0 only)", n, err)
	}

	patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`)
	waitRollout(t, ns, name, 60*time.Second, "paused on step 3 after promote", pausedAt(3))
	waitReplicaSets(t, ns, name, map[string]int32{canary: 2, stable: 3})
	waitStepEvents(t, ns, name, 3)
}

// waitStepEvents waits until the Rollout had exactly n RolloutStepCompleted events.
func waitStepEvents(t *testing.T, ns, name string, n int) {
	t.Helper()
	eventually(t, 30*time.Second, fmt.Sprintf("%d RolloutStepCompleted events", n), func() error {
		got, err := eventCount(ns, name, rampv1.RolloutReasonStepCompleted)
		if err == nil && got != n {
			err = fmt.Errorf("%d events", got)
		}
		return err
	})
}

// TestCanaryInvalidSpecRecovers: a canaryService naming a missing Service
// makes the spec invalid (condition InvalidSpec naming the Service and the
// field, phase Degraded); creating the Service recovers without a restart.
func TestCanaryInvalidSpecRecovers(t *testing.T) {
	t.Parallel()
	const name, svc = "missing-svc", "missing-svc-canary"
	ns := namespace(t, "invalid-spec")
	apply(t, ns, rolloutYAML{name: name, replicas: 2, canary: "canaryService: " + svc + "\nsteps:\n- setWeight: 50\n- pause: {}\n"}.String())
	waitRollout(t, ns, name, 30*time.Second, "InvalidSpec naming the missing Service", func(ro *rampv1.Rollout) error {
		c := condition(ro, rampv1.RolloutInvalidSpec)
		switch {
		case c == nil || c.Status != corev1.ConditionTrue:
			return fmt.Errorf("InvalidSpec condition %+v", c)
		case !strings.Contains(c.Message, svc) || !strings.Contains(c.Message, "spec.strategy.canary.canaryService"):
			return fmt.Errorf("InvalidSpec message %q does not name %s and spec.strategy.canary.canaryService", c.Message, svc)
		case ro.Status.Phase != rampv1.RolloutPhaseDegraded:
			return fmt.Errorf("phase %q, want Degraded", ro.Status.Phase)
		}
		return nil
	})
	apply(t, ns, serviceYAML(svc, name))
	waitRollout(t, ns, name, 60*time.Second, "recovered once the Service exists", func(ro *rampv1.Rollout) error {
		if c := condition(ro, rampv1.RolloutInvalidSpec); c != nil {
			return fmt.Errorf("InvalidSpec still there: %+v", c)
		}
		return healthy(2, "")(ro)
	})
}

// podWatch checks every state of a namespace's non-terminating pods that a
// watch observes, from the listed state on.
type podWatch struct {
	mu         sync.Mutex
	pods       map[string]*corev1.Pod
	states     int
	violations []string
	err        error
	cancel     context.CancelFunc
	done       chan struct{}
}

func watchPods(tb testing.TB, ns string, check func(pods map[string]*corev1.Pod) error) *podWatch {
	tb.Helper()
	var list corev1.PodList
	if err := env.client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &podWatch{pods: map[string]*corev1.Pod{}, cancel: cancel, done: make(chan struct{})}
	for i, p := range list.Items {
		if p.DeletionTimestamp == nil {
			w.pods[p.Name] = &list.Items[i]
		}
	}
	w.observe(check, "listed state")
	go func() {
		defer close(w.done)
		err := watchFrom(ctx, &corev1.PodList{}, ns, list.ResourceVersion, func(typ watch.EventType, obj client.Object) bool {
			p := obj.(*corev1.Pod)
			if typ == watch.Deleted || p.DeletionTimestamp != nil {
				delete(w.pods, p.Name)
			} else {
				w.pods[p.Name] = p
			}
			w.observe(check, fmt.Sprintf("%s pod %s", typ, p.Name))
			return false
		})
		if !errors.Is(err, context.Canceled) {
			w.mu.Lock()
			w.err = err
			w.mu.Unlock()
		}
	}()
	tb.Cleanup(cancel)
	return w
}

func (w *podWatch) observe(check func(map[string]*corev1.Pod) error, after string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.states++
	if err := check(w.pods); err != nil && len(w.violations) < 20 {
		w.violations = append(w.violations, fmt.Sprintf("after %s: %v", after, err))
	}
}

// stop ends the watch and returns how many states it checked, the
// violations it saw, and an error if the watch itself failed.
func (w *podWatch) stop() (states int, violations []string, err error) {
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.states, w.violations, w.err
}
