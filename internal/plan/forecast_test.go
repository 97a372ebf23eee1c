package plan

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func canaryRollout(replicas int32, steps ...rampv1.CanaryStep) *rampv1.Rollout {
	ro := &rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	ro.Spec.Replicas = &replicas
	ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{Steps: steps}
	return ro
}

// rows renders a forecast as "index step weight canary/stable peak".
func rows(f CanaryForecast) string {
	var b strings.Builder
	for _, s := range f.Steps {
		fmt.Fprintf(&b, "%d %s w=%d %d/%d peak=%d\n", s.Index, s.Step, s.Weight, s.Canary, s.Stable, s.Peak)
	}
	return b.String()
}

func TestForecastCanary(t *testing.T) {
	one := intstr.FromInt32(1)
	zero := intstr.FromInt32(0)
	for _, tc := range []struct {
		name string
		ro   *rampv1.Rollout
		n    int32
		want string
	}{
		{"seed 001: 10% of 5 is one pod beside 5 stable (1 of 6)", canaryRollout(5, weight(10), pauseForever()), 0, `
0 setWeight: 10 w=10 1/5 peak=6
1 pause w=10 1/5 peak=0
2 complete w=100 5/0 peak=7
`},
		{"seed 000 shape", canaryRollout(4, weight(25), pauseFor("30s"), weight(50), weight(75), weight(100)), 0, `
0 setWeight: 25 w=25 1/3 peak=5
1 pause: 30s w=25 1/3 peak=0
2 setWeight: 50 w=50 2/2 peak=5
3 setWeight: 75 w=75 3/1 peak=5
4 setWeight: 100 w=100 4/0 peak=5
5 complete w=100 4/0 peak=0
`},
		{"--replicas overrides, surge 1 unavailable 0", func() *rampv1.Rollout {
			ro := canaryRollout(2, weight(50))
			ro.Spec.Strategy.Canary.MaxSurge, ro.Spec.Strategy.Canary.MaxUnavailable = &one, &zero
			return ro
		}(), 10, `
0 setWeight: 50 w=50 5/5 peak=11
1 complete w=100 10/0 peak=11
`},
		{"setCanaryScale sizes nothing without trafficRouting", canaryRollout(10, rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{Replicas: ptrTo(int32(3))}}, weight(20),
			rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{MatchTrafficWeight: true}}), 0, `
0 setCanaryScale: replicas 3 w=0 0/10 peak=0
1 setWeight: 20 w=20 2/8 peak=12
2 setCanaryScale: matchTrafficWeight w=20 2/8 peak=0
3 complete w=100 10/0 peak=13
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ForecastCanary(tc.ro, tc.n, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := rows(f); strings.TrimSpace(got) != strings.TrimSpace(tc.want) {
				t.Errorf("forecast:\n%s\nwant:\n%s", got, tc.want)
			}
			for _, s := range f.Steps {
				if total := s.Canary + s.Stable; s.Peak > f.Replicas+f.Surge || total < f.Replicas || total > f.Replicas+min(f.Surge, 1) {
					t.Errorf("step %d: peak %d over %d+%d, or %d+%d not %d (+1 with surge)", s.Index, s.Peak, f.Replicas, f.Surge, s.Canary, s.Stable, f.Replicas)
				}
			}
		})
	}
}

func TestForecastCanaryBadBudget(t *testing.T) {
	ro := canaryRollout(4, weight(50))
	bad := intstr.FromString("x%")
	ro.Spec.Strategy.Canary.MaxSurge = &bad
	if _, err := ForecastCanary(ro, 0, false); err == nil {
		t.Fatal("want an error for maxSurge x%")
	}
}

func TestForecastBlueGreen(t *testing.T) {
	ro := &rampv1.Rollout{}
	ro.Spec.Replicas = ptrTo(int32(5))
	ro.Spec.Strategy.BlueGreen = &rampv1.BlueGreenStrategy{ActiveService: "a", PreviewService: "p",
		PreviewReplicaCount: ptrTo(int32(2)), AutoPromotionEnabled: ptrTo(false),
		PostPromotionAnalysis: &rampv1.RolloutAnalysis{Templates: []rampv1.AnalysisTemplateRef{{TemplateName: "ok"}}}}
	f, err := ForecastBlueGreen(ro, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range f.Phases {
		got = append(got, fmt.Sprintf("%s %d/%d %s pause=%v %v %s", p.Phase, p.Old, p.New, p.Active, p.Gate.Pause, p.Gate.Analysis, p.Delay))
	}
	want := []string{
		"preview 5/2 old pause=false [] 0s",
		"promotion 5/2 old pause=true [] 0s",
		"scaleUp 5/5 old pause=false [] 0s",
		"switch 5/5 new pause=false [] 0s",
		"postPromotion 5/5 new pause=false [ok] 0s",
		"scaleDown 0/5 new pause=false [] 30s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("phases:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
