package plan

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestRunReuse: a run is taken up only when the owner controls it, its
// annotation records the wanted spec hash and its stored spec hashes to it;
// every other case names why.
func TestRunReuse(t *testing.T) {
	spec := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{{Name: "m", SuccessCondition: "result > 0"}}}
	always := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{{Name: "m", SuccessCondition: "true"}}}
	want := RunSpecHash(spec)
	owner := &rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Name: "ro", UID: "ro-uid"}}
	other := &rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Name: "ro", UID: "other-uid"}}
	run := func(ctl *rampv1.Rollout, annotation string, s rampv1.AnalysisRunSpec) *rampv1.AnalysisRun {
		ar := &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Name: "run", Annotations: map[string]string{}}, Spec: s}
		if ctl != nil {
			ar.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(ctl, rampv1.GroupVersion.WithKind("Rollout"))}
		}
		if annotation != "" {
			ar.Annotations[rampv1.RunSpecHashAnnotation] = annotation
		}
		return ar
	}
	nonController := run(nil, want, spec)
	nonController.OwnerReferences = []metav1.OwnerReference{{Kind: "Rollout", Name: "ro", UID: "ro-uid"}}
	terminated := run(owner, want, spec)
	terminated.Spec.Terminate = true
	for _, tc := range []struct {
		name string
		run  *rampv1.AnalysisRun
		want string // a part of the reason; "" to be taken up
	}{
		{"ours", run(owner, want, spec), ""},
		{"ours, terminate set since", terminated, ""},
		{"no controller", nonController, "no controller"},
		{"another controller", run(other, want, spec), "other-uid"},
		{"no annotation", run(owner, "", spec), "no rollout.ramp.dev/spec-hash annotation"},
		{"annotation for another spec", run(owner, RunSpecHash(always), always), "another spec"},
		{"annotation copied onto another spec", run(owner, want, always), "changed after creation"},
	} {
		got := RunReuse(tc.run, "ro-uid", want)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if RunReuse(run(owner, want, spec), "ro-uid", "") == "" {
		t.Error("an empty wanted hash let a run be taken up")
	}
	if RunSpecHash(spec) == RunSpecHash(always) || len(want) != 64 {
		t.Errorf("hashes %s, %s: want distinct SHA-256 hex", want, RunSpecHash(always))
	}
}
