// Package podtemplate reproduces what the API server does to a pod template
// that Ramp's CRDs store undefaulted and unvalidated.
//
// Defaulted applies the defaults the API server applies when it stores a
// template in a ReplicaSet, so that a Rollout's template can be compared with
// the template of a ReplicaSet another controller created for it (Argo
// Rollouts, on a live switch: its pod-template hashes are not Ramp's). A
// default missed there only makes a match fail (Ramp then creates its own
// ReplicaSet); it never makes two different templates match. testdata/ holds
// what a real API server stored for the templates of the tests.
//
// Validate and ValidateJob run the API server's own validation of a
// ReplicaSet's or a Job's pod template (k8s.io/kubernetes), so that a
// template the API server would refuse is reported as an invalid spec, naming
// the field, before Ramp tries to create anything from it.
//
// The package is pure: it must not import a client or read the cluster.
package podtemplate
