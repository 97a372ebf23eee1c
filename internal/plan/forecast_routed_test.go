package plan

import (
	"fmt"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestForecastCanaryHPA: seed 000 with an HPA takes the canary's pods from
// stable (1 stable pod kept at 100%); hpa-accounting: surge keeps stable full.
func TestForecastCanaryHPA(t *testing.T) {
	for _, tc := range []struct {
		hpa, surge bool
		want       string
	}{
		{hpa: true, want: `
0 setWeight: 25 w=25 1/3 peak=5 upstream=5
1 pause w=25 1/3 peak=0 upstream=5
2 setWeight: 100 w=100 4/1 peak=5 upstream=8
3 complete w=100 4/0 peak=5 upstream=4`},
		{hpa: true, surge: true, want: `
0 setWeight: 25 w=25 1/4 peak=5 upstream=5
1 pause w=25 1/4 peak=0 upstream=5
2 setWeight: 100 w=100 4/4 peak=8 upstream=8
3 complete w=100 4/0 peak=8 upstream=4`},
	} {
		s := newRoutedSimN(t, 4, false, weight(25), pauseForever(), weight(100))
		if tc.surge {
			s.ro.Annotations = map[string]string{rampv1.HPAAccountingAnnotation: rampv1.HPAAccountingSurge}
		}
		f, err := ForecastCanary(s.ro, 0, tc.hpa)
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, st := range f.Steps {
			fmt.Fprintf(&got, "%d %s w=%d %d/%d peak=%d upstream=%d\n", st.Index, st.Step, st.Weight, st.Canary, st.Stable, st.Peak, st.Upstream)
		}
		if strings.TrimSpace(got.String()) != strings.TrimSpace(tc.want) || f.FromStable == tc.surge || f.Steps[3].Delay != 30*time.Second {
			t.Errorf("surge %v: forecast (from stable %v, delay %v):\n%s\nwant:%s", tc.surge, f.FromStable, f.Steps[3].Delay, got.String(), tc.want)
		}
	}
}

// TestForecastRoutedMatchesPlanner: the forecast of a traffic-routed canary
// settles where the planner does at every pause, within the same peak, and
// stalls where the planner does.
func TestForecastRoutedMatchesPlanner(t *testing.T) {
	scale := rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{Weight: ptrTo(int32(60))}}
	match := rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{MatchTrafficWeight: true}}
	weights := []rampv1.CanaryStep{weight(10), pauseForever(), weight(50), pauseForever(), weight(30), pauseForever(),
		weight(100), pauseForever()}
	scaled := []rampv1.CanaryStep{weight(30), pauseForever(), scale, pauseForever(), match, weight(100), pauseForever()}
	half := []rampv1.CanaryStep{weight(50), pauseForever()} // promoting from 50
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
		for name, steps := range map[string][]rampv1.CanaryStep{"weights": weights, "setCanaryScale": scaled, "half": half} {
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
				s.run("v1", time.Minute)
				f, err := ForecastCanary(s.ro, 0, tc.hpa)
				if err != nil {
					t.Fatal(err)
				}
				var most int32
				s.each = func(Input, Output) { most = max(most, s.pods()) }
				for i, st := range f.Steps {
					if st.Step != "pause" && !st.Stalled {
						continue
					}
					s.run("v2", time.Minute)
					got, want := s.sizeString(), fmt.Sprintf("v1=%d v2=%d", st.Stable, st.Canary)
					if got != want || s.traffic.Route.Canary != st.Traffic || int(*s.ro.Status.CurrentStepIndex) != i {
						t.Fatalf("at step %d (stalled %v): planner %s weight %d at step %d, forecast %s weight %d",
							i, st.Stalled, got, s.traffic.Route.Canary, *s.ro.Status.CurrentStepIndex, want, st.Traffic)
					}
					if st.Stalled {
						return
					}
					if peak := f.Steps[i-1].Peak; most > max(peak, st.Canary+st.Stable) {
						t.Errorf("into step %d: planner reached %d pods, forecast peak %d", i, most, peak)
					}
					most = 0
					s.promote()
				}
				s.run("v2", 2*time.Minute)
				s.expectEnd("v2", tc.n, "v1", handoverRoute("v2"))
			})
		}
	}
}

// TestForecastRoutedStalls: a setCanaryScale of fewer pods than a later
// setWeight needs holds the weight at what those pods carry: the forecast
// ends at the step the planner never completes.
func TestForecastRoutedStalls(t *testing.T) {
	s := newRoutedSimN(t, 10, true, rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{Replicas: ptrTo(int32(3))}}, weight(50))
	s.run("v1", time.Minute)
	f, err := ForecastCanary(s.ro, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	s.run("v2", time.Minute)
	last := f.Steps[len(f.Steps)-1]
	if len(f.Steps) != 2 || !last.Stalled || last.Traffic != 30 || *s.ro.Status.CurrentStepIndex != 1 ||
		s.sizeString() != fmt.Sprintf("v1=%d v2=%d", last.Stable, last.Canary) {
		t.Errorf("forecast %+v; planner at step %d with %s", f.Steps, *s.ro.Status.CurrentStepIndex, s.sizeString())
	}
}
