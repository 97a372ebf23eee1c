package v1alpha1

import "k8s.io/apimachinery/pkg/util/intstr"

// BlueGreenStrategy runs the new version (preview) beside the current one
// (active) and switches the active Service to it at promotion.
type BlueGreenStrategy struct {
	// ActiveService is the Service the controller points at the active
	// ReplicaSet; it switches to the new ReplicaSet at promotion.
	// +required
	ActiveService string `json:"activeService"`

	// PreviewService is the Service the controller points at the newest
	// ReplicaSet before promotion, so it can be tested without production
	// traffic.
	// +optional
	PreviewService string `json:"previewService,omitempty"`

	// PreviewReplicaCount is how many pods the new ReplicaSet runs before
	// promotion; it is scaled to spec.replicas before the switch. Unset runs
	// the full spec.replicas.
	// +optional
	PreviewReplicaCount *int32 `json:"previewReplicaCount,omitempty"`

	// AutoPromotionEnabled promotes the new ReplicaSet as soon as it is ready
	// (after prePromotionAnalysis); false pauses before promotion until
	// promoted. Defaults to true (DefaultAutoPromotionEnabled).
	// +optional
	AutoPromotionEnabled *bool `json:"autoPromotionEnabled,omitempty"`

	// AutoPromotionSeconds promotes automatically this many seconds after
	// the Rollout paused before promotion. Ignored when autoPromotionEnabled
	// is false. Unset by default.
	// +optional
	AutoPromotionSeconds int32 `json:"autoPromotionSeconds,omitempty"`

	// MaxUnavailable is the maximum number of pods, absolute or a percentage
	// of spec.replicas, that can be unavailable during the update. Defaults
	// to 0 (DefaultBlueGreenMaxUnavailable).
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// ScaleDownDelaySeconds delays scaling down the previous ReplicaSet after
	// the active Service switches, so nodes can update their iptables.
	// Defaults to 30 (DefaultScaleDownDelaySeconds).
	// +optional
	ScaleDownDelaySeconds *int32 `json:"scaleDownDelaySeconds,omitempty"`

	// ScaleDownDelayRevisionLimit limits how many old ReplicaSets may stay
	// scaled up waiting for their scale-down delay. Unlimited when unset.
	// +optional
	ScaleDownDelayRevisionLimit *int32 `json:"scaleDownDelayRevisionLimit,omitempty"`

	// AbortScaleDownDelaySeconds delays scaling down the preview ReplicaSet
	// after an abort; 0 leaves it running. Defaults to 30
	// (DefaultAbortScaleDownDelaySeconds).
	// +optional
	AbortScaleDownDelaySeconds *int32 `json:"abortScaleDownDelaySeconds,omitempty"`

	// PrePromotionAnalysis runs before the active Service switches; promotion
	// waits for it and its failure aborts the update.
	// +optional
	PrePromotionAnalysis *RolloutAnalysis `json:"prePromotionAnalysis,omitempty"`

	// PostPromotionAnalysis runs after the active Service switches; its
	// failure aborts the update and switches traffic back.
	// +optional
	PostPromotionAnalysis *RolloutAnalysis `json:"postPromotionAnalysis,omitempty"`

	// AntiAffinity keeps the new pods off the nodes of the previous pods.
	// +optional
	AntiAffinity *AntiAffinity `json:"antiAffinity,omitempty"`

	// PreviewMetadata is added to the new pods while they are in preview.
	// +optional
	PreviewMetadata *PodTemplateMetadata `json:"previewMetadata,omitempty"`

	// ActiveMetadata is added to the active pods.
	// +optional
	ActiveMetadata *PodTemplateMetadata `json:"activeMetadata,omitempty"`
}
