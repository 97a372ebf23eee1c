package v1alpha1

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func rolloutPtr[T any](v T) *T { return &v }

func TestRolloutDefaults(t *testing.T) {
	var nilRollout *Rollout
	if got := nilRollout.Replicas(); got != DefaultReplicas {
		t.Errorf("nil Replicas() = %d", got)
	}
	empty := &Rollout{}
	for name, c := range map[string]struct{ got, want int32 }{
		"replicas":            {empty.Replicas(), 1},
		"revisionHistory":     {empty.RevisionHistoryLimit(), 10},
		"progressDeadline":    {empty.ProgressDeadlineSeconds(), 600},
		"successfulHistory":   {empty.SuccessfulRunHistoryLimit(), 5},
		"unsuccessfulHistory": {empty.UnsuccessfulRunHistoryLimit(), 5},
		"scaleDownNoStrategy": {empty.ScaleDownDelaySeconds(), 0},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", name, c.got, c.want)
		}
	}
	set := &Rollout{Spec: RolloutSpec{
		Replicas: rolloutPtr(int32(0)), RevisionHistoryLimit: rolloutPtr(int32(2)), ProgressDeadlineSeconds: rolloutPtr(int32(30)),
		Analysis: &AnalysisRunStrategy{SuccessfulRunHistoryLimit: rolloutPtr(int32(1))},
	}}
	if set.Replicas() != 0 || set.RevisionHistoryLimit() != 2 || set.ProgressDeadlineSeconds() != 30 ||
		set.SuccessfulRunHistoryLimit() != 1 || set.UnsuccessfulRunHistoryLimit() != 5 {
		t.Errorf("explicit values not honoured: %+v", set.Spec)
	}
}

func TestScaleDownDelays(t *testing.T) {
	routed := &RolloutTrafficRouting{}
	for name, c := range map[string]struct {
		s                 RolloutStrategy
		scaleDown, abortD int32
	}{
		"blueGreen default":    {RolloutStrategy{BlueGreen: &BlueGreenStrategy{}}, 30, 30},
		"blueGreen explicit":   {RolloutStrategy{BlueGreen: &BlueGreenStrategy{ScaleDownDelaySeconds: rolloutPtr(int32(5)), AbortScaleDownDelaySeconds: rolloutPtr(int32(0))}}, 5, 0},
		"basic canary":         {RolloutStrategy{Canary: &CanaryStrategy{ScaleDownDelaySeconds: rolloutPtr(int32(5))}}, 0, 0},
		"routed canary":        {RolloutStrategy{Canary: &CanaryStrategy{TrafficRouting: routed}}, 30, 30},
		"routed dynamicStable": {RolloutStrategy{Canary: &CanaryStrategy{TrafficRouting: routed, DynamicStableScale: true}}, 30, 0},
		"routed dynamic explicit": {RolloutStrategy{Canary: &CanaryStrategy{TrafficRouting: routed, DynamicStableScale: true,
			AbortScaleDownDelaySeconds: rolloutPtr(int32(60))}}, 30, 60},
	} {
		r := &Rollout{Spec: RolloutSpec{Strategy: c.s}}
		if got := r.ScaleDownDelaySeconds(); got != c.scaleDown {
			t.Errorf("%s: ScaleDownDelaySeconds() = %d, want %d", name, got, c.scaleDown)
		}
		if got := r.AbortScaleDownDelaySeconds(); got != c.abortD {
			t.Errorf("%s: AbortScaleDownDelaySeconds() = %d, want %d", name, got, c.abortD)
		}
	}
}

func TestStrategyDefaults(t *testing.T) {
	var c *CanaryStrategy
	if c.MaxSurgeOrDefault() != intstr.FromString("25%") || c.MaxUnavailableOrDefault() != intstr.FromString("25%") ||
		c.MinPodsPerReplicaSetOrDefault() != 1 || c.MaxTrafficWeight() != 100 {
		t.Error("nil canary defaults wrong")
	}
	c = &CanaryStrategy{MaxSurge: rolloutPtr(intstr.FromInt32(0)), TrafficRouting: &RolloutTrafficRouting{MaxTrafficWeight: rolloutPtr(int32(1000))}}
	if c.MaxSurgeOrDefault() != intstr.FromInt32(0) || c.MaxTrafficWeight() != 1000 {
		t.Error("explicit canary values not honoured")
	}
	var b *BlueGreenStrategy
	if !b.AutoPromotionEnabledOrDefault() || b.MaxUnavailableOrDefault() != intstr.FromInt32(0) {
		t.Error("nil blueGreen defaults wrong")
	}
	if (&BlueGreenStrategy{AutoPromotionEnabled: rolloutPtr(false)}).AutoPromotionEnabledOrDefault() {
		t.Error("autoPromotionEnabled=false not honoured")
	}
	var o *ObjectRef
	if o.ScaleDownOrDefault() != ScaleDownNever || (&ObjectRef{ScaleDown: ScaleDownOnSuccess}).ScaleDownOrDefault() != ScaleDownOnSuccess {
		t.Error("workloadRef scaleDown default wrong")
	}
}
