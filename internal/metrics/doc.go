// Package metrics exposes on the controller's metrics endpoint the metric
// families Argo Rollouts v1.9 exposes, with the same names, types and label
// sets, so that dashboards and alerts written for upstream keep working:
// the per-object gauges are computed from the informer cache at scrape time
// (no API calls), the reconcile histograms and error counters wrap each
// controller, rollout_events_total counts the Events recorded about
// Rollouts, and controller_clientset_k8s_request_total counts the
// controller's requests to the API server. Ramp's own families start with
// ramp_ (docs/api.md).
package metrics
