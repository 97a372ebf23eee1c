package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/judgement"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/podtemplate"
)

// analysisTemplate reports what would end every run of an AnalysisTemplate
// (or ClusterAnalysisTemplate) in Error: metric rules (count against limits,
// durations, one provider), checked with the {{args.x}} placeholders whose
// values the template gives substituted (the others are checked when a run
// has them), conditions that do not compile, an empty Prometheus query, a
// judge metric its provider would refuse, and providers this version does
// not run.
func (ix *index) analysisTemplate(o *Object, spec *rampv1.AnalysisTemplateSpec) {
	ix.analysisSpec(o, spec.Metrics, spec.Args, spec.MeasurementRetention, nil, "every run of this template ends in Error")
}

// analysisRun reports the same for an AnalysisRun (its args are final).
func (ix *index) analysisRun(o *Object, spec *rampv1.AnalysisRunSpec) {
	ix.analysisSpec(o, spec.Metrics, spec.Args, spec.MeasurementRetention, spec.TTLStrategy, "the run ends in Error")
}

func (ix *index) analysisSpec(o *Object, metrics []rampv1.Metric, args []rampv1.Argument,
	retention []rampv1.MeasurementRetention, ttl *rampv1.TTLStrategy, outcome string) {
	if err := analysis.ValidateRunFields(retention, ttl); err != nil {
		field, rest := splitField(err.Error())
		ix.add(o, Error, "spec."+field, fmt.Sprintf("%s (%s)", rest, outcome))
	}
	if len(metrics) == 0 {
		ix.add(o, Error, "spec.metrics", "at least one metric is required ("+outcome+")")
	}
	seen := map[string]int{}
	ev := analysis.NewEvaluator()
	for i, m := range metrics {
		field := fmt.Sprintf("spec.metrics[%d]", i)
		if j, dup := seen[m.Name]; dup {
			ix.add(o, Error, field+".name", fmt.Sprintf("%q is also the name of spec.metrics[%d] (%s)", m.Name, j, outcome))
		}
		seen[m.Name] = i
		if err := analysis.ValidateMetricsWithArgs([]rampv1.Metric{m}, args); err != nil {
			sub, rest := metricField(m.Name, err.Error())
			ix.add(o, Error, field+sub, fmt.Sprintf("%s (%s)", rest, outcome))
		}
		if err := ev.Check(m); err != nil {
			sub, rest := "", err.Error()
			var ce *analysis.ConditionError
			if errors.As(err, &ce) {
				sub = "." + ce.Field
			}
			rest = strings.TrimPrefix(rest, fmt.Sprintf("metric %q: ", m.Name))
			ix.add(o, Error, field+sub, fmt.Sprintf("%s (every measurement is an Error)", rest))
		}
		if p := m.Provider.Prometheus; p != nil && strings.TrimSpace(p.Query) == "" {
			ix.add(o, Error, field+".provider.prometheus", "query is empty: Prometheus answers every measurement with an error ("+outcome+")")
		}
		if j := m.Provider.Judge; j != nil && !strings.Contains(string(j.Lookback)+string(j.Step), "{{") {
			// the other fields cannot hold a placeholder (enum, numbers) or take any string
			if _, err := judgement.Parse(j); err != nil {
				sub, rest := splitField(err.Error())
				ix.add(o, Error, field+".provider.judge."+sub, rest+" ("+outcome+")")
			}
		}
		if m.Provider.Judge != nil && (m.SuccessCondition != "" || m.FailureCondition != "") {
			ix.add(o, Warning, field, "successCondition and failureCondition are not used: the judge's score and threshold decide each measurement")
		}
		if m.Provider.Job != nil {
			ix.jobSpec(o, field+".provider.job.spec", m, args)
		}
		// A plugin is configured in the controller's ConfigMap, which lint
		// does not read: the controller names an unconfigured one.
		name := provider.Name(m.Provider)
		if msg := provider.Unsupported(name); msg != "" && !strings.HasPrefix(name, "plugin/") {
			ix.add(o, Error, field+".provider", msg)
		}
	}
}

// metricPrefix is what analysis errors about one metric start with.
var metricPrefix = regexp.MustCompile(`^metrics\[\d+\]: (metric "(?:[^"\\]|\\.)*" )?`)

// metricFields are the metric fields an analysis error may start with, and
// the words some errors name them by.
var metricFields = map[string]string{
	"count": "count", "failureLimit": "failureLimit", "inconclusiveLimit": "inconclusiveLimit",
	"consecutiveErrorLimit": "consecutiveErrorLimit", "consecutiveSuccessLimit": "consecutiveSuccessLimit",
	"invalid interval string": "interval", "interval": "interval", "invalid initialDelay string": "initialDelay",
	"no provider specified": "provider", "multiple providers specified": "provider",
}

// metricField turns an analysis error about one metric into the sub-field
// it names (".count", "" when none) and the message without the metric's
// index and name (the finding's field names them once).
func metricField(name, msg string) (string, string) {
	msg = metricPrefix.ReplaceAllString(msg, "")
	msg = strings.TrimPrefix(msg, fmt.Sprintf("metric %q: ", name))
	for prefix, f := range metricFields {
		if strings.HasPrefix(msg, prefix+":") {
			return "." + f, strings.TrimSpace(strings.TrimPrefix(msg, prefix+":"))
		}
	}
	if head, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(head, "provider.") && !strings.Contains(head, " ") {
		return "." + head, rest
	}
	for prefix, f := range metricFields {
		if strings.HasPrefix(msg, prefix+" ") {
			return "." + f, msg
		}
	}
	return "", msg
}

// jobSpec reports a job metric's Job spec that the API server would reject
// when the run creates it, checked once every {{args.x}} placeholder in it
// has a value (the others are checked when a run has them).
func (ix *index) jobSpec(o *Object, path string, m rampv1.Metric, args []rampv1.Argument) {
	spec := analysis.ResolveKnown(rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{m}, Args: args})
	job := spec.Metrics[0].Provider.Job
	if job == nil {
		return
	}
	if raw, err := json.Marshal(job.Spec); err != nil || strings.Contains(string(raw), "{{") {
		return
	}
	for _, e := range podtemplate.ValidateJob(&job.Spec, field.NewPath(path)) {
		f, rest := splitField(e.Error())
		ix.add(o, Error, f, rest+" (the API server rejects the measurement's Job)")
	}
}
