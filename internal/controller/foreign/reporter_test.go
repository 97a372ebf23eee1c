package foreign

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestSelector(t *testing.T) {
	for _, c := range []struct {
		mine   string
		labels map[string]string
		want   bool
	}{
		{"", map[string]string{rampv1.ControllerInstanceIDLabel: "argo"}, true},
		{"", nil, false},
		{"ramp", map[string]string{rampv1.ControllerInstanceIDLabel: "argo"}, true},
		{"ramp", map[string]string{rampv1.ControllerInstanceIDLabel: "ramp"}, false},
		{"ramp", nil, false}, // the unsharded controller's: not reported by every shard
	} {
		sel, err := Selector(c.mine)
		if err != nil {
			t.Fatal(err)
		}
		if got := sel.Matches(labels.Set(c.labels)); got != c.want {
			t.Errorf("instance %q, labels %v: foreign %v, want %v", c.mine, c.labels, got, c.want)
		}
	}
}

type recorded struct{ reasons []string }

func (r *recorded) Eventf(_ runtime.Object, _ runtime.Object, _, reason, _, _ string, _ ...any) {
	r.reasons = append(r.reasons, reason)
}

// TestSeenOnce: one Event per Rollout, however often it is seen, and again
// after it was deleted and created anew.
func TestSeenOnce(t *testing.T) {
	rec := &recorded{}
	var _ events.EventRecorder = rec
	r := &Reporter{Recorder: rec}
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app", UID: "u1",
		Labels: map[string]string{rampv1.ControllerInstanceIDLabel: "argo"}}}
	r.Seen(obj)
	r.Seen(obj)
	r.Seen(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b", UID: "u2"}})
	if len(rec.reasons) != 2 || rec.reasons[0] != Reason {
		t.Fatalf("events %v, want one per Rollout", rec.reasons)
	}
	r.Forget(cache.DeletedFinalStateUnknown{Obj: obj})
	r.Seen(obj)
	if len(rec.reasons) != 3 {
		t.Errorf("events %v after a delete and a new sighting, want 3", rec.reasons)
	}
	r.Seen("not metadata")
	if len(rec.reasons) != 3 {
		t.Errorf("a foreign type recorded an Event")
	}
}
