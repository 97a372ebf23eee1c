package plan

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// setCondition sets a condition, keeping its timestamps when nothing changed
// (so an unchanged status is byte-for-byte unchanged and costs no write).
// touch forces lastUpdateTime to now.
func setCondition(s *rampv1.RolloutStatus, t rampv1.RolloutConditionType, status corev1.ConditionStatus, reason, msg string, now time.Time, touch bool) {
	ts := metav1.Time{Time: now.Truncate(time.Second)}
	for i := range s.Conditions {
		c := &s.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status == status && c.Reason == reason && c.Message == msg && !touch {
			return
		}
		if c.Status != status {
			c.LastTransitionTime = ts
		}
		c.Status, c.Reason, c.Message, c.LastUpdateTime = status, reason, msg, ts
		return
	}
	s.Conditions = append(s.Conditions, rampv1.RolloutCondition{
		Type: t, Status: status, Reason: reason, Message: msg, LastUpdateTime: ts, LastTransitionTime: ts})
}

func findCondition(s *rampv1.RolloutStatus, t rampv1.RolloutConditionType) *rampv1.RolloutCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

func removeCondition(s *rampv1.RolloutStatus, t rampv1.RolloutConditionType) {
	out := s.Conditions[:0]
	for _, c := range s.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	s.Conditions = out
}

func findPause(s *rampv1.RolloutStatus, reason rampv1.PauseReason) *rampv1.PauseCondition {
	for i := range s.PauseConditions {
		if s.PauseConditions[i].Reason == reason {
			return &s.PauseConditions[i]
		}
	}
	return nil
}

func withoutPause(pcs []rampv1.PauseCondition, reason rampv1.PauseReason) []rampv1.PauseCondition {
	var out []rampv1.PauseCondition
	for _, p := range pcs {
		if p.Reason != reason {
			out = append(out, p)
		}
	}
	return out
}
