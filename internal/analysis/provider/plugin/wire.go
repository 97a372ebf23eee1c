package plugin

import (
	"encoding/gob"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// The arguments of upstream's metric plugin RPCs travel as gob-encoded
// interface values: gob sends the name each type is registered under and
// then matches struct fields by Go field name, so these types carry
// upstream's registered names ("RunArgs", ...) and field names
// (AnalysisRun, Metric, Measurement, Limit) and, below them, the field names
// and kinds of upstream's v1alpha1 types. They hold the subset of
// those types a plugin reads: gob leaves a field the sender does not send
// at its zero value, and fails on a field sent with another kind, so
// sending less is what keeps plugins built against other upstream versions
// working.
func init() {
	gob.RegisterName("RunArgs", new(runArgs))
	gob.RegisterName("TerminateAndResumeArgs", new(resumeArgs))
	gob.RegisterName("GarbageCollectArgs", new(gcArgs))
	gob.RegisterName("GetMetadataArgs", new(metadataArgs))
	gob.RegisterName("RpcError", new(rpcError))
}

type runArgs struct {
	AnalysisRun *wireRun
	Metric      wireMetric
}

type resumeArgs struct {
	AnalysisRun *wireRun
	Metric      wireMetric
	Measurement rampv1.Measurement
}

type gcArgs struct {
	AnalysisRun *wireRun
	Metric      wireMetric
	Limit       int
}

type metadataArgs struct {
	Metric wireMetric
}

// rpcError is upstream's types.RpcError: "" is no error.
type rpcError struct {
	ErrorString string
}

// wireRun is the part of an AnalysisRun a plugin gets: its object
// metadata (without managed fields) and the literal values of its args.
type wireRun struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Spec wireRunSpec
}

type wireRunSpec struct {
	Args []wireArg
}

type wireArg struct {
	Name  string
	Value *string
}

// wireMetric is upstream's v1alpha1.Metric without the providers other
// than plugin (a plugin reads its own configuration, and evaluates the
// conditions itself).
type wireMetric struct {
	Name                    string
	Interval                string
	InitialDelay            string
	Count                   *intstr.IntOrString
	SuccessCondition        string
	FailureCondition        string
	FailureLimit            *intstr.IntOrString
	InconclusiveLimit       *intstr.IntOrString
	ConsecutiveErrorLimit   *intstr.IntOrString
	ConsecutiveSuccessLimit *intstr.IntOrString
	Provider                wireProvider
}

// wireProvider is upstream's MetricProvider with only its Plugin field:
// a map of plugin name to raw JSON ([]byte, as json.RawMessage is).
type wireProvider struct {
	Plugin map[string]json.RawMessage
}

// toWireRun is what a plugin is told of run (nil for none).
func toWireRun(run *rampv1.AnalysisRun) *wireRun {
	if run == nil {
		return nil
	}
	w := &wireRun{TypeMeta: run.TypeMeta, ObjectMeta: *run.ObjectMeta.DeepCopy()}
	w.ManagedFields = nil
	for _, a := range run.Spec.Args {
		w.Spec.Args = append(w.Spec.Args, wireArg{Name: a.Name, Value: a.Value})
	}
	return w
}

// toWireMetric is m as upstream's type spells it.
func toWireMetric(m rampv1.Metric) wireMetric {
	w := wireMetric{
		Name:                    m.Name,
		Interval:                string(m.Interval),
		InitialDelay:            string(m.InitialDelay),
		Count:                   m.Count,
		SuccessCondition:        m.SuccessCondition,
		FailureCondition:        m.FailureCondition,
		FailureLimit:            m.FailureLimit,
		InconclusiveLimit:       m.InconclusiveLimit,
		ConsecutiveErrorLimit:   m.ConsecutiveErrorLimit,
		ConsecutiveSuccessLimit: m.ConsecutiveSuccessLimit,
	}
	if len(m.Provider.Plugin) > 0 {
		w.Provider.Plugin = make(map[string]json.RawMessage, len(m.Provider.Plugin))
		for name, cfg := range m.Provider.Plugin {
			w.Provider.Plugin[name] = json.RawMessage(cfg.Raw)
		}
	}
	return w
}
