package v1alpha1

import "k8s.io/apimachinery/pkg/util/intstr"

// Defaults of Rollout fields. As in Argo Rollouts they are applied by the
// controller when it reads a field, never written into the object or the
// CRD schema, so a GitOps tool never sees a diff it did not make.
const (
	DefaultReplicas                    int32 = 1
	DefaultRevisionHistoryLimit        int32 = 10
	DefaultProgressDeadlineSeconds     int32 = 600
	DefaultSuccessfulRunHistoryLimit   int32 = 5
	DefaultUnsuccessfulRunHistoryLimit int32 = 5

	// DefaultMaxSurge and DefaultMaxUnavailable apply to the canary strategy.
	DefaultMaxSurge       = "25%"
	DefaultMaxUnavailable = "25%"
	// DefaultBlueGreenMaxUnavailable applies to the blue-green strategy.
	DefaultBlueGreenMaxUnavailable int32 = 0

	// DefaultScaleDownDelaySeconds applies to blue-green and to canary with
	// trafficRouting.
	DefaultScaleDownDelaySeconds int32 = 30
	// DefaultAbortScaleDownDelaySeconds applies to blue-green and to canary
	// with trafficRouting but without dynamicStableScale.
	DefaultAbortScaleDownDelaySeconds int32 = 30
	DefaultAutoPromotionEnabled             = true
	DefaultMinPodsPerReplicaSet       int32 = 1
	DefaultMaxTrafficWeight           int32 = 100
	// DefaultReplicaProgressThresholdPercent: a step waits for all of its
	// desired canary pods.
	DefaultReplicaProgressThresholdPercent int32 = 100

	DefaultWorkloadScaleDown     = ScaleDownNever
	DefaultNginxAnnotationPrefix = "nginx.ingress.kubernetes.io"
	DefaultALBAnnotationPrefix   = "alb.ingress.kubernetes.io"
	DefaultRolloutUniqueLabelKey = "rollouts-pod-template-hash"
)

func rolloutInt32Or(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func (r *Rollout) spec() *RolloutSpec {
	if r == nil {
		return &RolloutSpec{}
	}
	return &r.Spec
}

// Replicas is spec.replicas or DefaultReplicas.
func (r *Rollout) Replicas() int32 { return rolloutInt32Or(r.spec().Replicas, DefaultReplicas) }

// RevisionHistoryLimit is spec.revisionHistoryLimit or
// DefaultRevisionHistoryLimit.
func (r *Rollout) RevisionHistoryLimit() int32 {
	return rolloutInt32Or(r.spec().RevisionHistoryLimit, DefaultRevisionHistoryLimit)
}

// ProgressDeadlineSeconds is spec.progressDeadlineSeconds or
// DefaultProgressDeadlineSeconds.
func (r *Rollout) ProgressDeadlineSeconds() int32 {
	return rolloutInt32Or(r.spec().ProgressDeadlineSeconds, DefaultProgressDeadlineSeconds)
}

// SuccessfulRunHistoryLimit is spec.analysis.successfulRunHistoryLimit or
// DefaultSuccessfulRunHistoryLimit.
func (r *Rollout) SuccessfulRunHistoryLimit() int32 {
	if a := r.spec().Analysis; a != nil {
		return rolloutInt32Or(a.SuccessfulRunHistoryLimit, DefaultSuccessfulRunHistoryLimit)
	}
	return DefaultSuccessfulRunHistoryLimit
}

// UnsuccessfulRunHistoryLimit is spec.analysis.unsuccessfulRunHistoryLimit or
// DefaultUnsuccessfulRunHistoryLimit.
func (r *Rollout) UnsuccessfulRunHistoryLimit() int32 {
	if a := r.spec().Analysis; a != nil {
		return rolloutInt32Or(a.UnsuccessfulRunHistoryLimit, DefaultUnsuccessfulRunHistoryLimit)
	}
	return DefaultUnsuccessfulRunHistoryLimit
}

// ScaleDownDelaySeconds is how long an old ReplicaSet stays up after traffic
// left it: the strategy's scaleDownDelaySeconds or
// DefaultScaleDownDelaySeconds for blue-green and traffic-routed canary, and
// 0 for a basic canary, which scales down as it goes.
func (r *Rollout) ScaleDownDelaySeconds() int32 {
	s := r.spec().Strategy
	switch {
	case s.BlueGreen != nil:
		return rolloutInt32Or(s.BlueGreen.ScaleDownDelaySeconds, DefaultScaleDownDelaySeconds)
	case s.Canary != nil && s.Canary.TrafficRouting != nil:
		return rolloutInt32Or(s.Canary.ScaleDownDelaySeconds, DefaultScaleDownDelaySeconds)
	}
	return 0
}

// AbortScaleDownDelaySeconds is how long the canary or preview stays up after
// an abort (0: it is left running, or for a basic canary it rolls back step
// by step): the strategy's abortScaleDownDelaySeconds, or
// DefaultAbortScaleDownDelaySeconds for blue-green and traffic-routed canary
// without dynamicStableScale, and 0 otherwise.
func (r *Rollout) AbortScaleDownDelaySeconds() int32 {
	s := r.spec().Strategy
	switch {
	case s.BlueGreen != nil:
		return rolloutInt32Or(s.BlueGreen.AbortScaleDownDelaySeconds, DefaultAbortScaleDownDelaySeconds)
	case s.Canary != nil && s.Canary.TrafficRouting != nil:
		if s.Canary.AbortScaleDownDelaySeconds != nil {
			return *s.Canary.AbortScaleDownDelaySeconds
		}
		if s.Canary.DynamicStableScale {
			return 0
		}
		return DefaultAbortScaleDownDelaySeconds
	}
	return 0
}

// MaxSurgeOrDefault is maxSurge or DefaultMaxSurge.
func (c *CanaryStrategy) MaxSurgeOrDefault() intstr.IntOrString {
	if c == nil || c.MaxSurge == nil {
		return intstr.FromString(DefaultMaxSurge)
	}
	return *c.MaxSurge
}

// MaxUnavailableOrDefault is maxUnavailable or DefaultMaxUnavailable.
func (c *CanaryStrategy) MaxUnavailableOrDefault() intstr.IntOrString {
	if c == nil || c.MaxUnavailable == nil {
		return intstr.FromString(DefaultMaxUnavailable)
	}
	return *c.MaxUnavailable
}

// MinPodsPerReplicaSetOrDefault is minPodsPerReplicaSet or
// DefaultMinPodsPerReplicaSet.
func (c *CanaryStrategy) MinPodsPerReplicaSetOrDefault() int32 {
	if c == nil {
		return DefaultMinPodsPerReplicaSet
	}
	return rolloutInt32Or(c.MinPodsPerReplicaSet, DefaultMinPodsPerReplicaSet)
}

// MaxTrafficWeight is trafficRouting.maxTrafficWeight or
// DefaultMaxTrafficWeight: the total that weights are expressed in.
func (c *CanaryStrategy) MaxTrafficWeight() int32 {
	if c == nil || c.TrafficRouting == nil {
		return DefaultMaxTrafficWeight
	}
	return rolloutInt32Or(c.TrafficRouting.MaxTrafficWeight, DefaultMaxTrafficWeight)
}

// AutoPromotionEnabledOrDefault is autoPromotionEnabled or
// DefaultAutoPromotionEnabled.
func (b *BlueGreenStrategy) AutoPromotionEnabledOrDefault() bool {
	if b == nil || b.AutoPromotionEnabled == nil {
		return DefaultAutoPromotionEnabled
	}
	return *b.AutoPromotionEnabled
}

// MaxUnavailableOrDefault is maxUnavailable or DefaultBlueGreenMaxUnavailable.
func (b *BlueGreenStrategy) MaxUnavailableOrDefault() intstr.IntOrString {
	if b == nil || b.MaxUnavailable == nil {
		return intstr.FromInt32(DefaultBlueGreenMaxUnavailable)
	}
	return *b.MaxUnavailable
}

// ScaleDownOrDefault is scaleDown or DefaultWorkloadScaleDown.
func (o *ObjectRef) ScaleDownOrDefault() WorkloadScaleDown {
	if o == nil || o.ScaleDown == "" {
		return DefaultWorkloadScaleDown
	}
	return o.ScaleDown
}
