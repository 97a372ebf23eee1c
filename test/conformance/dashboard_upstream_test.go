//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestUpstreamDashboardOnRamp: upstream's own dashboard (`kubectl argo
// rollouts dashboard`, v1.9.1) works against Ramp unchanged. One dashboard
// server runs on each plane; a canary is taken to its pause and promoted
// through the dashboard's API as its page sends it (PUT .../promote with
// {"full": false}). At every settled point the dashboard's answers (the
// namespace's list and the rollout's info) go into the observation and are
// diffed with upstream's like the rest of it; on each side they must also
// agree with the Rollout and ReplicaSets read from the API server, and the
// rollout's watch stream must deliver the promoted state.
//
// Its file sorts before migration_test.go: TestMigration swaps the planes'
// controllers and must run last.
func TestUpstreamDashboardOnRamp(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t, "c-updash")
	dash := map[*side]*upstreamDashboard{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range []*side{rampSide, upstreamSide} {
		wg.Go(func() {
			d := startUpstreamDashboard(t, s)
			mu.Lock()
			dash[s] = d
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(dash) != 2 {
		t.FailNow() // startUpstreamDashboard said why
	}
	const v2 = "registry.example/app:v2"
	sc := scenario{name: "upstream-dashboard",
		yaml: rollout(2, "    canary:\n      steps: [{setWeight: 50}, {pause: {}}]")}
	steps := []step{
		{name: "apply", do: func(ctx context.Context, a *actor) error {
			return a.kubectl(ctx, sc.yaml, "apply", "--server-side", "-f", "-")
		}, until: healthy},
		{name: "set image", do: setImage(v2), until: pausedAt(1)},
		{name: "promote", do: func(ctx context.Context, a *actor) error {
			return promoteThroughDashboard(ctx, dash[a.side], a.ns, v2)
		}, until: healthyWith(v2)},
	}
	var traj [2]trajectory
	for i, s := range []*side{rampSide, upstreamSide} {
		wg.Go(func() {
			a := &actor{side: s, ns: ns}
			for _, st := range steps {
				o, err := a.stepTo(ctx, st)
				if err == nil {
					err = dash[s].observe(ctx, a, o)
				}
				if err != nil {
					traj[i].failed = fmt.Sprintf("%s: %v", st.name, err)
					return
				}
				traj[i].obs = append(traj[i].obs, o)
			}
		})
	}
	wg.Wait()
	report(t, sc, steps, traj)
}

// observe adds the dashboard's answers for the namespace and the rollout
// "app" to o, after checking them against what the API server holds.
func (d *upstreamDashboard) observe(ctx context.Context, a *actor, o observation) error {
	w, err := a.read(ctx, a.ns)
	if err != nil {
		return err
	}
	var list, info map[string]any
	if err := d.get(ctx, "rollouts/"+a.ns+"/info", &list); err != nil {
		return err
	}
	if err := d.get(ctx, "rollouts/"+a.ns+"/app/info", &info); err != nil {
		return err
	}
	for _, v := range []any{list, info} {
		if err := agrees(w, v); err != nil {
			return fmt.Errorf("the dashboard's answer disagrees with the API server: %w", err)
		}
	}
	n := newNormalizer(w.hashes())
	put := func(k, v string) { o[k] = v }
	flattenInfo(put, "dashboard list", list, n)
	flattenInfo(put, "dashboard info", info, n)
	return nil
}

// dashInfo is what agrees checks of a RolloutInfo.
type dashInfo struct {
	ObjectMeta       struct{ Name string }
	Status, Step     string
	SetWeight        string
	Generation       string
	Desired, Updated int64
	Containers       []struct{ Name, Image string }
	ReplicaSets      []struct {
		ObjectMeta          struct{ Name string }
		Revision            int64
		Stable, Canary      bool
		Replicas, Available int64
		Images              []string
		Pods                []struct{ Status, Ready string }
	}
}

// agrees checks a dashboard answer (one RolloutInfo, or the list holding
// exactly one) against the Rollout "app" and its ReplicaSets and pods.
func agrees(w *world, answer any) error {
	b, err := json.Marshal(answer)
	if err != nil {
		return err
	}
	var list struct{ Rollouts []dashInfo }
	var ri dashInfo
	if err := json.Unmarshal(b, &list); err == nil && list.Rollouts != nil {
		if len(list.Rollouts) != 1 {
			return fmt.Errorf("list holds %d rollouts, want 1", len(list.Rollouts))
		}
		ri = list.Rollouts[0]
	} else if err := json.Unmarshal(b, &ri); err != nil {
		return err
	}
	if len(w.rollouts) != 1 || ri.ObjectMeta.Name != "app" {
		return fmt.Errorf("rollout %q, %d on the API server", ri.ObjectMeta.Name, len(w.rollouts))
	}
	r := w.rollouts[0].Object
	phase, _, _ := unstructured.NestedString(r, "status", "phase")
	observed, _, _ := unstructured.NestedFieldNoCopy(r, "status", "observedGeneration")
	idx, _, _ := unstructured.NestedInt64(r, "status", "currentStepIndex")
	steps, _, _ := unstructured.NestedSlice(r, "spec", "strategy", "canary", "steps")
	replicas, _, _ := unstructured.NestedInt64(r, "spec", "replicas")
	updated, _, _ := unstructured.NestedInt64(r, "status", "updatedReplicas")
	stable, _, _ := unstructured.NestedString(r, "status", "stableRS")
	current, _, _ := unstructured.NestedString(r, "status", "currentPodHash")
	containers, _, _ := unstructured.NestedSlice(r, "spec", "template", "spec", "containers")
	want := map[string][2]string{
		"status":      {ri.Status, phase},
		"generation":  {ri.Generation, fmt.Sprint(observed)},
		"step":        {ri.Step, fmt.Sprintf("%d/%d", idx, len(steps))},
		"setWeight":   {ri.SetWeight, setWeightAt(steps, idx)},
		"desired":     {strconv.FormatInt(ri.Desired, 10), strconv.FormatInt(replicas, 10)},
		"updated":     {strconv.FormatInt(ri.Updated, 10), strconv.FormatInt(updated, 10)},
		"image":       {fmt.Sprint(ri.Containers), fmt.Sprintf("[{app %v}]", containers[0].(map[string]any)["image"])},
		"replicaSets": {strconv.Itoa(len(ri.ReplicaSets)), strconv.Itoa(len(w.replicaSets))},
	}
	for f, v := range want {
		if v[0] != v[1] {
			return fmt.Errorf("%s %q, the API server says %q", f, v[0], v[1])
		}
	}
	for _, rs := range ri.ReplicaSets {
		i := slices.IndexFunc(w.replicaSets, func(u unstructured.Unstructured) bool { return u.GetName() == rs.ObjectMeta.Name })
		if i < 0 {
			return fmt.Errorf("replicaset %s is not on the API server", rs.ObjectMeta.Name)
		}
		u := &w.replicaSets[i]
		hash := u.GetLabels()[hashLabel]
		n, _, _ := unstructured.NestedInt64(u.Object, "status", "replicas")
		avail, _, _ := unstructured.NestedInt64(u.Object, "status", "availableReplicas")
		cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		pods := 0
		for j := range w.pods {
			if ownedBy(&w.pods[j], u.GetName()) {
				pods++
			}
		}
		got := fmt.Sprintf(rsFields, rs.Revision, rs.Stable, rs.Canary, rs.Replicas, rs.Available, rs.Images, len(rs.Pods))
		exp := fmt.Sprintf(rsFields, u.GetAnnotations()["rollout.argoproj.io/revision"], hash == stable, hash == current && hash != stable,
			n, avail, []any{cs[0].(map[string]any)["image"]}, pods)
		if got != exp {
			return fmt.Errorf("replicaset %s: %s; the API server says %s",
				u.GetName(), got, exp)
		}
	}
	return nil
}

// rsFields formats what agrees compares of a ReplicaSet.
const rsFields = "revision %v stable %v canary %v replicas %v available %v images %v pods %v"

// setWeightAt is the canary weight upstream's info shows at step idx: the
// last setWeight before it, 100 once the steps are done.
func setWeightAt(steps []any, idx int64) string {
	if idx >= int64(len(steps)) {
		return "100"
	}
	w := "0"
	for _, s := range steps[:idx] {
		if v, ok := s.(map[string]any)["setWeight"]; ok {
			w = fmt.Sprint(v)
		}
	}
	return w
}

// promoteThroughDashboard opens the rollout's watch stream, reads the
// paused state from it, promotes through the dashboard and reads the stream
// until it shows the rollout Healthy with image on its stable ReplicaSet.
func promoteThroughDashboard(ctx context.Context, d *upstreamDashboard, ns, image string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	msgs, err := d.watch(ctx, "rollouts/"+ns+"/app/info/watch")
	if err != nil {
		return err
	}
	deadline := time.Now().Add(settleTimeout)
	var ri dashInfo
	m, err := next(msgs, deadline)
	if err == nil {
		err = json.Unmarshal(m, &ri)
	}
	if err != nil || ri.Status != "Paused" {
		return fmt.Errorf("the watch stream's first message: status %q: %w", ri.Status, err)
	}
	var promoted struct{ Metadata struct{ Name string } }
	if err := d.call(ctx, "PUT", "rollouts/"+ns+"/app/promote", map[string]bool{"full": false}, &promoted); err != nil {
		return err
	}
	if promoted.Metadata.Name != "app" {
		return fmt.Errorf("promote answered rollout %q", promoted.Metadata.Name)
	}
	for {
		m, err := next(msgs, deadline)
		if err != nil {
			return fmt.Errorf("after the promote, last streamed status %q step %q: %w", ri.Status, ri.Step, err)
		}
		ri = dashInfo{}
		if err := json.Unmarshal(m, &ri); err != nil {
			return err
		}
		for _, rs := range ri.ReplicaSets {
			if ri.Status == "Healthy" && rs.Stable && slices.Equal(rs.Images, []string{image}) {
				return nil
			}
		}
	}
}
