// Package v1alpha1 holds the argoproj.io/v1alpha1 API served by Ramp:
// Rollout, AnalysisTemplate, ClusterAnalysisTemplate, AnalysisRun and
// Experiment, with the same JSON field names, defaults and status contract as
// Argo Rollouts v1.9, so that existing manifests, the Argo CD health check and
// the Argo Rollouts kubectl plugin work unchanged.
//
// The package imports only k8s.io/api and k8s.io/apimachinery; it owns no
// behaviour beyond small accessors. CRDs in config/crd are generated from the
// kubebuilder markers here by controller-gen and are never hand-edited.
//
// +kubebuilder:object:generate=true
// +groupName=argoproj.io
package v1alpha1
