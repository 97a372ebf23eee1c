package outcome

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

func TestSooner(t *testing.T) {
	for _, tc := range []struct{ cur, d, want time.Duration }{
		{0, 5 * time.Second, 5 * time.Second},
		{3 * time.Second, 5 * time.Second, 3 * time.Second},
		{5 * time.Second, 3 * time.Second, 3 * time.Second},
		{0, 0, time.Millisecond},
		{5 * time.Second, -time.Second, time.Millisecond},
	} {
		if got := Sooner(tc.cur, tc.d); got != tc.want {
			t.Errorf("Sooner(%v, %v) = %v, want %v", tc.cur, tc.d, got, tc.want)
		}
	}
}

type recorder []string

func (r *recorder) Eventf(_, _ runtime.Object, eventtype, reason, action, note string, args ...any) {
	*r = append(*r, eventtype+" "+reason+" "+action+" "+fmt.Sprintf(note, args...))
}

func TestRecord(t *testing.T) {
	var rec recorder
	Record(&rec, nil, []Event{{Reason: "A", Message: "100%"}, {Warning: true, Reason: "B", Message: "b"}})
	if want := []string{"Normal A A 100%", "Warning B B b"}; !slices.Equal(rec, want) {
		t.Errorf("recorded %q, want %q", rec, want)
	}
}
