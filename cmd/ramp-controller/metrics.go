package main

import (
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// metricsOptions is the /metrics server: plain HTTP without authentication
// by default; with --metrics-secure, HTTPS (the certificate in
// --metrics-cert-dir, else a self-signed one) behind controller-runtime's
// filter, which authenticates each scrape's bearer token with a
// TokenReview and authorizes get on the request path with a
// SubjectAccessReview. That needs tokenreviews and subjectaccessreviews
// create, granted by config/secure-metrics's own ClusterRole rather than
// the controller's (docs/security.md §5).
func metricsOptions(o options) metricsserver.Options {
	m := metricsserver.Options{BindAddress: o.metricsAddr}
	if o.metricsSecure {
		m.SecureServing = true
		m.CertDir = o.metricsCertDir
		m.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	return m
}
