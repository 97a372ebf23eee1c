package rollout_test

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// rolloutSeeds are the fuzz corpus's seeds: a spec and a status (JSON), the
// status's currentStepIndex and the knobs that derive the rest.
var rolloutSeeds = []struct {
	spec, status string
	step         int32
	knobs        uint64
}{
	{`{"replicas":3,"strategy":{"canary":{"steps":[{"setWeight":20},{"pause":{}}]}}}`, `{}`, 0, 0},
	{`{"replicas":5,"strategy":{"canary":{"canaryService":"c","stableService":"s","steps":[{"setWeight":50},{"pause":{"duration":"10s"}}]}}}`,
		`{"stableRS":"old","currentPodHash":"old","currentStepIndex":1}`, 1, 1<<11 | 3<<8},
	{`{"replicas":4,"strategy":{"canary":{"canaryService":"c","stableService":"s","trafficRouting":{"nginx":{"stableIngress":"web"}},"steps":[{"setWeight":30}]}}}`,
		`{"stableRS":"nope","currentPodHash":"gone"}`, -1, 1<<11 | 1<<4 | 1<<5},
	{`{"replicas":2,"strategy":{"blueGreen":{"activeService":"c","previewService":"s","autoPromotionEnabled":false}}}`,
		`{"blueGreen":{"activeSelector":"old"},"stableRS":"old","pauseConditions":[{"reason":"BlueGreenPause","startTime":"2020-01-01T00:00:00Z"}]}`, math.MaxInt32, 1<<11 | 2<<8 | 1<<3},
	{`{"replicas":3,"strategy":{"canary":{"analysis":{"templates":[{"templateName":"t"}]},"steps":[{"analysis":{"templates":[{"templateName":"t"}]}},{"experiment":{"templates":[{"name":"x","specRef":"canary"}]}}]}}}`,
		`{"currentStepIndex":7,"abort":true}`, 7, 1<<7 | 1<<12},
	{`{"replicas":0,"selector":null,"template":null,"strategy":{}}`, `{"controllerPause":true}`, math.MinInt32, 1 | 1<<2 | 1<<6},
	{`{"replicas":3,"workloadRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web","scaleDown":"progressively"},"template":null}`, `{}`, 0, 1<<2 | 1<<13},
	{`{"replicas":-3,"revisionHistoryLimit":-1,"restartAt":"2020-01-01T00:00:00Z","strategy":{"canary":{"maxSurge":"300%","maxUnavailable":-2}}}`, `{"restartedAt":"2030-01-01T00:00:00Z"}`, 3, 5<<8 | 1<<1},
	// out-of-range status on the current revision (bit 14): a negative or
	// huge step index, a stale pause condition, an unknown stableRS
	{`{"replicas":5,"strategy":{"canary":{"steps":[{"setWeight":20},{"pause":{}},{"setWeight":60},{"pause":{"duration":60}}]}}}`,
		`{"stableRS":"old","pauseConditions":[{"reason":"CanaryPauseStep","startTime":"2020-01-01T00:00:00Z"}],"controllerPause":true}`, -1, 1<<14 | 2<<8 | 5<<16 | 1<<20},
	{`{"replicas":5,"strategy":{"canary":{"steps":[{"setWeight":20},{"pause":{}}]}}}`, `{"stableRS":"old"}`, math.MinInt32, 1<<14 | 2<<8 | 5<<16 | 1<<20},
	{`{"replicas":5,"strategy":{"canary":{"steps":[{"setWeight":20},{"pause":{"duration":"2562047h47m16.854775807s"}}]}}}`, `{"stableRS":"old"}`, 1, 1<<14 | 1<<3 | 2<<8 | 5<<16 | 1<<20},
	{`{"replicas":5,"strategy":{"canary":{"steps":[{"setWeight":20},{"pause":{}}]}}}`, `{}`, math.MaxInt32, 1<<14 | 1<<4 | 1<<3 | 1<<8 | 3<<16},
}

// FuzzRolloutReconcile: whatever the spec and status, Reconcile never
// panics, and a pass either writes the status, returns an error, or finds
// the status already as planned (a further pass writes nothing). The seeds
// run as a unit test; `go test -fuzz FuzzRolloutReconcile` explores.
func FuzzRolloutReconcile(f *testing.F) {
	for _, s := range rolloutSeeds {
		f.Add([]byte(s.spec), []byte(s.status), s.step, s.knobs)
	}
	f.Fuzz(func(t *testing.T, spec, status []byte, step int32, knobs uint64) {
		ro := fuzzRollout(t, spec, status, step, knobs)
		env, r := newEnv(t, append(fuzzObjects(ro, knobs), ro)...)
		checkPasses(t, env, func() error { _, err := pass(r, "web"); return err }, "patch status")
	})
}

// checkPasses runs up to three passes (a routed Rollout's first adds its
// finalizer) and fails unless one wrote the status (verb) or returned an
// error, or the last wrote nothing.
func checkPasses(t *testing.T, env *controllertest.Env, pass func() error, verb string) {
	t.Helper()
	var last []controllertest.Write
	for range 3 {
		mark := len(env.Log())
		err := pass()
		last = env.Since(mark)
		if err != nil {
			return
		}
		for _, w := range last {
			if w.Verb == verb {
				return
			}
		}
	}
	if len(last) > 0 {
		t.Errorf("three passes without an error or a status write; the last wrote %v", last)
	}
}

// fuzzRollout is ns/web from the fuzz input: the JSON decoded over a
// default Rollout (bytes that are not JSON leave it), then knobs' bits: nil
// selector, empty template, no template, a stale pause condition, unknown
// stableRS and currentPodHash, controllerPause, abort, and (bit 14)
// currentPodHash set to the template's hash, so that the status is that of
// the revision in progress and its step index is read as it stands.
func fuzzRollout(t *testing.T, spec, status []byte, step int32, knobs uint64) *rampv1.Rollout {
	ro := webRollout(t, "")
	_ = json.Unmarshal(spec, &ro.Spec)     // random bytes: whatever decodes is used
	_ = json.Unmarshal(status, &ro.Status) // likewise
	ro.Status.CurrentStepIndex = &step
	bit := func(i uint) bool { return knobs&(1<<i) != 0 }
	if bit(0) {
		ro.Spec.Selector = nil
	}
	if bit(1) {
		ro.Spec.Template = &corev1.PodTemplateSpec{}
	}
	if bit(2) {
		ro.Spec.Template = nil
	}
	if bit(3) {
		ro.Status.PauseConditions = append(ro.Status.PauseConditions, rampv1.PauseCondition{Reason: rampv1.PauseReasonCanaryPauseStep,
			StartTime: metav1.NewTime(controllertest.Start.Add(-240 * time.Hour))})
	}
	if bit(4) {
		ro.Status.StableRS = "nope"
	}
	if bit(5) {
		ro.Status.CurrentPodHash = "gone"
	}
	ro.Status.ControllerPause = ro.Status.ControllerPause || bit(6)
	ro.Status.Abort = ro.Status.Abort || bit(7)
	if bit(14) && ro.Spec.Template != nil {
		ro.Status.CurrentPodHash = plan.TemplateHash(ro.Spec.Template, ro.Status.CollisionCount)
		ro.Status.CurrentStepHash = plan.StepsHash(canarySteps(ro))
	}
	return ro
}

// fuzzObjects are the objects around ro: knobs bits 8-10 count its
// ReplicaSets (hashes: stableRS, currentPodHash, others; sizes from the
// knobs), bit 11 creates its Services, bit 12 an AnalysisTemplate "t", bit
// 13 the Deployment "web".
func fuzzObjects(ro *rampv1.Rollout, knobs uint64) []client.Object {
	var objs []client.Object
	hashes := []string{ro.Status.StableRS, ro.Status.CurrentPodHash, "aaa", "bbb", "ccc", "ddd", "eee"}
	for i := range int(knobs >> 8 & 7) {
		n := int32(knobs >> (16 + 4*uint(i)) & 15)
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("web-%d-%s", i, hashes[i]),
			UID:             types.UID(fmt.Sprintf("rs-%d", i)),
			Labels:          map[string]string{rampv1.DefaultRolloutUniqueLabelKey: hashes[i], "app": "web"},
			Annotations:     map[string]string{rampv1.RevisionAnnotation: fmt.Sprint(i + 1)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ro, rampv1.GroupVersion.WithKind("Rollout"))}},
			Spec: appsv1.ReplicaSetSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{rampv1.DefaultRolloutUniqueLabelKey: hashes[i]}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{rampv1.DefaultRolloutUniqueLabelKey: hashes[i], "app": "web"}}}},
			Status: appsv1.ReplicaSetStatus{Replicas: n, ReadyReplicas: n / 2, AvailableReplicas: n / 3}}
		objs = append(objs, rs)
	}
	if knobs&(1<<11) != 0 {
		objs = append(objs, service("c"), service("s"))
	}
	if knobs&(1<<12) != 0 {
		objs = append(objs, &rampv1.AnalysisTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "t"},
			Spec: rampv1.AnalysisTemplateSpec{Metrics: []rampv1.Metric{{Name: "m", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}}})
	}
	if knobs&(1<<13) != 0 {
		objs = append(objs, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", Generation: 2},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}}})
	}
	return objs
}

// canarySteps are ro's canary steps (none for blue-green).
func canarySteps(ro *rampv1.Rollout) []rampv1.CanaryStep {
	if c := ro.Spec.Strategy.Canary; c != nil {
		return c.Steps
	}
	return nil
}
