package plan

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// An HPA lists the pods the Rollout's /scale selector matches and asks for
// ceil(pods x usage/target). During a traffic-routed canary that keeps the
// stable ReplicaSet full, the canary's pods are counted on top, and the HPA
// scales up with no change in load (seed 000). While an HPA targets a
// Rollout, Ramp takes the canary's pods from the stable ReplicaSet instead:
// canary = ceil(w x replicas), stable = replicas - canary, neither below
// minPodsPerReplicaSet while it carries traffic or could take it back.

// takesFromStable reports whether this canary takes its pods from stable.
func (r *canaryRun) takesFromStable() bool {
	return r.routed() && len(r.in.HPAs) > 0 && !r.ro.HPAAccountingSurge()
}

// dynamic reports whether stable shrinks as the canary grows: with
// dynamicStableScale, or because an HPA targets the Rollout.
func (r *canaryRun) dynamic() bool { return r.c.DynamicStableScale || r.takesFromStable() }

// minPods is minPodsPerReplicaSet when canary pods come from stable, else 0.
func (r *canaryRun) minPods() int32 {
	if !r.takesFromStable() {
		return 0
	}
	return min(r.c.MinPodsPerReplicaSetOrDefault(), r.n)
}

// hpaAccounting records, in the HPAAccounting condition and one Event when
// it changes, how the HPAs targeting the Rollout count its pods.
func (r *base) hpaAccounting(ok bool, reason, how string) {
	if len(r.in.HPAs) == 0 {
		removeCondition(&r.s, rampv1.RolloutHPAAccounting)
		return
	}
	msg := "HPA " + strings.Join(r.in.HPAs, ", ") + " targets this rollout: " + how
	status := corev1.ConditionTrue
	if !ok {
		status = corev1.ConditionFalse
	}
	setCondition(&r.s, rampv1.RolloutHPAAccounting, status, reason, msg, r.in.Now, false)
	if prev := findCondition(&r.ro.Status, rampv1.RolloutHPAAccounting); prev == nil || prev.Message != msg {
		r.out.event(reason, "%s", msg)
	}
}

// canaryHPA explains a canary's accounting.
func (r *canaryRun) canaryHPA() {
	switch {
	case r.takesFromStable():
		r.hpaAccounting(true, rampv1.HPAReasonFromStable, "canary pods are taken from stable")
	case r.routed() && r.c.DynamicStableScale:
		r.hpaAccounting(true, rampv1.HPAReasonFromStable, "canary pods are taken from stable (dynamicStableScale)")
	case r.routed():
		r.hpaAccounting(false, rampv1.HPAReasonSurge, rampv1.HPAAccountingAnnotation+
			": surge: canary pods are added beside a full stable ReplicaSet and the HPA counts both")
	default:
		r.hpaAccounting(true, rampv1.HPAReasonReplicaMath, "canary pods replace stable pods (no trafficRouting)")
	}
}
