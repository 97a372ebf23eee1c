// Command fakeplugin is a metric provider plugin for the plugin package's
// tests, written as upstream's plugins are: hashicorp/go-plugin's net/rpc
// server with upstream's handshake, its provider dispensed as
// "RpcMetricProviderPlugin", and the RPC arguments decoded into types that
// have upstream's v1alpha1 field names and kinds (declared here, apart
// from the host's, with fields the host does not send). Its configuration
// (metric.provider.plugin["ramp/fake"]) says what to answer; it echoes what
// it received into the measurement's metadata.
package main

import (
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"net/rpc"
)

// Upstream's shapes (pkg/apis/rollouts/v1alpha1), partly.
type (
	AnalysisRun struct {
		metav1.TypeMeta
		metav1.ObjectMeta
		Spec   AnalysisRunSpec
		Status AnalysisRunStatus
	}
	AnalysisRunSpec struct {
		Metrics   []Metric
		Args      []Argument
		Terminate bool
	}
	AnalysisRunStatus struct {
		Phase   string
		Message string
	}
	Argument struct {
		Name      string
		Value     *string
		ValueFrom *struct{ PodTemplateHashValue *string }
	}
	Metric struct {
		Name                    string
		Interval                string
		InitialDelay            string
		Count                   *intstr.IntOrString
		SuccessCondition        string
		FailureCondition        string
		FailureLimit            *intstr.IntOrString
		InconclusiveLimit       *intstr.IntOrString
		ConsecutiveErrorLimit   *intstr.IntOrString
		Provider                MetricProvider
		ConsecutiveSuccessLimit *intstr.IntOrString
	}
	MetricProvider struct {
		Prometheus *struct{ Address, Query string }
		Web        *struct{ URL string }
		Plugin     map[string]json.RawMessage
	}
	Measurement struct {
		Phase      string
		Message    string
		StartedAt  *metav1.Time
		FinishedAt *metav1.Time
		Value      string
		Metadata   map[string]string
		ResumeAt   *metav1.Time
	}
	RpcError struct{ ErrorString string } //nolint:revive // upstream's name

	RunArgs struct {
		AnalysisRun *AnalysisRun
		Metric      Metric
	}
	TerminateAndResumeArgs struct {
		AnalysisRun *AnalysisRun
		Metric      Metric
		Measurement Measurement
	}
	GarbageCollectArgs struct {
		AnalysisRun *AnalysisRun
		Metric      Metric
		Limit       int
	}
	GetMetadataArgs struct{ Metric Metric }
)

// config is what a metric asks the fake to do.
type config struct {
	Phase    string `json:"phase"`
	Value    string `json:"value"`
	Message  string `json:"message"`
	Exit     bool   `json:"exit"`     // exit the process during Run
	SleepMS  int    `json:"sleepMS"`  // answer Run after this long
	ResumeMS int    `json:"resumeMS"` // with phase Running: resume after
}

type server struct{}

func (server) InitPlugin(_ any, resp *RpcError) error { *resp = RpcError{}; return nil }

func (server) Run(args any, resp *Measurement) error {
	a, ok := args.(*RunArgs)
	if !ok {
		return fmt.Errorf("Run: args %T", args)
	}
	*resp = answer("Run", a.AnalysisRun, a.Metric, nil)
	return nil
}

func (server) Resume(args any, resp *Measurement) error {
	a, ok := args.(*TerminateAndResumeArgs)
	if !ok {
		return fmt.Errorf("Resume: args %T", args)
	}
	*resp = answer("Resume", a.AnalysisRun, a.Metric, &a.Measurement)
	return nil
}

func (server) Terminate(args any, resp *Measurement) error {
	a, ok := args.(*TerminateAndResumeArgs)
	if !ok {
		return fmt.Errorf("Terminate: args %T", args)
	}
	m := a.Measurement
	m.Phase, m.Message = "Successful", "terminated by the host"
	m.Metadata = map[string]string{"call": "Terminate", "inFlightValue": a.Measurement.Value}
	*resp = m
	return nil
}

func (server) GarbageCollect(any, *RpcError) error { return nil }

func (server) Type(_ any, resp *string) error { *resp = "RPCPlugin"; return nil }

func (server) GetMetadata(args any, resp *map[string]string) error {
	a, ok := args.(*GetMetadataArgs)
	if !ok {
		return fmt.Errorf("GetMetadata: args %T", args)
	}
	*resp = map[string]string{"metadataFor": a.Metric.Name, "call": "overridden by Run's"}
	return nil
}

func answer(call string, run *AnalysisRun, m Metric, inFlight *Measurement) Measurement {
	now := metav1.Now()
	out := Measurement{StartedAt: &now, FinishedAt: &now}
	var c config
	if err := json.Unmarshal(m.Provider.Plugin["ramp/fake"], &c); err != nil {
		out.Phase, out.Message = "Error", "config: "+err.Error()
		return out
	}
	if c.Exit {
		os.Exit(3)
	}
	time.Sleep(time.Duration(c.SleepMS) * time.Millisecond)
	var args []string
	if run != nil {
		for _, a := range run.Spec.Args {
			if a.Value != nil {
				args = append(args, a.Name+"="+*a.Value)
			}
		}
	}
	out.Phase, out.Value, out.Message = c.Phase, c.Value, c.Message
	out.Metadata = map[string]string{
		"call":             call,
		"metric":           m.Name,
		"successCondition": m.SuccessCondition,
		"count":            str(m.Count),
		"failureLimit":     str(m.FailureLimit),
		"args":             strings.Join(args, ","),
		"pid":              fmt.Sprint(os.Getpid()),
	}
	if run != nil {
		out.Metadata["runName"] = run.Namespace + "/" + run.Name
		out.Metadata["runLabels"] = fmt.Sprint(run.Labels)
	}
	if inFlight != nil {
		out.Metadata["inFlightValue"] = inFlight.Value
		out.Phase = "Successful"
	}
	if c.Phase == "Running" && inFlight == nil {
		at := metav1.NewTime(now.Add(time.Duration(c.ResumeMS) * time.Millisecond))
		out.ResumeAt = &at
	}
	return out
}

func str(v *intstr.IntOrString) string {
	if v == nil {
		return "<nil>"
	}
	return v.String()
}

type rpcPlugin struct{}

func (rpcPlugin) Server(*goplugin.MuxBroker) (any, error) { return server{}, nil }

func (rpcPlugin) Client(*goplugin.MuxBroker, *rpc.Client) (any, error) {
	return nil, errors.New("plugin side only")
}

func main() {
	gob.RegisterName("RunArgs", new(RunArgs))
	gob.RegisterName("TerminateAndResumeArgs", new(TerminateAndResumeArgs))
	gob.RegisterName("GarbageCollectArgs", new(GarbageCollectArgs))
	gob.RegisterName("GetMetadataArgs", new(GetMetadataArgs))
	gob.RegisterName("RpcError", new(RpcError))
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: goplugin.HandshakeConfig{
			ProtocolVersion: 1, MagicCookieKey: "ARGO_ROLLOUTS_RPC_PLUGIN", MagicCookieValue: "metricprovider",
		},
		Plugins: goplugin.PluginSet{"RpcMetricProviderPlugin": rpcPlugin{}},
	})
}
