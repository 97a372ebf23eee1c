// Package provider defines how Ramp takes a metric measurement. Providers
// (prometheus, web, job, ...) register under the name used in an
// AnalysisTemplate's metric.provider; an unknown name is an error.
package provider

import (
	"context"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/registry"
)

// Provider takes one measurement of a metric with its arguments resolved.
type Provider interface {
	Measure(ctx context.Context, metric rampv1.Metric, args map[string]string) (rampv1.Measurement, error)
}

// NewRegistry returns an empty provider registry.
func NewRegistry() *registry.Registry[Provider] { return registry.New[Provider]("metric provider") }
