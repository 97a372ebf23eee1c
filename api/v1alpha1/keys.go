package v1alpha1

// Label and annotation keys that Argo Rollouts v1.9 writes and its clients
// (the kubectl plugin, Argo CD, the dashboard) read. They keep upstream's
// spelling exactly; every package takes them from here.
const (
	// RevisionAnnotation numbers the revisions of a Rollout: on each of its
	// ReplicaSets, and on the Rollout itself (its current revision).
	RevisionAnnotation = "rollout.argoproj.io/revision"
	// RevisionHistoryAnnotation lists, comma-separated, the revisions a
	// ReplicaSet had before a rollback made it the newest again.
	RevisionHistoryAnnotation = "rollout.argoproj.io/revision-history"
	// DesiredReplicasAnnotation is the Rollout's spec.replicas, recorded on a
	// ReplicaSet whenever the controller creates or scales it.
	DesiredReplicasAnnotation = "rollout.argoproj.io/desired-replicas"
	// ManagedByRolloutsAnnotation marks a Service whose selector a Rollout
	// switches; its value is the Rollout's name.
	ManagedByRolloutsAnnotation = "argo-rollouts.argoproj.io/managed-by-rollouts"
	// ExperimentNameAnnotation and ExperimentTemplateNameAnnotation name the
	// Experiment and the template of an Experiment's ReplicaSet.
	ExperimentNameAnnotation         = "experiment.argoproj.io/name"
	ExperimentTemplateNameAnnotation = "experiment.argoproj.io/template-name"
	// ControllerInstanceIDLabel assigns an object to the controller started
	// with the same --instance-id; objects without it belong to the
	// controller started without one.
	ControllerInstanceIDLabel = "argo-rollouts.argoproj.io/controller-instance-id"
	// ScaleDownDeadlineAnnotation is when an old ReplicaSet kept up for its
	// scale-down delay goes to zero (RFC 3339). Upstream's key has no prefix.
	ScaleDownDeadlineAnnotation = "scale-down-deadline"
	// EphemeralMetadataAnnotation records on a ReplicaSet the ephemeral
	// metadata (canaryMetadata, stableMetadata, ...) its template carries:
	// the role's PodTemplateMetadata in JSON.
	EphemeralMetadataAnnotation = "rollout.argoproj.io/ephemeral-metadata"
	// WorkloadGenerationAnnotation is the metadata.generation of the
	// Deployment a Rollout's workloadRef names: on the Rollout, and on each
	// ReplicaSet as it was when the ReplicaSet was created.
	WorkloadGenerationAnnotation = "rollout.argoproj.io/workload-generation"
	// LegacyScaleDownDeadlineAnnotation is the key Ramp wrote before it used
	// upstream's: still read, and removed whenever the deadline is written.
	LegacyScaleDownDeadlineAnnotation = "argo-rollouts.argoproj.io/scale-down-deadline"

	// RolloutTypeLabel is on every AnalysisRun a Rollout creates: its role,
	// one of the RolloutType*Label values.
	RolloutTypeLabel = "rollout-type"
	// RolloutCanaryStepIndexLabel is the canary step (0-based) that created
	// an AnalysisRun or an Experiment.
	RolloutCanaryStepIndexLabel = "step-index"
	// ManagedALBAnnotationsAnnotation, on an Ingress, maps as a JSON object
	// each Rollout to the annotations it manages there
	// ({"<rollout>":["<key>",...]}), so either controller can take over.
	ManagedALBAnnotationsAnnotation = "rollouts.argoproj.io/managed-alb-annotations"
	// AnalysisRunNameKey and AnalysisRunMetricNameKey name, on a Job a job
	// metric runs, its AnalysisRun and metric. Upstream writes them as
	// annotations (and selects its Jobs by an analysisrun.argoproj.io/uid
	// label); Ramp writes them as labels and selects its Jobs by the name.
	AnalysisRunNameKey       = "analysisrun.argoproj.io/name"
	AnalysisRunMetricNameKey = "analysisrun.argoproj.io/metric-name"
)

// Values of RolloutTypeLabel: what an AnalysisRun is for.
const (
	RolloutTypeStepLabel          = "Step"
	RolloutTypeBackgroundRunLabel = "Background"
	RolloutTypePrePromotionLabel  = "PrePromotion"
	RolloutTypePostPromotionLabel = "PostPromotion"
)

// Keys of a Measurement's metadata that upstream's providers write and its
// tools display.
const (
	// JobNameMetadataKey and JobNamespaceMetadataKey name the Job of a job
	// metric's measurement.
	JobNameMetadataKey      = "job-name"
	JobNamespaceMetadataKey = "job-namespace"
	// ResolvedPrometheusQueryMetadataKey is the query a prometheus metric
	// ran, its arguments substituted.
	ResolvedPrometheusQueryMetadataKey = "ResolvedPrometheusQuery"
	// PrometheusWarningsMetadataKey holds the warnings Prometheus returned
	// with a result.
	PrometheusWarningsMetadataKey = "warnings"
	// WavefrontWarningsMetadataKey holds the warnings Wavefront returned;
	// WavefrontTimestampsMetadataKey the times (epoch seconds) of the points
	// a wavefront measurement took, WavefrontDriftMetadataKey their distance
	// in seconds from the measurement's time.
	WavefrontWarningsMetadataKey   = PrometheusWarningsMetadataKey
	WavefrontTimestampsMetadataKey = "timestamps"
	WavefrontDriftMetadataKey      = "drift"
	// KayentaExecutionIDMetadataKey is the id of the Kayenta canary
	// execution a kayenta measurement waits for.
	KayentaExecutionIDMetadataKey = "canaryExecutionId"
)

// ControllerAgentName is the source component of the Events the controller
// records (upstream's name, which users' event filters match).
const ControllerAgentName = "rollouts-controller"

// Keys of Ramp's own (upstream has no counterpart).
const (
	// RunSpecHashAnnotation is, on an AnalysisRun a Rollout or Experiment
	// created, the hash of the spec it was created with
	// (plan.RunSpecHash). A run is taken up again (a pass whose status
	// write was lost) only if its controller is that owner and both this
	// annotation and its stored spec hash to what the owner would create.
	RunSpecHashAnnotation = "rollout.ramp.dev/spec-hash"
	// RunNotReusedReason is the Warning Event on a Rollout or Experiment
	// when an existing AnalysisRun of the name or role it wanted is not
	// taken up (RunReuse says why) and a new run is started instead.
	RunNotReusedReason = "AnalysisRunNotReused"
)
