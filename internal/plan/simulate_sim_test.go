package plan

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// withTemplate gives a test Rollout the pod template its selector selects,
// as a Rollout needs to pass ValidateRollout.
func withTemplate(ro *rampv1.Rollout) *rampv1.Rollout {
	ro = ro.DeepCopy()
	ro.Spec.Template = &corev1.PodTemplateSpec{}
	ro.Spec.Template.Labels = map[string]string{"app": "web"}
	ro.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "web:1"}}
	return ro
}

// points renders a trajectory as "kind index step w=weight new/old
// traffic hpa peak [stalled]", one point a line.
func points(tr Trajectory) string {
	var b strings.Builder
	for _, p := range tr.Points {
		fmt.Fprintf(&b, "%s %d %s w=%d %d/%d t=%d hpa=%d peak=%d", p.Kind, p.Index, p.Step, p.Weight, p.New.Spec, p.Old.Spec, p.Traffic, p.HPAPods, p.Peak)
		if p.Delay > 0 {
			fmt.Fprintf(&b, " delay=%s", p.Delay)
		}
		if p.Stalled {
			b.WriteString(" stalled")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func simulate(t *testing.T, ro *rampv1.Rollout, opts SimOptions) Trajectory {
	t.Helper()
	tr, err := Simulate(withTemplate(ro), opts)
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	return tr
}

func expectPoints(t *testing.T, tr Trajectory, want string) {
	t.Helper()
	if got := points(tr); strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("points:\n%s\nwant:\n%s", got, strings.TrimSpace(want))
	}
}

// TestSimulateCanary: the points of updates without trafficRouting, as the
// planner sizes them (seed 001: 10% of 5 is one pod beside 5 stable).
func TestSimulateCanary(t *testing.T) {
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	budget := newSim(t, 2, weight(50)).ro
	budget.Spec.Strategy.Canary.MaxSurge, budget.Spec.Strategy.Canary.MaxUnavailable = &one, &zero
	for _, tc := range []struct {
		name string
		ro   *rampv1.Rollout
		opts SimOptions
		want string
	}{
		{"seed 001", newSim(t, 5, weight(10), pauseForever()).ro, SimOptions{}, `
step 0 setWeight: 10 w=10 1/5 t=0 hpa=6 peak=6
step 1 pause w=10 1/5 t=0 hpa=6 peak=0
complete 2 complete w=100 5/0 t=0 hpa=5 peak=7`},
		{"seed 000 shape, timed pause", newSim(t, 4, weight(25), pauseFor("30s"), weight(50), weight(100)).ro, SimOptions{}, `
step 0 setWeight: 25 w=25 1/3 t=0 hpa=4 peak=5
step 1 pause: 30s w=25 1/3 t=0 hpa=4 peak=0
step 2 setWeight: 50 w=50 2/2 t=0 hpa=4 peak=5
step 3 setWeight: 100 w=100 4/0 t=0 hpa=4 peak=5
complete 4 complete w=100 4/0 t=0 hpa=4 peak=0`},
		{"--replicas, surge 1 unavailable 0", budget, SimOptions{Replicas: 10}, `
step 0 setWeight: 50 w=50 5/5 t=0 hpa=10 peak=11
complete 1 complete w=100 10/0 t=0 hpa=10 peak=11`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := simulate(t, tc.ro, tc.opts)
			expectPoints(t, tr, tc.want)
			if tr.Initial.New.Spec != tr.Replicas || tr.Stalled {
				t.Errorf("initial %+v, stalled %v", tr.Initial, tr.Stalled)
			}
		})
	}
}

// TestSimulateNoSpuriousStall: upstream's e2e manifest
// istio-subset-split-in-stable-downscale-after-canary-abort (4 replicas,
// dynamicStableScale, Istio subsets without Services, maxSurge 25%,
// maxUnavailable 20%) runs to the end: setWeight 30 is no stall.
func TestSimulateNoSpuriousStall(t *testing.T) {
	s := newSim(t, 4, weight(10), pauseForever(), weight(20), pauseForever(), weight(30), pauseForever(), weight(50), pauseForever())
	c := s.ro.Spec.Strategy.Canary
	surge, unavailable := intstr.FromString("25%"), intstr.FromString("20%")
	c.DynamicStableScale, c.MaxSurge, c.MaxUnavailable = true, &surge, &unavailable
	c.TrafficRouting = &rampv1.RolloutTrafficRouting{Istio: &rampv1.IstioTrafficRouting{
		VirtualService:  &rampv1.IstioVirtualService{Name: "vs"},
		DestinationRule: &rampv1.IstioDestinationRule{Name: "dr", CanarySubsetName: "canary", StableSubsetName: "stable"}}}
	expectPoints(t, simulate(t, s.ro, SimOptions{}), `
step 0 setWeight: 10 w=10 1/4 t=10 hpa=5 peak=5
step 1 pause w=10 1/4 t=10 hpa=5 peak=0
step 2 setWeight: 20 w=20 1/4 t=20 hpa=5 peak=0
step 3 pause w=20 1/4 t=20 hpa=5 peak=0
step 4 setWeight: 30 w=30 2/3 t=30 hpa=5 peak=5
step 5 pause w=30 2/3 t=30 hpa=5 peak=0
step 6 setWeight: 50 w=50 2/2 t=50 hpa=4 peak=5
step 7 pause w=50 2/2 t=50 hpa=4 peak=0
complete 8 complete w=100 4/0 t=0 hpa=4 peak=5`)
}

// TestSimulateStalls: a setCanaryScale of fewer pods than a later
// setWeight needs holds the weight at what those pods carry; the walk ends
// at that step, where the planner, driven by the routed test sim, stays too.
func TestSimulateStalls(t *testing.T) {
	s := newRoutedSimN(t, 10, true, rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{Replicas: ptrTo(int32(3))}}, weight(50))
	tr := simulate(t, s.ro, SimOptions{})
	expectPoints(t, tr, `
step 0 setCanaryScale: replicas 3 w=0 3/10 t=0 hpa=13 peak=13
step 1 setWeight: 50 w=50 3/7 t=30 hpa=10 peak=13 stalled`)
	s.run("v1", time.Minute)
	s.run("v2", time.Hour)
	last := tr.Points[len(tr.Points)-1]
	if !tr.Stalled || *s.ro.Status.CurrentStepIndex != 1 || s.sizeString() != fmt.Sprintf("v1=%d v2=%d", last.Old.Spec, last.New.Spec) ||
		s.traffic.Route.Canary != last.Traffic {
		t.Errorf("planner at step %d with %s weight %d; simulation %+v", *s.ro.Status.CurrentStepIndex, s.sizeString(), s.traffic.Route.Canary, last)
	}
}

// TestSimulateMatchesRoutedSim: at every pause of a traffic-routed canary
// (HPA, dynamicStableScale, minPodsPerReplicaSet, the surge annotation),
// the simulation's point is where the routed test sim (its own model of
// the world, promoted by hand) settles the planner too.
func TestSimulateMatchesRoutedSim(t *testing.T) {
	scale := rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{Weight: ptrTo(int32(60))}}
	match := rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{MatchTrafficWeight: true}}
	stepSets := map[string][]rampv1.CanaryStep{
		"weights":        {weight(10), pauseForever(), weight(50), pauseForever(), weight(30), pauseForever(), weight(100), pauseForever()},
		"setCanaryScale": {weight(30), pauseForever(), scale, pauseForever(), match, weight(100), pauseForever()},
		"half":           {weight(50), pauseForever()},
	}
	type config struct {
		n                   int32
		dynamic, hpa, surge bool
		minPods             int32
	}
	for _, tc := range []config{
		{n: 4}, {n: 5, dynamic: true}, {n: 7, dynamic: true}, {n: 4, hpa: true}, {n: 10, hpa: true}, {n: 6, hpa: true},
		{n: 5, hpa: true, surge: true}, {n: 7, hpa: true, minPods: 2}, {n: 10, hpa: true, minPods: 2},
		{n: 5, dynamic: true, hpa: true, surge: true},
	} {
		for name, steps := range stepSets {
			t.Run(fmt.Sprintf("%s %+v", name, tc), func(t *testing.T) {
				s := newRoutedSimN(t, tc.n, tc.dynamic, steps...)
				if tc.hpa {
					s.hpas = []string{"web"}
				}
				if tc.surge {
					s.ro.Annotations = map[string]string{rampv1.HPAAccountingAnnotation: rampv1.HPAAccountingSurge}
				}
				if tc.minPods > 0 {
					s.ro.Spec.Strategy.Canary.MinPodsPerReplicaSet = &tc.minPods
				}
				tr := simulate(t, s.ro, SimOptions{HPA: tc.hpa})
				s.run("v1", time.Minute)
				for _, p := range tr.Points {
					if p.Kind != PointStep || (!p.Gate.Pause && !p.Stalled) {
						continue
					}
					s.run("v2", time.Minute)
					got, want := s.sizeString(), fmt.Sprintf("v1=%d v2=%d", p.Old.Spec, p.New.Spec)
					if got != want || s.traffic.Route.Canary != p.Traffic || int(*s.ro.Status.CurrentStepIndex) != p.Index {
						t.Fatalf("at step %d: planner %s weight %d at step %d; simulation %s weight %d",
							p.Index, got, s.traffic.Route.Canary, *s.ro.Status.CurrentStepIndex, want, p.Traffic)
					}
					if p.Stalled {
						return
					}
					s.promote()
				}
				s.run("v2", 2*time.Minute)
				s.expectEnd("v2", tc.n, "v1", handoverRoute("v2"))
			})
		}
	}
}

// TestSimulateBlueGreen: preview at previewReplicaCount, the manual
// promotion, the scale-up, the switch, the post-promotion analysis, the
// completion and the scale-down after scaleDownDelaySeconds.
func TestSimulateBlueGreen(t *testing.T) {
	s := newSim(t, 5)
	s.ro.Spec.Strategy = rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{ActiveService: "a", PreviewService: "p",
		PreviewReplicaCount: ptrTo(int32(2)), AutoPromotionEnabled: ptrTo(false),
		PostPromotionAnalysis: &rampv1.RolloutAnalysis{Templates: []rampv1.AnalysisTemplateRef{{TemplateName: "ok"}}}}}
	tr := simulate(t, s.ro, SimOptions{})
	var got []string
	for _, p := range tr.Points {
		got = append(got, fmt.Sprintf("%s old=%d new=%d active=%s hpa=%d pause=%v %v %s", p.Kind, p.Old.Spec, p.New.Spec, p.Active, p.HPAPods,
			p.Gate.Pause, p.Gate.Analysis, p.Delay))
	}
	want := []string{
		"preview old=5 new=2 active=old hpa=5 pause=false [] 0s",
		"promotion old=5 new=2 active=old hpa=5 pause=true [] 0s",
		"scaleUp old=5 new=5 active=old hpa=5 pause=false [] 0s",
		"switch old=5 new=5 active=new hpa=5 pause=false [] 0s",
		"postPromotion old=5 new=5 active=new hpa=5 pause=false [ok] 0s",
		"complete old=5 new=5 active=new hpa=5 pause=false [] 30s",
		"scaleDown old=0 new=5 active=new hpa=5 pause=false [] 0s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || tr.Preview != 2 {
		t.Errorf("points (preview %d):\n%s\nwant:\n%s", tr.Preview, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSimulateSpecErrors: what the controller would not run is an error
// with its InvalidSpec messages, never corrected.
func TestSimulateSpecErrors(t *testing.T) {
	zero := intstr.FromInt32(0)
	bad := newSim(t, 4, weight(50)).ro
	bad.Spec.Strategy.Canary.MaxSurge, bad.Spec.Strategy.Canary.MaxUnavailable = &zero, &zero
	router := newRoutedSimN(t, 4, false, weight(50)).ro
	router.Spec.Strategy.Canary.TrafficRouting = &rampv1.RolloutTrafficRouting{Ambassador: &rampv1.AmbassadorTrafficRouting{Mappings: []string{"m"}}}
	for _, tc := range []struct {
		ro          *rampv1.Rollout
		want        string
		unsupported bool
	}{
		{bad, "spec.strategy.canary: maxSurge and maxUnavailable cannot both be 0", false},
		{router, "spec.strategy.canary.trafficRouting.ambassador: this traffic router is not supported by this version of Ramp", true},
	} {
		_, err := Simulate(withTemplate(tc.ro), SimOptions{})
		var se *SpecError
		if !errors.As(err, &se) || len(se.Messages) != 1 || !strings.HasPrefix(se.Messages[0], tc.want) || Unsupported(se.Messages[0]) != tc.unsupported {
			t.Errorf("Simulate: %v; want a SpecError %q (unsupported %v)", err, tc.want, tc.unsupported)
		}
	}
}

// TestSimulateRandom: random canaries (budgets, weights, pauses, scales,
// routing, HPA) all end, complete or stalled, without an error, with their
// step points in order and never more pods than the planner's bound.
func TestSimulateRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for i := range 400 {
		var steps []rampv1.CanaryStep
		for range r.IntN(6) {
			switch r.IntN(5) {
			case 0, 1:
				steps = append(steps, weight(r.Int32N(101)))
			case 2:
				steps = append(steps, pauseForever())
			case 3:
				steps = append(steps, pauseFor(fmt.Sprint(r.IntN(60))))
			default:
				steps = append(steps, rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{Weight: ptrTo(r.Int32N(101))}})
			}
		}
		n := r.Int32N(12)
		s := newRoutedSimN(t, n, r.IntN(2) == 0, steps...)
		if r.IntN(2) == 0 {
			s.ro.Spec.Strategy.Canary.TrafficRouting, s.ro.Spec.Strategy.Canary.DynamicStableScale = nil, false
		}
		surge, unavailable := intstr.FromInt32(r.Int32N(3)), intstr.FromInt32(r.Int32N(3)+1)
		s.ro.Spec.Strategy.Canary.MaxSurge, s.ro.Spec.Strategy.Canary.MaxUnavailable = &surge, &unavailable
		tr, err := Simulate(withTemplate(s.ro), SimOptions{HPA: r.IntN(2) == 0})
		if err != nil {
			t.Fatalf("case %d (%d replicas, steps %v): %v", i, n, describeSteps(steps), err)
		}
		last := -1
		for _, p := range tr.Points {
			if p.Index < last || (p.Kind == PointStep && p.Index > len(steps)) {
				t.Fatalf("case %d: points out of order:\n%s", i, points(tr))
			}
			last = p.Index
		}
		if len(tr.Points) == 0 || (!tr.Stalled && tr.Points[len(tr.Points)-1].New.Spec != n) {
			t.Fatalf("case %d (%d replicas, steps %v): ends\n%s", i, n, describeSteps(steps), points(tr))
		}
	}
}

func describeSteps(steps []rampv1.CanaryStep) []string {
	var out []string
	for _, s := range steps {
		out = append(out, stepText(s))
	}
	return out
}
