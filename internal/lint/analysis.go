package lint

import (
	"fmt"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// servedProviders are the metric providers this version of Ramp runs.
var servedProviders = map[string]bool{"prometheus": true, "web": true, "job": true}

// analysisTemplate reports what would end every run of an AnalysisTemplate
// (or ClusterAnalysisTemplate) in Error: metric rules (count against limits,
// durations, one provider), conditions that do not compile, and providers
// this version does not run (a warning).
func (ix *index) analysisTemplate(o *Object, spec *rampv1.AnalysisTemplateSpec) {
	if err := analysis.ValidateRunFields(spec.MeasurementRetention, nil); err != nil {
		ix.add(o, Error, "spec."+fieldPrefix.FindString(err.Error()), fmt.Sprintf("%v (every run of this template ends in Error)", err))
	}
	ev := analysis.NewEvaluator()
	for i, m := range spec.Metrics {
		field := fmt.Sprintf("spec.metrics[%d]", i)
		if err := analysis.ValidateMetric(m); err != nil {
			ix.add(o, Error, field, fmt.Sprintf("metric %q: %v (every run of this template ends in Error)", m.Name, err))
		}
		if err := ev.Check(m); err != nil {
			ix.add(o, Error, field, fmt.Sprintf("%v (every measurement is an Error)", err))
		}
		if name := provider.Name(m.Provider); name != "" && !servedProviders[name] {
			ix.add(o, Warning, field+".provider", fmt.Sprintf("metric %q: provider %s is not supported by this version of Ramp (runs end in Error)", m.Name, name))
		}
	}
}
