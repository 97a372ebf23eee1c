//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Helpers that drive and observe canary Rollouts. They take testing.TB so
// that BenchmarkCanary shares them with the tests.

const (
	hashLabel     = rampv1.DefaultRolloutUniqueLabelKey
	revisionKey   = "rollout.argoproj.io/revision"
	instanceLabel = "argo-rollouts.argoproj.io/controller-instance-id"
)

// rolloutYAML is a canary Rollout whose pods (label app=<name>) run one
// container "app" with image registry.example/app:v1.
type rolloutYAML struct {
	name     string
	replicas int
	instance string // controller instance id label; "" for the shared controller
	canary   string // body of spec.strategy.canary, unindented YAML
	// blueGreen, when set, is the body of spec.strategy.blueGreen instead.
	blueGreen string
}

func (r rolloutYAML) String() string {
	labels := ""
	if r.instance != "" {
		labels = fmt.Sprintf("\n  labels: {%s: %q}", instanceLabel, r.instance)
	}
	strategy, body := "canary", r.canary
	if r.blueGreen != "" {
		strategy, body = "blueGreen", r.blueGreen
	}
	block := " {}"
	if body = strings.Trim(body, "\n"); body != "" {
		block = "\n      " + strings.ReplaceAll(body, "\n", "\n      ")
	}
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: %[1]s%[2]s
spec:
  replicas: %[3]d
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      containers:
      - name: app
        image: registry.example/app:v1
  strategy:
    %[4]s:%[5]s
`, r.name, labels, r.replicas, strategy, block)
}

// serviceYAML is a Service selecting app=<app>, as a canary or stable Service.
func serviceYAML(name, app string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: %s}\nspec:\n  selector: {app: %s}\n  ports: [{port: 80, targetPort: 8080}]\n", name, app)
}

// consistently is the negative of eventually: cond must hold at every poll
// for the whole window. It is for "nothing happens" assertions only.
func consistently(t *testing.T, window time.Duration, what string, cond func() error) {
	t.Helper()
	for end := time.Now().Add(window); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if err := cond(); err != nil {
			t.Fatalf("%s: broken within %s: %v", what, window, err)
		}
	}
}

func apply(tb testing.TB, ns, manifest string) {
	tb.Helper()
	if _, stderr, err := kubectl(tb, manifest, "apply", "--server-side", "-n", ns, "-f", "-"); err != nil {
		tb.Fatalf("kubectl apply: %v\n%s\n%s", err, stderr, manifest)
	}
}

// patch sends a patch of type typ (merge or json) to the Rollout, as the
// Argo Rollouts kubectl plugin does.
func patch(tb testing.TB, ns, name, typ, body string) {
	tb.Helper()
	if _, stderr, err := kubectl(tb, "", "patch", "rollout", name, "-n", ns, "--type", typ, "-p", body); err != nil {
		tb.Fatalf("kubectl patch rollout %s %s: %v\n%s", name, body, err, stderr)
	}
}

// patchStatus sends a merge patch to the Rollout's status subresource
// (promote, promote --full, abort, retry).
func patchStatus(tb testing.TB, ns, name, body string) {
	tb.Helper()
	if _, stderr, err := kubectl(tb, "", "patch", "rollout", name, "-n", ns, "--subresource=status", "--type", "merge", "-p", body); err != nil {
		tb.Fatalf("kubectl patch rollout %s --subresource=status %s: %v\n%s", name, body, err, stderr)
	}
}

// setImage replaces the template's containers with one container (a merge
// patch replaces the whole list).
func setImage(tb testing.TB, ns, name, container, image string) {
	tb.Helper()
	patch(tb, ns, name, "merge", fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":%q,"image":%q}]}}}}`, container, image))
}

func getRollout(ns, name string) (*rampv1.Rollout, error) {
	ro := &rampv1.Rollout{}
	return ro, env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, ro)
}

// waitRollout polls the Rollout until cond accepts it, and returns it.
func waitRollout(tb testing.TB, ns, name string, timeout time.Duration, what string, cond func(*rampv1.Rollout) error) *rampv1.Rollout {
	tb.Helper()
	var ro *rampv1.Rollout
	eventually(tb, timeout, fmt.Sprintf("rollout %s/%s: %s", ns, name, what), func() (err error) {
		if ro, err = getRollout(ns, name); err != nil {
			return err
		}
		if err := cond(ro); err != nil {
			return fmt.Errorf("%w\n  status: %s", err, summary(ro))
		}
		return nil
	})
	return ro
}

func summary(ro *rampv1.Rollout) string {
	s := ro.Status
	return fmt.Sprintf("gen %d observed %q phase %q (%s) step %s current %q stable %q pause %v abort %v replicas %d/%d/%d/%d",
		ro.Generation, s.ObservedGeneration, s.Phase, s.Message, stepString(s.CurrentStepIndex), s.CurrentPodHash, s.StableRS,
		s.PauseConditions, s.Abort, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas)
}

func stepString(i *int32) string {
	if i == nil {
		return "nil"
	}
	return strconv.Itoa(int(*i))
}

func observed(ro *rampv1.Rollout) error {
	if ro.Status.ObservedGeneration != strconv.FormatInt(ro.Generation, 10) {
		return fmt.Errorf("generation %d not observed yet", ro.Generation)
	}
	return nil
}

// healthy: the controller saw the spec, phase Healthy, the stable
// ReplicaSet is the current one (hash, if set) and every replica is updated
// and available.
func healthy(replicas int32, hash string) func(*rampv1.Rollout) error {
	return func(ro *rampv1.Rollout) error {
		s := ro.Status
		switch {
		case observed(ro) != nil:
			return observed(ro)
		case s.Phase != rampv1.RolloutPhaseHealthy:
			return fmt.Errorf("phase %q", s.Phase)
		case s.CurrentPodHash == "" || s.StableRS != s.CurrentPodHash || (hash != "" && s.CurrentPodHash != hash):
			return fmt.Errorf("current %q stable %q, want both %q", s.CurrentPodHash, s.StableRS, hash)
		case s.AvailableReplicas != replicas || s.UpdatedReplicas != replicas:
			return fmt.Errorf("%d updated, %d available, want %d", s.UpdatedReplicas, s.AvailableReplicas, replicas)
		}
		return nil
	}
}

func waitHealthy(tb testing.TB, ns, name, hash string, replicas int32) *rampv1.Rollout {
	tb.Helper()
	return waitRollout(tb, ns, name, 90*time.Second, "Healthy", healthy(replicas, hash))
}

// newTemplate: the controller saw the spec and its current hash is not old.
func newTemplate(old string) func(*rampv1.Rollout) error {
	return func(ro *rampv1.Rollout) error {
		if err := observed(ro); err != nil {
			return err
		}
		if h := ro.Status.CurrentPodHash; h == "" || h == old {
			return fmt.Errorf("current pod hash %q is still the old one", h)
		}
		return nil
	}
}

// pausedAt: the controller paused the canary on the pause step at index step.
func pausedAt(step int32) func(*rampv1.Rollout) error {
	return func(ro *rampv1.Rollout) error {
		s := ro.Status
		switch {
		case observed(ro) != nil:
			return observed(ro)
		case s.CurrentStepIndex == nil || *s.CurrentStepIndex != step:
			return fmt.Errorf("step %s, want %d", stepString(s.CurrentStepIndex), step)
		case s.Phase != rampv1.RolloutPhasePaused || !s.ControllerPause:
			return fmt.Errorf("phase %q controllerPause %v, want Paused by the controller", s.Phase, s.ControllerPause)
		case len(s.PauseConditions) != 1 || s.PauseConditions[0].Reason != rampv1.PauseReasonCanaryPauseStep || s.PauseConditions[0].StartTime.IsZero():
			return fmt.Errorf("pauseConditions %v, want one CanaryPauseStep with a startTime", s.PauseConditions)
		}
		return nil
	}
}

func condition(ro *rampv1.Rollout, typ rampv1.RolloutConditionType) *rampv1.RolloutCondition {
	for i := range ro.Status.Conditions {
		if ro.Status.Conditions[i].Type == typ {
			return &ro.Status.Conditions[i]
		}
	}
	return nil
}

// replicaSets returns the ReplicaSets the Rollout controls, by pod template hash.
func replicaSets(ns, name string) (map[string]*appsv1.ReplicaSet, error) {
	var list appsv1.ReplicaSetList
	if err := env.client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	out := map[string]*appsv1.ReplicaSet{}
	for i, rs := range list.Items {
		if o := metav1.GetControllerOf(&rs); o != nil && o.Kind == "Rollout" && o.Name == name {
			out[rs.Labels[hashLabel]] = &list.Items[i]
		}
	}
	return out, nil
}

// waitReplicaSets waits until the Rollout's ReplicaSets want exactly these
// replicas (spec.replicas by hash); any other ReplicaSet must want 0.
func waitReplicaSets(tb testing.TB, ns, name string, want map[string]int32) {
	tb.Helper()
	eventually(tb, 60*time.Second, fmt.Sprintf("ReplicaSets of %s/%s scaled to %v", ns, name, want), func() error {
		rss, err := replicaSets(ns, name)
		if err != nil {
			return err
		}
		got := map[string]int32{}
		for h, rs := range rss {
			got[h] = *rs.Spec.Replicas
		}
		for h, n := range want {
			if _, ok := rss[h]; !ok && n > 0 {
				return fmt.Errorf("no ReplicaSet for hash %q; have %v", h, got)
			}
		}
		for h, n := range got {
			if n != want[h] {
				return fmt.Errorf("spec.replicas by hash %v", got)
			}
		}
		return nil
	})
}

// podsByHash counts the app's non-terminating pods, and the ready ones, by
// their rollouts-pod-template-hash label.
func podsByHash(ns, app string) (all, ready map[string]int, err error) {
	var pods corev1.PodList
	if err := env.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{"app": app}); err != nil {
		return nil, nil, err
	}
	all, ready = map[string]int{}, map[string]int{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			all[p.Labels[hashLabel]]++
			if podReady(&p) {
				ready[p.Labels[hashLabel]]++
			}
		}
	}
	return all, ready, nil
}

// waitPods waits until the app runs exactly these pods by hash, all ready.
func waitPods(tb testing.TB, ns, app string, want map[string]int) {
	tb.Helper()
	eventually(tb, 60*time.Second, fmt.Sprintf("pods of %s/%s by hash %v, all ready", ns, app, want), func() error {
		all, ready, err := podsByHash(ns, app)
		if err != nil {
			return err
		}
		for _, m := range []map[string]int{all, want} {
			for h := range m {
				if all[h] != want[h] || ready[h] != want[h] {
					return fmt.Errorf("pods by hash %v, ready %v", all, ready)
				}
			}
		}
		return nil
	})
}

// waitServiceHash waits until the Service selects the pods of hash.
func waitServiceHash(tb testing.TB, ns, svc, hash string) {
	tb.Helper()
	eventually(tb, 30*time.Second, fmt.Sprintf("Service %s/%s selects %s=%s", ns, svc, hashLabel, hash), func() error {
		var s corev1.Service
		if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: svc}, &s); err != nil {
			return err
		}
		if got := s.Spec.Selector[hashLabel]; got != hash {
			return fmt.Errorf("selector %v", s.Spec.Selector)
		}
		return nil
	})
}

// eventCount is how many times the Rollout had an event with reason
// (repeats folded into one Event count through count or series.count).
func eventCount(ns, name, reason string) (int, error) {
	var events corev1.EventList
	if err := env.client.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
		return 0, err
	}
	n := 0
	for _, e := range events.Items {
		if e.InvolvedObject.Kind != "Rollout" || e.InvolvedObject.Name != name || e.Reason != reason {
			continue
		}
		switch {
		case e.Series != nil && e.Series.Count > 1:
			n += int(e.Series.Count)
		case e.Count > 1:
			n += int(e.Count)
		default:
			n++
		}
	}
	return n, nil
}

// waitEvents waits until the Rollout had an event with each reason.
func waitEvents(tb testing.TB, ns, name string, reasons ...string) {
	tb.Helper()
	eventually(tb, 30*time.Second, fmt.Sprintf("events %v on rollout %s/%s", reasons, ns, name), func() error {
		for _, r := range reasons {
			n, err := eventCount(ns, name, r)
			if err != nil {
				return fmt.Errorf("no %s event: %w", r, err)
			}
			if n == 0 {
				return fmt.Errorf("no %s event", r)
			}
		}
		return nil
	})
}

// ownController starts a ramp-controller that handles only the Rollouts
// labelled with instance id, without leader election, and waits until ready.
func ownController(tb testing.TB, ns, id string, flags ...string) *controllerProcess {
	tb.Helper()
	p, err := startController(ns, append([]string{"--instance-id", id, "--leader-elect=false"}, flags...)...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.stop)
	eventually(tb, 60*time.Second, "controller for instance "+id+" ready", p.ready)
	return p
}

// watchFrom watches the objects of list's kind in ns from resourceVersion rv
// (resuming after the API server closes the watch) and calls next with each
// event in order until next returns true, ctx ends or the watch fails.
func watchFrom(ctx context.Context, list client.ObjectList, ns, rv string, next func(watch.EventType, client.Object) bool) error {
	wc, err := client.NewWithWatch(env.rest, client.Options{Scheme: env.client.Scheme()})
	if err != nil {
		return err
	}
	if rv == "" { // a retry watcher needs a resourceVersion: list first, replaying the items as ADDED
		l := list.DeepCopyObject().(client.ObjectList)
		if err := wc.List(ctx, l, client.InNamespace(ns)); err != nil {
			return err
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			return err
		}
		for _, it := range items {
			if obj, ok := it.(client.Object); ok && next(watch.Added, obj) {
				return nil
			}
		}
		rv = l.GetResourceVersion()
	}
	lw := &cache.ListWatch{WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return wc.Watch(ctx, list.DeepCopyObject().(client.ObjectList), client.InNamespace(ns), &client.ListOptions{Raw: &o})
	}}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, rv, lw)
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return errors.New("watch closed")
			}
			switch ev.Type {
			case watch.Bookmark:
				continue
			case watch.Error:
				return apierrors.FromObject(ev.Object)
			}
			if obj, ok := ev.Object.(client.Object); ok && next(ev.Type, obj) {
				return nil
			}
		}
	}
}
