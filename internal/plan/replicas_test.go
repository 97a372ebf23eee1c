package plan

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestBudget(t *testing.T) {
	i, s := intstr.FromInt32, intstr.FromString
	ptr := func(v intstr.IntOrString) *intstr.IntOrString { return &v }
	for _, tc := range []struct {
		n                   int32
		maxSurge, maxUnav   *intstr.IntOrString
		wantSurge, wantUnav int32
		wantErr             bool
	}{
		{n: 10, wantSurge: 3, wantUnav: 2}, // defaults 25%: ceil 2.5, floor 2.5
		{n: 4, wantSurge: 1, wantUnav: 1},
		{n: 1, wantSurge: 1, wantUnav: 0},
		{n: 0, wantSurge: 0, wantUnav: 0}, // at most n
		{n: 3, maxSurge: ptr(i(0)), maxUnav: ptr(i(10)), wantSurge: 0, wantUnav: 3},
		{n: 5, maxSurge: ptr(s("50%")), maxUnav: ptr(s("50%")), wantSurge: 3, wantUnav: 2},
		{n: 10, maxSurge: ptr(i(1)), maxUnav: ptr(i(0)), wantSurge: 1, wantUnav: 0},
		{n: 10, maxSurge: ptr(i(0)), maxUnav: ptr(i(0)), wantSurge: 0, wantUnav: 1},
		{n: 3, maxSurge: ptr(s("0%")), maxUnav: ptr(s("10%")), wantSurge: 0, wantUnav: 1},
		{n: 10, maxSurge: ptr(s("100%")), maxUnav: ptr(i(0)), wantSurge: 10, wantUnav: 0},
		{n: 10, maxSurge: ptr(s("abc")), wantErr: true},
		{n: 10, maxUnav: ptr(s("5")), wantErr: true}, // a string must end in %
		{n: 10, maxSurge: ptr(i(-1)), wantErr: true},
	} {
		surge, unav, err := Budget(tc.n, tc.maxSurge, tc.maxUnav)
		if tc.wantErr != (err != nil) || surge != tc.wantSurge || unav != tc.wantUnav {
			t.Errorf("Budget(%d, %v, %v) = %d, %d, %v; want %d, %d, error %t",
				tc.n, tc.maxSurge, tc.maxUnav, surge, unav, err, tc.wantSurge, tc.wantUnav, tc.wantErr)
		}
	}
}

func TestCanaryReplicas(t *testing.T) {
	for _, tc := range []struct{ n, weight, want int32 }{
		{5, 20, 1}, {5, 30, 2}, {5, 100, 5}, {10, 0, 0}, {10, 1, 1}, {10, 99, 10},
		{3, 50, 2}, {0, 50, 0}, {1, 1, 1}, {10, 150, 10}, {10, -5, 0},
	} {
		if got := CanaryReplicas(tc.n, tc.weight); got != tc.want {
			t.Errorf("CanaryReplicas(%d, %d) = %d, want %d", tc.n, tc.weight, got, tc.want)
		}
	}
}
