// Command replicatable writes the conformance table of the basic canary
// (canary without trafficRouting): for a grid of Rollouts and observed
// ReplicaSets, the canary and stable sizes Argo Rollouts v1.9.1 computes,
// by calling its own code (utils/replicaset.CalculateReplicaCountsForBasicCanary,
// MaxSurge, MaxUnavailable, GetCanaryReplicasOrWeight and
// AtDesiredReplicaCountsForCanary). Ramp's internal/plan tests load the
// table and must produce the same numbers.
//
// Regenerate it from the repository root with:
//
//	cd test/upstream && go run ./cmd/replicatable > ../../internal/plan/testdata/upstream-basic-canary.json
//
// The output is deterministic (no map iteration, no clock, cases sorted).
// With -random N -seed S it writes N random cases instead, for a one-off
// wider comparison (RAMP_UPSTREAM_TABLE=<file> go test ./internal/plan).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	"github.com/argoproj/argo-rollouts/utils/replicaset"
)

// RS is one observed ReplicaSet, written as [.spec.replicas,
// .status.replicas, .status.availableReplicas].
type RS struct{ Spec, Replicas, Available int32 }

func (r RS) MarshalJSON() ([]byte, error) {
	return json.Marshal([3]int32{r.Spec, r.Replicas, r.Available})
}

// Case is one row: the inputs as upstream sees them, then its answers.
type Case struct {
	Replicas       int32                 `json:"replicas"`
	MaxSurge       *intstr.IntOrString   `json:"maxSurge,omitempty"` // absent: the default
	MaxUnavailable *intstr.IntOrString   `json:"maxUnavailable,omitempty"`
	Steps          []v1alpha1.CanaryStep `json:"steps"`
	StepIndex      int32                 `json:"currentStepIndex"`
	Abort          bool                  `json:"abort,omitempty"`
	PromoteFull    bool                  `json:"promoteFull,omitempty"`
	// Promoted: status.stableRS is the new ReplicaSet (New is also stable).
	Promoted bool   `json:"promoted,omitempty"`
	State    string `json:"state"`
	New      RS     `json:"new"`
	Stable   *RS    `json:"stable,omitempty"` // absent when Promoted
	Others   []RS   `json:"others,omitempty"` // older ReplicaSets, newest first

	// Upstream's answers.
	Surge       int32 `json:"surge"`       // MaxSurge
	Unavailable int32 `json:"unavailable"` // MaxUnavailable
	Weight      int32 `json:"weight"`      // GetCanaryReplicasOrWeight
	WantCanary  int32 `json:"wantCanary"`  // CalculateReplicaCountsForBasicCanary
	WantStable  int32 `json:"wantStable"`
	AtDesired   bool  `json:"atDesired"` // AtDesiredReplicaCountsForCanary
}

func main() {
	random := flag.Int("random", 0, "write this many random cases instead of the grid")
	seed := flag.Uint64("seed", 1, "seed of -random")
	flag.Parse()
	cases := grid()
	if *random > 0 {
		cases = randomCases(*random, *seed)
	}
	for i := range cases {
		answer(&cases[i])
	}
	cases = sortUnique(cases)
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(w, "[")
	for i, c := range cases {
		b, err := json.Marshal(c)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		sep := ","
		if i == len(cases)-1 {
			sep = ""
		}
		fmt.Fprintf(w, "%s%s\n", b, sep)
	}
	fmt.Fprintln(w, "]")
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// answer fills in upstream's answers for c.
func answer(c *Case) {
	ro, newRS, stableRS, others := objects(c)
	c.Surge, c.Unavailable = replicaset.MaxSurge(ro), replicaset.MaxUnavailable(ro)
	_, c.Weight = replicaset.GetCanaryReplicasOrWeight(ro, newRS, stableRS)
	c.WantCanary, c.WantStable = replicaset.CalculateReplicaCountsForBasicCanary(ro, newRS, stableRS, others)
	c.AtDesired = replicaset.AtDesiredReplicaCountsForCanary(ro, newRS, stableRS, others, nil)
}

// objects builds the Rollout and ReplicaSets upstream's functions take.
func objects(c *Case) (*v1alpha1.Rollout, *appsv1.ReplicaSet, *appsv1.ReplicaSet, []*appsv1.ReplicaSet) {
	ro := &v1alpha1.Rollout{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}
	ro.Spec.Replicas = &c.Replicas
	ro.Spec.Strategy.Canary = &v1alpha1.CanaryStrategy{MaxSurge: c.MaxSurge, MaxUnavailable: c.MaxUnavailable, Steps: c.Steps}
	idx := c.StepIndex
	ro.Status.CurrentStepIndex = &idx
	ro.Status.CurrentPodHash, ro.Status.StableRS = "canary", "stable"
	ro.Status.Abort, ro.Status.PromoteFull = c.Abort, c.PromoteFull
	newRS := replicaSet("canary", c.New)
	stableRS := newRS
	if c.Promoted {
		ro.Status.StableRS = "canary"
	} else {
		stableRS = replicaSet("stable", *c.Stable)
	}
	var others []*appsv1.ReplicaSet
	for i, o := range c.Others {
		others = append(others, replicaSet(fmt.Sprintf("older%d", i), o))
	}
	return ro, newRS, stableRS, others
}

func replicaSet(hash string, r RS) *appsv1.ReplicaSet {
	spec := r.Spec
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-" + hash, Namespace: "default",
			Labels: map[string]string{v1alpha1.DefaultRolloutUniqueLabelKey: hash}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &spec},
		Status: appsv1.ReplicaSetStatus{Replicas: r.Replicas, AvailableReplicas: r.Available},
	}
}

// sortUnique orders the cases by replicas and then their JSON, and drops
// repeated inputs (small replica counts make some states coincide).
func sortUnique(cases []Case) []Case {
	keys := make([]string, len(cases))
	for i, c := range cases {
		c.State = ""
		b, _ := json.Marshal(c)
		keys[i] = fmt.Sprintf("%04d %s", c.Replicas, b)
	}
	idx := make([]int, len(cases))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	var out []Case
	for i, j := range idx {
		if i > 0 && keys[j] == keys[idx[i-1]] {
			continue
		}
		out = append(out, cases[j])
	}
	return out
}

func randomCases(n int, seed uint64) []Case {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	budgets := budgetGrid()
	rsOf := func(max int32) RS {
		spec := r.Int32N(max + 1)
		avail := r.Int32N(max + 1)
		if r.IntN(3) > 0 {
			avail = min(avail, spec)
		}
		return RS{Spec: spec, Replicas: max32(spec, avail), Available: avail}
	}
	var out []Case
	for range n {
		reps := r.Int32N(15)
		if r.IntN(8) == 0 {
			reps = r.Int32N(400)
		}
		b := budgets[r.IntN(len(budgets))]
		if r.IntN(3) == 0 { // any int or percentage
			pick := func() *intstr.IntOrString {
				if r.IntN(2) == 0 {
					return num(r.Int32N(6))
				}
				return pct(fmt.Sprintf("%d%%", r.IntN(101)))
			}
			b = budget{pick(), pick()}
			if b.surge.String() == "0" && b.unav.String() == "0" {
				b.unav = num(1) // upstream's validation rejects 0 and 0
			}
		}
		sc := scenarios(r.Int32N(101))
		c := sc[r.IntN(len(sc))]
		c.Replicas, c.MaxSurge, c.MaxUnavailable, c.State = reps, b.surge, b.unav, "random"
		c.New = rsOf(reps + 3)
		if !c.Promoted {
			s := rsOf(reps + 3)
			c.Stable = &s
		}
		for range r.IntN(3) {
			c.Others = append(c.Others, rsOf(reps))
		}
		out = append(out, c)
	}
	return out
}

func max32(a, b int32) int32 {
	if a > b {
		return a
	}
	return b
}
