package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// upstreamTable is written by Argo Rollouts' own code:
// cd test/upstream && go run ./cmd/replicatable > ../../internal/plan/testdata/upstream-basic-canary.json
// RAMP_UPSTREAM_TABLE names another file of the same form (e.g. its -random output).
const upstreamTable = "testdata/upstream-basic-canary.json"

// upstreamCase is one row of the table: a canary Rollout without
// trafficRouting, its observed ReplicaSets ([spec, status.replicas,
// status.availableReplicas]) and upstream's answers.
type upstreamCase struct {
	Replicas       int32               `json:"replicas"`
	MaxSurge       *intstr.IntOrString `json:"maxSurge"`
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable"`
	Steps          []rampv1.CanaryStep `json:"steps"`
	StepIndex      int32               `json:"currentStepIndex"`
	Abort          bool                `json:"abort"`
	PromoteFull    bool                `json:"promoteFull"`
	Promoted       bool                `json:"promoted"`
	State          string              `json:"state"`
	New            [3]int32            `json:"new"`
	Stable         *[3]int32           `json:"stable"`
	Others         [][3]int32          `json:"others"`
	Surge          int32               `json:"surge"`
	Unavailable    int32               `json:"unavailable"`
	Weight         int32               `json:"weight"`
	WantCanary     int32               `json:"wantCanary"`
	WantStable     int32               `json:"wantStable"`
	AtDesired      bool                `json:"atDesired"`
}

// deliberate names a row where Ramp differs from upstream on purpose:
// upstream passes the one ReplicaSet of a promoted canary as both canary
// and stable, so above n replicas (n lowered) it counts that ReplicaSet's
// pods twice and can cut it far below n (n=169: 171 -> 92 with 78
// available) before growing it back; Ramp takes it down toward n. Such rows
// only come from the generator's -random output.
func (c upstreamCase) deliberate() bool { return c.Promoted && c.New[0] > c.Replicas }

func (c upstreamCase) String() string {
	b, _ := json.Marshal(c)
	return string(b)
}

func loadUpstreamTable(t testing.TB) []upstreamCase {
	t.Helper()
	path := upstreamTable
	if p := os.Getenv("RAMP_UPSTREAM_TABLE"); p != "" {
		path = p
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []upstreamCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if path == upstreamTable && len(cases) < 200 {
		t.Fatalf("%s: %d cases, want the whole grid", path, len(cases))
	}
	return cases
}

func tableRS(name string, v [3]int32) RS {
	return RS{Name: name, Spec: v[0], Replicas: v[1], Available: v[2]}
}

// basic is the row as Basic sees it, with upstream's resolved budget and weight.
func (c upstreamCase) basic() Basic {
	b := Basic{N: c.Replicas, Surge: c.Surge, Unavailable: c.Unavailable, Weight: c.Weight, Canary: tableRS("canary", c.New)}
	if c.Stable != nil {
		s := tableRS("stable", *c.Stable)
		b.Stable = &s
	}
	for i, o := range c.Others {
		b.Others = append(b.Others, tableRS(fmt.Sprint("older", i), o))
	}
	return b
}

// TestBasicUpstreamTable: Budget resolves the budget as upstream does, and
// Basic gives upstream's canary and stable sizes and its step completion.
func TestBasicUpstreamTable(t *testing.T) {
	cases := loadUpstreamTable(t)
	skipped := 0
	for _, c := range cases {
		if c.deliberate() {
			skipped++
			continue
		}
		surge, unav, err := Budget(c.Replicas, c.MaxSurge, c.MaxUnavailable)
		if err != nil || surge != c.Surge || unav != c.Unavailable {
			t.Errorf("Budget = %d, %d, %v; upstream %d, %d\n%s", surge, unav, err, c.Surge, c.Unavailable, c)
		}
		b := c.basic()
		canary, stable := b.Next()
		if c.Promoted {
			stable = c.WantStable // upstream's stable size of a promoted canary is unused
		}
		if canary != c.WantCanary || stable != c.WantStable {
			t.Errorf("Next = canary %d stable %d; upstream %d %d\n%s", canary, stable, c.WantCanary, c.WantStable, c)
		}
		if !c.Promoted && b.Done() != c.AtDesired {
			t.Errorf("Done = %t; upstream %t\n%s", b.Done(), c.AtDesired, c)
		}
	}
	t.Logf("%d cases, %d deliberately different", len(cases), skipped)
}

// TestCanaryUpstreamTable runs every row through the planner, which finds
// the weight from the status (abort, promote --full, steps done, the stable
// version, setCanaryScale ignored) and sizes the ReplicaSets. Where a
// ReplicaSet still has pods above its replicas (status.replicas > spec, a
// scale-down not yet carried out), the planner grows only into the room
// those pods leave under n + surge: that is the one intended difference.
func TestCanaryUpstreamTable(t *testing.T) {
	cases := loadUpstreamTable(t)
	lagging, skipped := 0, 0
	for _, c := range cases {
		if c.deliberate() {
			skipped++
			continue
		}
		in := c.input()
		out := Canary(in)
		if cond := findCondition(&out.Status, rampv1.RolloutInvalidSpec); cond != nil {
			t.Fatalf("InvalidSpec %s\n%s", cond.Message, c)
		}
		canary, stable := sizeOf(in.New, out), c.WantStable
		if in.Stable != nil {
			stable = sizeOf(in.Stable, out)
		}
		wantC, wantS := c.WantCanary, c.WantStable
		room := c.Replicas + c.Surge
		for _, rs := range append(append(derefRS(in.New), derefRS(in.Stable)...), in.Others...) {
			room -= max(rs.Spec, rs.Replicas)
			if rs.Replicas > rs.Spec {
				lagging++
			}
		}
		room = max(room, 0)
		if in.Stable != nil && wantS > in.Stable.Spec {
			wantS = in.Stable.Spec + min(wantS-in.Stable.Spec, room)
			room -= wantS - in.Stable.Spec
		}
		if wantC > in.New.Spec {
			wantC = in.New.Spec + min(wantC-in.New.Spec, room)
		}
		if canary != wantC || stable != wantS {
			t.Errorf("planner: canary %d stable %d; want %d %d (upstream %d %d)\n%s", canary, stable, wantC, wantS, c.WantCanary, c.WantStable, c)
		}
	}
	t.Logf("%d cases, %d deliberately different, %d ReplicaSets with pods above their replicas", len(cases), skipped, lagging)
}

// input is the row as the reconciler would observe it.
func (c upstreamCase) input() Input {
	n := c.Replicas
	ro := &rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 1}}
	ro.Spec.Replicas = &n
	ro.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{MaxSurge: c.MaxSurge, MaxUnavailable: c.MaxUnavailable, Steps: c.Steps}
	st := &ro.Status
	st.CurrentPodHash, st.CurrentStepHash, st.StableRS = "canary", StepsHash(c.Steps), "stable"
	st.CurrentStepIndex = ptrTo(c.StepIndex)
	st.Abort, st.PromoteFull = c.Abort, c.PromoteFull
	rs := func(hash string, rev int64, v [3]int32) *ReplicaSet {
		return &ReplicaSet{Name: "web-" + hash, Hash: hash, Revision: rev, Spec: v[0], Replicas: v[1], Ready: v[2], Available: v[2]}
	}
	in := Input{Rollout: ro, NewHash: "canary", New: rs("canary", 10, c.New), Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if c.Promoted {
		st.StableRS = "canary"
	} else {
		in.Stable = rs("stable", 9, *c.Stable)
	}
	for i := len(c.Others) - 1; i >= 0; i-- { // the table lists them newest first
		in.Others = append(in.Others, *rs(fmt.Sprint("older", i), int64(8-i), c.Others[i]))
	}
	return in
}

// sizeOf is the .spec.replicas the plan leaves rs at.
func sizeOf(rs *ReplicaSet, out Output) int32 {
	if v, ok := out.Scale[rs.Name]; ok {
		return v
	}
	return rs.Spec
}
