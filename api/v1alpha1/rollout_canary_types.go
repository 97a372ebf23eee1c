package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// CanaryStrategy moves a Rollout to a new version by growing a canary
// ReplicaSet step by step while the stable ReplicaSet keeps serving. Without
// steps it behaves like a Deployment's rolling update.
type CanaryStrategy struct {
	// CanaryService is the Service the controller points at the canary pods
	// only. Required for traffic routing (except pingPong).
	// +optional
	CanaryService string `json:"canaryService,omitempty"`

	// StableService is the Service the controller points at the stable pods
	// only. Required for traffic routing (except pingPong).
	// +optional
	StableService string `json:"stableService,omitempty"`

	// Steps are run in order on every update. Without steps the update
	// behaves like a rolling update bounded by maxSurge and maxUnavailable.
	// Steps are skipped on the Rollout's first deploy.
	// +optional
	Steps []CanaryStep `json:"steps,omitempty"`

	// TrafficRouting splits traffic with an ingress controller, service mesh
	// or plugin. Without it, traffic follows the ratio of canary to stable
	// pods.
	// +optional
	TrafficRouting *RolloutTrafficRouting `json:"trafficRouting,omitempty"`

	// MaxUnavailable is the maximum number of pods, absolute or a percentage
	// of spec.replicas rounded down, that can be unavailable during the
	// update. Cannot be 0 when maxSurge is 0. Defaults to "25%"
	// (DefaultMaxUnavailable).
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// MaxSurge is the maximum number of pods, absolute or a percentage of
	// spec.replicas rounded up, that can run above spec.replicas during the
	// update. Cannot be 0 when maxUnavailable is 0. Defaults to "25%"
	// (DefaultMaxSurge).
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`

	// Analysis runs in the background during an update, from startingStep
	// on; its failure aborts the update. Skipped on the first deploy.
	// +optional
	Analysis *RolloutAnalysisBackground `json:"analysis,omitempty"`

	// AntiAffinity keeps canary pods off the nodes of the stable pods.
	// +optional
	AntiAffinity *AntiAffinity `json:"antiAffinity,omitempty"`

	// CanaryMetadata is added to the canary pods during an update.
	// +optional
	CanaryMetadata *PodTemplateMetadata `json:"canaryMetadata,omitempty"`

	// StableMetadata is added to the stable pods.
	// +optional
	StableMetadata *PodTemplateMetadata `json:"stableMetadata,omitempty"`

	// ScaleDownDelaySeconds delays scaling down the previous ReplicaSet after
	// the stable Service switches to the new one, so traffic providers can
	// retarget. Only used with trafficRouting. Defaults to 30
	// (DefaultScaleDownDelaySeconds).
	// +optional
	ScaleDownDelaySeconds *int32 `json:"scaleDownDelaySeconds,omitempty"`

	// ScaleDownDelayRevisionLimit limits how many old ReplicaSets may stay
	// scaled up waiting for their scale-down delay. Unlimited when unset.
	// +optional
	ScaleDownDelayRevisionLimit *int32 `json:"scaleDownDelayRevisionLimit,omitempty"`

	// AbortScaleDownDelaySeconds delays scaling down the canary after an
	// abort (traffic-routed canaries only); 0 leaves it running. Defaults to
	// 30 (DefaultAbortScaleDownDelaySeconds), or 0 with dynamicStableScale.
	// +optional
	AbortScaleDownDelaySeconds *int32 `json:"abortScaleDownDelaySeconds,omitempty"`

	// DynamicStableScale scales the stable ReplicaSet down as traffic moves
	// to the canary, keeping canary plus stable near spec.replicas. Only with
	// trafficRouting. Defaults to false.
	// +optional
	DynamicStableScale bool `json:"dynamicStableScale,omitempty"`

	// PingPong alternates two Services between the stable and canary roles
	// instead of using canaryService and stableService (ALB only).
	// +optional
	PingPong *PingPongSpec `json:"pingPong,omitempty"`

	// MinPodsPerReplicaSet is the minimum number of pods each ReplicaSet gets
	// with a traffic-routed canary, for availability. Defaults to 1
	// (DefaultMinPodsPerReplicaSet).
	// +optional
	MinPodsPerReplicaSet *int32 `json:"minPodsPerReplicaSet,omitempty"`

	// ReplicaProgressThreshold is how much of a step's desired canary must be
	// available before the step counts as done (useful with an HPA).
	// Defaults to 100 percent.
	// +optional
	ReplicaProgressThreshold *ReplicaProgressThreshold `json:"replicaProgressThreshold,omitempty"`
}

// PingPongSpec names the two Services that trade the stable and canary roles.
type PingPongSpec struct {
	// +required
	PingService string `json:"pingService"`
	// +required
	PongService string `json:"pongService"`
}

// ReplicaProgressThreshold is the share of a step's desired canary pods that
// must be available for the step to complete.
type ReplicaProgressThreshold struct {
	// Type is Percent (value is a percentage of the desired pods) or Pod
	// (value is a pod count).
	// +required
	Type ReplicaProgressThresholdType `json:"type"`
	// Value is the percentage or pod count.
	// +required
	Value int32 `json:"value"`
}

// ReplicaProgressThresholdType is the unit of ReplicaProgressThreshold.Value.
type ReplicaProgressThresholdType string

// Values of ReplicaProgressThreshold.Type.
const (
	ProgressTypePercentage ReplicaProgressThresholdType = "Percent"
	ProgressTypePod        ReplicaProgressThresholdType = "Pod"
)

// CanaryStep is one step of a canary update. As upstream, a step sets at
// least one field and at most one of setWeight, pause, experiment and
// analysis; setCanaryScale, setHeaderRoute and setMirrorRoute may join
// another action in the same step. Admission takes any shape (as upstream's
// CRD does); the controller reports a bad one as InvalidSpec.
type CanaryStep struct {
	// SetWeight sets the canary's share of traffic (with trafficRouting) or
	// of pods (without it), in percent or, with
	// trafficRouting.maxTrafficWeight, in units of that total.
	// +optional
	SetWeight *int32 `json:"setWeight,omitempty"`

	// Pause stops the update for a duration, or until promoted when no
	// duration is given.
	// +optional
	Pause *RolloutPause `json:"pause,omitempty"`

	// Experiment runs an Experiment and waits for it.
	// +optional
	Experiment *RolloutExperimentStep `json:"experiment,omitempty"`

	// Analysis runs an AnalysisRun and waits for it.
	// +optional
	Analysis *RolloutAnalysis `json:"analysis,omitempty"`

	// SetCanaryScale sets the canary's pod count independently of its traffic
	// weight (trafficRouting only).
	// +optional
	SetCanaryScale *SetCanaryScale `json:"setCanaryScale,omitempty"`

	// SetHeaderRoute sends requests matching header rules to the canary
	// (trafficRouting only; the route must be in managedRoutes).
	// +optional
	SetHeaderRoute *SetHeaderRoute `json:"setHeaderRoute,omitempty"`

	// SetMirrorRoute mirrors a share of matching requests to the canary
	// (trafficRouting only; the route must be in managedRoutes).
	// +optional
	SetMirrorRoute *SetMirrorRoute `json:"setMirrorRoute,omitempty"`

	// Plugin runs a step plugin.
	// +optional
	Plugin *PluginStep `json:"plugin,omitempty"`
}

// RolloutPause is a pause step.
type RolloutPause struct {
	// Duration is how long to pause: an integer number of seconds, or a
	// duration string such as 30s, 10m or 1h. Unset pauses until promoted.
	// +optional
	// +kubebuilder:validation:XIntOrString
	Duration *intstr.IntOrString `json:"duration,omitempty"`
}

// SetCanaryScale fixes the canary's scale during the following steps.
type SetCanaryScale struct {
	// Weight scales the canary to this share of spec.replicas (percent, or
	// units of maxTrafficWeight).
	// +optional
	Weight *int32 `json:"weight,omitempty"`
	// Replicas scales the canary to this many pods.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// MatchTrafficWeight returns to the default: the canary's scale follows
	// its traffic weight.
	// +optional
	MatchTrafficWeight bool `json:"matchTrafficWeight,omitempty"`
}

// SetHeaderRoute creates, or with no match removes, a header-based route to
// the canary.
type SetHeaderRoute struct {
	// Name of the route; must be listed in trafficRouting.managedRoutes.
	// +optional
	Name string `json:"name,omitempty"`
	// Match rules; all must hold. No rules removes the route.
	// +optional
	Match []HeaderRoutingMatch `json:"match,omitempty"`
}

// HeaderRoutingMatch matches one request header.
type HeaderRoutingMatch struct {
	// HeaderName is the header to match.
	// +required
	HeaderName string `json:"headerName"`
	// HeaderValue is how its value must match.
	// +required
	HeaderValue *StringMatch `json:"headerValue"`
}

// StringMatch matches a string. Set exactly one field; not every traffic
// router supports every kind.
type StringMatch struct {
	// +optional
	Exact string `json:"exact,omitempty"`
	// +optional
	Prefix string `json:"prefix,omitempty"`
	// +optional
	Regex string `json:"regex,omitempty"`
}

// SetMirrorRoute creates, or with no match removes, a route that mirrors
// matching requests to the canary; responses from the mirror are discarded.
type SetMirrorRoute struct {
	// Name of the route; must be listed in trafficRouting.managedRoutes.
	// +required
	Name string `json:"name"`
	// Match blocks are ORed; the conditions inside one block are ANDed. No
	// blocks removes the route.
	// +optional
	Match []RouteMatch `json:"match,omitempty"`
	// Percentage of matching requests to mirror.
	// +optional
	Percentage *int32 `json:"percentage,omitempty"`
}

// RouteMatch matches requests by method, path and headers.
type RouteMatch struct {
	// +optional
	Method *StringMatch `json:"method,omitempty"`
	// +optional
	Path *StringMatch `json:"path,omitempty"`
	// Headers maps a header name to how its value must match.
	// +optional
	Headers map[string]StringMatch `json:"headers,omitempty"`
}

// PluginStep runs a step plugin with arbitrary configuration.
type PluginStep struct {
	// Name of the step plugin.
	// +required
	Name string `json:"name"`
	// Config is passed to the plugin as is.
	// +optional
	Config *apiextensionsv1.JSON `json:"config,omitempty"`
}

// RolloutExperimentStep runs an Experiment from a canary step.
type RolloutExperimentStep struct {
	// Templates are the ReplicaSets to run, each from the stable or canary
	// pod template.
	// +required
	Templates []RolloutExperimentTemplate `json:"templates"`
	// Duration is how long the Experiment runs, e.g. 1h; unset runs until
	// its analyses finish (or indefinitely without analyses).
	// +optional
	Duration DurationString `json:"duration,omitempty"`
	// Analyses run against the Experiment.
	// +optional
	Analyses []RolloutExperimentStepAnalysisTemplateRef `json:"analyses,omitempty"`
	// DryRun lists metrics whose failures do not fail the analyses.
	// +optional
	DryRun []DryRun `json:"dryRun,omitempty"`
	// AnalysisRunMetadata is added to the AnalysisRuns.
	// +optional
	// A value, not a pointer, as upstream: its JSON (always present) is
	// part of status.currentStepHash.
	AnalysisRunMetadata AnalysisRunMetadata `json:"analysisRunMetadata,omitempty"`
	// ScaleDownDelaySeconds delays scaling down the Experiment's ReplicaSets
	// when it ends.
	// +optional
	ScaleDownDelaySeconds *int32 `json:"scaleDownDelaySeconds,omitempty"`
}

// RolloutExperimentTemplate is one ReplicaSet of an experiment step.
type RolloutExperimentTemplate struct {
	// Name of the template, unique within the step.
	// +required
	Name string `json:"name"`
	// SpecRef picks the pod template: "stable" or "canary".
	// +required
	SpecRef ReplicaSetSpecRef `json:"specRef"`
	// Replicas is the number of pods. Defaults to 1.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// Metadata is added to the template's pods. A value, as upstream (see
	// AnalysisRunMetadata above).
	// +optional
	Metadata PodTemplateMetadata `json:"metadata,omitempty"`
	// Selector overrides the pods' selector.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Weight is the share of traffic routed to this template (trafficRouting
	// only).
	// +optional
	Weight *int32 `json:"weight,omitempty"`
	// Service, when set, creates a Service for the template's pods.
	// +optional
	Service *TemplateService `json:"service,omitempty"`
}

// ReplicaSetSpecRef names the pod template an experiment template copies.
type ReplicaSetSpecRef string

// Values of RolloutExperimentTemplate.SpecRef.
const (
	CanarySpecRef ReplicaSetSpecRef = "canary"
	StableSpecRef ReplicaSetSpecRef = "stable"
)

// RolloutExperimentStepAnalysisTemplateRef is an analysis run inside an
// experiment step.
type RolloutExperimentStepAnalysisTemplateRef struct {
	// Name of this analysis within the Experiment.
	// +required
	Name string `json:"name"`
	// TemplateName is the AnalysisTemplate (or ClusterAnalysisTemplate).
	// +required
	TemplateName string `json:"templateName"`
	// ClusterScope selects a ClusterAnalysisTemplate. A pointer, as
	// upstream: an explicit false is part of status.currentStepHash.
	// +optional
	ClusterScope *bool `json:"clusterScope,omitempty"`
	// Args override the template's arguments.
	// +optional
	Args []AnalysisRunArgument `json:"args,omitempty"`
	// RequiredForCompletion makes the Experiment end when this analysis
	// completes successfully.
	// +optional
	RequiredForCompletion bool `json:"requiredForCompletion,omitempty"`
}

// IsClusterScope reports whether the reference names a ClusterAnalysisTemplate.
func (r RolloutExperimentStepAnalysisTemplateRef) IsClusterScope() bool {
	return r.ClusterScope != nil && *r.ClusterScope
}
