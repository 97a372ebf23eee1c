package action

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func canary(paused bool, step int32, conds int) *rampv1.Rollout {
	ro := &rampv1.Rollout{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-web"},
		Spec: rampv1.RolloutSpec{Paused: paused,
			Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{Steps: []rampv1.CanaryStep{{SetWeight: ptr.To[int32](20)}, {Pause: &rampv1.RolloutPause{}}, {SetWeight: ptr.To[int32](60)}}}},
			Template: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "init"}},
				Containers:     []corev1.Container{{Name: "app"}, {Name: "side"}}}}},
		Status: rampv1.RolloutStatus{CurrentStepIndex: ptr.To(step), StableRS: "aaa", CurrentPodHash: "bbb"},
	}
	for range conds {
		ro.Status.PauseConditions = append(ro.Status.PauseConditions, rampv1.PauseCondition{Reason: rampv1.PauseReasonCanaryPauseStep})
	}
	return ro
}

func bodies(ps []Patch) string {
	var out []string
	for _, p := range ps {
		out = append(out, string(p.Type)+" status="+map[bool]string{true: "y", false: "n"}[p.Status]+" "+p.Body)
	}
	return strings.Join(out, "\n")
}

// TestPromotePatches: each case sends the plugin's bodies, in order, to
// the right subresource.
func TestPromotePatches(t *testing.T) {
	const merge = "application/merge-patch+json"
	for _, tc := range []struct {
		name string
		ro   *rampv1.Rollout
		full bool
		want string
	}{
		{"pause condition", canary(false, 1, 1), false, merge + ` status=y {"status":{"pauseConditions":null}}`},
		{"spec paused too", canary(true, 1, 1), false, merge + ` status=n {"spec":{"paused":false}}` + "\n" + merge + ` status=y {"status":{"pauseConditions":null}}`},
		{"skip a step", canary(false, 0, 0), false, merge + ` status=y {"status":{"currentStepIndex":1,"pauseConditions":null}}`},
		{"only spec paused, steps done", canary(true, 3, 0), false, merge + ` status=n {"spec":{"paused":false}}`},
		{"full", canary(false, 1, 1), true, merge + ` status=y {"status":{"promoteFull":true}}`},
	} {
		got, err := Promote(tc.ro, tc.full)
		if err != nil || bodies(got) != tc.want {
			t.Errorf("%s: Promote = %q, %v; want %q", tc.name, bodies(got), err, tc.want)
		}
	}
	done := canary(false, 3, 0)
	if _, err := Promote(done, false); err == nil || !strings.Contains(err.Error(), `"shop/web" is not paused`) {
		t.Errorf("nothing to promote: err = %v", err)
	}
	done.Status.CurrentPodHash = "aaa"
	if _, err := Promote(done, true); err == nil || !strings.Contains(err.Error(), "not updating") {
		t.Errorf("nothing to promote fully: err = %v", err)
	}
}

// TestFixedPatches: the plugin's literal bodies.
func TestFixedPatches(t *testing.T) {
	for p, want := range map[Patch]string{
		Abort: `{"status":{"abort":true}}`, Retry: `{"status":{"abort":false}}`,
		Pause: `{"spec":{"paused":true}}`, Unpause: `{"spec":{"paused":false}}`,
		Restart(time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))): `{"spec":{"restartAt":"2026-01-02T02:04:05Z"}}`,
	} {
		if p.Body != want || p.Type != types.MergePatchType {
			t.Errorf("patch %q, want %q", p.Body, want)
		}
	}
	if !Abort.Status || !Retry.Status || Pause.Status || Unpause.Status {
		t.Error("abort and retry go to status, pause and resume to spec")
	}
}

// TestSetImage: named and * containers, init containers first; unknown
// containers and malformed specs are refused.
func TestSetImage(t *testing.T) {
	p, err := SetImage(canary(false, 0, 0), []string{"side=web:2"})
	if want := `[{"op":"replace","path":"/spec/template/spec/containers/1/image","value":"web:2"}]`; err != nil || p.Body != want || p.Type != types.JSONPatchType {
		t.Errorf("SetImage = %q, %v; want %q", p.Body, err, want)
	}
	p, _ = SetImage(canary(false, 0, 0), []string{"*=x"})
	if n := strings.Count(p.Body, `"op"`); n != 3 || !strings.HasPrefix(p.Body, `[{"op":"replace","path":"/spec/template/spec/initContainers/0/image"`) {
		t.Errorf("* = %s, want the init container then two containers", p.Body)
	}
	for _, bad := range []string{"nope=x", "app", "=x"} {
		if _, err := SetImage(canary(false, 0, 0), []string{bad}); err == nil {
			t.Errorf("SetImage(%q) accepted", bad)
		}
	}
}

func rs(owner types.UID, hash string, rev string) appsv1.ReplicaSet {
	return appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-" + hash, Labels: map[string]string{rampv1.DefaultRolloutUniqueLabelKey: hash},
			Annotations:     map[string]string{rampv1.RevisionAnnotation: rev},
			OwnerReferences: []metav1.OwnerReference{{Kind: "Rollout", UID: owner, Controller: ptr.To(true)}}},
		Spec: appsv1.ReplicaSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", rampv1.DefaultRolloutUniqueLabelKey: hash}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "web:" + rev}}}}},
	}
}

// TestUndo: the previous revision by default, a named one on request, the
// template without its hash label; other owners' ReplicaSets ignored.
func TestUndo(t *testing.T) {
	ro := canary(false, 0, 0)
	rss := []appsv1.ReplicaSet{rs("uid-web", "aaa", "1"), rs("uid-web", "ccc", "2"), rs("uid-web", "bbb", "3"), rs("other", "ddd", "2")}
	p, rev, err := Undo(ro, rss, 0)
	if err != nil || rev != 2 || !strings.Contains(p.Body, `"image":"web:2"`) || strings.Contains(p.Body, "pod-template-hash") ||
		!strings.HasPrefix(p.Body, `[{"op":"replace","path":"/spec/template","value":`) {
		t.Errorf("Undo = %s, %d, %v; want revision 2's template without the hash label", p.Body, rev, err)
	}
	if _, rev, err := Undo(ro, rss, 1); err != nil || rev != 1 {
		t.Errorf("Undo to 1 = %d, %v", rev, err)
	}
	if _, _, err := Undo(ro, rss, 7); err == nil || !strings.Contains(err.Error(), "no revision 7") {
		t.Errorf("Undo to 7: err = %v", err)
	}
}

// TestWithResourceVersion: the body keeps the original patch and adds the
// precondition; other patch types are refused.
func TestWithResourceVersion(t *testing.T) {
	p, err := WithResourceVersion(Abort, "42")
	if want := `{"metadata":{"resourceVersion":"42"},"status":{"abort":true}}`; err != nil || p.Body != want || !p.Status {
		t.Errorf("merge = %q, %v; want %q", p.Body, err, want)
	}
	img, _ := SetImage(canary(false, 0, 0), []string{"app=x"})
	p, err = WithResourceVersion(img, "42")
	if want := `[{"op":"replace","path":"/metadata/resourceVersion","value":"42"},` + img.Body[1:]; err != nil || p.Body != want {
		t.Errorf("json = %q, %v; want %q", p.Body, err, want)
	}
	if _, err := WithResourceVersion(Patch{Type: types.StrategicMergePatchType, Body: "{}"}, "1"); err == nil {
		t.Error("strategic merge patch accepted")
	}
	if _, err := WithResourceVersion(Abort, ""); err == nil {
		t.Error("empty resourceVersion accepted")
	}
}
