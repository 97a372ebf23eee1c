package metrics

import (
	"context"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

var nsName = []string{"namespace", "name"}

func desc(name, help string, extra ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, append(append([]string{}, nsName...), extra...), nil)
}

// The gauges, named and labelled as upstream's.
var (
	rolloutInfo        = desc("rollout_info", "Information about rollout.", "strategy", "traffic_router", "phase")
	rolloutAvailable   = desc("rollout_info_replicas_available", "The number of available replicas per rollout.")
	rolloutUnavailable = desc("rollout_info_replicas_unavailable", "The number of unavailable replicas per rollout.")
	rolloutDesired     = desc("rollout_info_replicas_desired", "The number of desired replicas per rollout.")
	rolloutUpdated     = desc("rollout_info_replicas_updated", "The number of updated replicas per rollout.")
	rolloutPhase       = desc("rollout_phase", "Information on the state of the rollout (DEPRECATED - use rollout_info)", "strategy", "phase")

	runInfo        = desc("analysis_run_info", "Information about analysis run.", "phase")
	runPhase       = desc("analysis_run_phase", "Information on the state of the Analysis Run (DEPRECATED - use analysis_run_info)", "phase")
	runMetricType  = desc("analysis_run_metric_type", "Information on the type of a specific metric in the Analysis Runs", "metric", "type")
	runMetricPhase = desc("analysis_run_metric_phase", "Information on the duration of a specific metric in the Analysis Run", "metric", "type", "dry_run", "phase")

	templateInfo       = desc("analysis_template_info", "Information about analysis templates.")
	templateMetricInfo = desc("analysis_template_metric_info", "Information on metrics in analysis templates.", "type", "metric")

	experimentInfo  = desc("experiment_info", "Information about Experiment.", "phase")
	experimentPhase = desc("experiment_phase", "Information on the state of the experiment (DEPRECATED - use experiment_info)", "phase")
)

// The values rollout_phase reports one gauge for each, in upstream's order.
var rolloutPhases = []string{"Completed", "Progressing", "Paused", "Timeout", "Error", "Abort"}

// The analysis phases analysis_run_phase and analysis_run_metric_phase
// report, and the experiment phases experiment_phase reports.
var (
	runPhases        = []string{"Pending", "Error", "Failed", "Successful", "Running", "Inconclusive"}
	experimentPhases = []string{"Pending", "Error", "Successful", "Running", "Inconclusive"}
)

// Objects collects the per-object gauges from the informer cache at scrape
// time.
type Objects struct {
	Cache client.Reader
}

func (o *Objects) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{rolloutInfo, rolloutAvailable, rolloutUnavailable, rolloutDesired, rolloutUpdated, rolloutPhase,
		runInfo, runPhase, runMetricType, runMetricPhase, templateInfo, templateMetricInfo, experimentInfo, experimentPhase} {
		ch <- d
	}
}

func (o *Objects) Collect(ch chan<- prometheus.Metric) {
	ctx := context.Background()
	logger := log.Log.WithName("metrics")
	nocopy := client.UnsafeDisableDeepCopy
	var ros rampv1.RolloutList
	if err := o.Cache.List(ctx, &ros, nocopy); err != nil {
		logger.Error(err, "collect rollouts")
	}
	for i := range ros.Items {
		collectRollout(ch, &ros.Items[i])
	}
	var runs rampv1.AnalysisRunList
	if err := o.Cache.List(ctx, &runs, nocopy); err != nil {
		logger.Error(err, "collect analysis runs")
	}
	for i := range runs.Items {
		collectRun(ch, &runs.Items[i])
	}
	var ats rampv1.AnalysisTemplateList
	if err := o.Cache.List(ctx, &ats, nocopy); err != nil {
		logger.Error(err, "collect analysis templates")
	}
	for i := range ats.Items {
		collectTemplate(ch, ats.Items[i].Namespace, ats.Items[i].Name, ats.Items[i].Spec.Metrics)
	}
	var cats rampv1.ClusterAnalysisTemplateList
	if err := o.Cache.List(ctx, &cats, nocopy); err != nil {
		logger.Error(err, "collect cluster analysis templates")
	}
	for i := range cats.Items {
		collectTemplate(ch, "", cats.Items[i].Name, cats.Items[i].Spec.Metrics)
	}
	var exs rampv1.ExperimentList
	if err := o.Cache.List(ctx, &exs, nocopy); err != nil {
		logger.Error(err, "collect experiments")
	}
	for i := range exs.Items {
		collectExperiment(ch, &exs.Items[i])
	}
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func collectRollout(ch chan<- prometheus.Metric, ro *rampv1.Rollout) {
	ns, name := ro.Namespace, ro.Name
	strategy, router := StrategyAndRouter(ro)
	phase := RolloutPhase(ro)
	gauge(ch, rolloutInfo, 1, ns, name, strategy, router, phase)
	gauge(ch, rolloutAvailable, float64(ro.Status.AvailableReplicas), ns, name)
	gauge(ch, rolloutUnavailable, float64(ro.Status.Replicas-ro.Status.AvailableReplicas), ns, name)
	desired := int32(1)
	if ro.Spec.Replicas != nil {
		desired = *ro.Spec.Replicas
	}
	gauge(ch, rolloutDesired, float64(desired), ns, name)
	gauge(ch, rolloutUpdated, float64(ro.Status.UpdatedReplicas), ns, name)
	for _, p := range rolloutPhases {
		gauge(ch, rolloutPhase, one(phase == p), ns, name, strategy, p)
	}
}

// RolloutPhase is upstream's metric phase of a Rollout: from the
// Progressing condition's reason, InvalidSpec whenever that condition is
// present.
func RolloutPhase(ro *rampv1.Rollout) string {
	phase := "Progressing"
	for _, c := range ro.Status.Conditions {
		if c.Type == rampv1.RolloutInvalidSpec {
			return rampv1.RolloutReasonInvalidSpec
		}
	}
	for _, c := range ro.Status.Conditions {
		if c.Type != rampv1.RolloutProgressing {
			continue
		}
		switch c.Reason {
		case rampv1.RolloutReasonNewReplicaSetAvailable:
			phase = "Completed"
		case rampv1.RolloutReasonPaused:
			phase = "Paused"
		case rampv1.RolloutReasonReplicaSetCreateError:
			phase = "Error"
		case rampv1.RolloutReasonProgressDeadlineExceeded:
			phase = "Timeout"
		case rampv1.RolloutReasonAborted:
			phase = "Abort"
		}
	}
	return phase
}

// StrategyAndRouter are the strategy and traffic_router labels: the
// strategy's name ("none" without one) and, for a canary, the last of the
// routers upstream names (ALB, Ambassador, Istio, Nginx, SMI, AppMesh) that
// the spec configures, "" for others (plugins such as Gateway API).
func StrategyAndRouter(ro *rampv1.Rollout) (string, string) {
	s := ro.Spec.Strategy
	switch {
	case s.BlueGreen != nil:
		return "blueGreen", ""
	case s.Canary == nil:
		return "none", ""
	}
	tr, router := s.Canary.TrafficRouting, ""
	if tr == nil {
		return "canary", ""
	}
	for _, r := range []struct {
		set  bool
		name string
	}{{tr.ALB != nil, "ALB"}, {tr.Ambassador != nil, "Ambassador"}, {tr.Istio != nil, "Istio"}, {tr.Nginx != nil, "Nginx"},
		{tr.SMI != nil, "SMI"}, {tr.AppMesh != nil, "AppMesh"}} {
		if r.set {
			router = r.name
		}
	}
	return "canary", router
}

func collectRun(ch chan<- prometheus.Metric, ar *rampv1.AnalysisRun) {
	ns, name, phase := ar.Namespace, ar.Name, string(ar.Status.Phase)
	gauge(ch, runInfo, 1, ns, name, phase)
	for _, p := range runPhases {
		gauge(ch, runPhase, one(phase == p || (p == "Pending" && phase == "")), ns, name, p)
	}
	for _, m := range ar.Spec.Metrics {
		typ := MetricType(m.Provider)
		gauge(ch, runMetricType, 1, ns, name, m.Name, typ)
		var mp string
		for _, r := range ar.Status.MetricResults {
			if r.Name == m.Name {
				mp = string(r.Phase)
			}
		}
		dry := strconv.FormatBool(rampv1.IsDryRunMetric(ar.Spec.DryRun, m.Name))
		for _, p := range runPhases {
			gauge(ch, runMetricPhase, one(mp == p || (p == "Pending" && mp == "")), ns, name, m.Name, typ, dry, p)
		}
	}
}

func collectTemplate(ch chan<- prometheus.Metric, ns, name string, metrics []rampv1.Metric) {
	gauge(ch, templateInfo, 1, ns, name)
	for _, m := range metrics {
		gauge(ch, templateMetricInfo, 1, ns, name, MetricType(m.Provider), m.Name)
	}
}

func collectExperiment(ch chan<- prometheus.Metric, ex *rampv1.Experiment) {
	ns, name, phase := ex.Namespace, ex.Name, string(ex.Status.Phase)
	gauge(ch, experimentInfo, 1, ns, name, phase)
	for _, p := range experimentPhases {
		gauge(ch, experimentPhase, one(phase == p || (p == "Pending" && phase == "")), ns, name, p)
	}
}

// MetricType is upstream's type label of a metric's provider: the first
// provider set in upstream's order, "Unknown Provider" for none.
func MetricType(p rampv1.MetricProvider) string {
	for _, t := range []struct {
		set  bool
		name string
	}{{p.Prometheus != nil, "Prometheus"}, {p.Job != nil, "Job"}, {p.Kayenta != nil, "Kayenta"}, {p.Web != nil, "Web"},
		{p.Datadog != nil, "Datadog"}, {p.Wavefront != nil, "Wavefront"}, {p.NewRelic != nil, "NewRelic"},
		{p.CloudWatch != nil, "CloudWatch"}, {p.Graphite != nil, "Graphite"}, {p.Influxdb != nil, "Influxdb"},
		{p.SkyWalking != nil, "skywalking"}, {p.Judge != nil, "Judge"}, {len(p.Plugin) > 0, "RPCPlugin"}} {
		if t.set {
			return t.name
		}
	}
	return "Unknown Provider"
}
