package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

var fake struct {
	once sync.Once
	path string
	err  error
}

// fakePlugin builds testdata/fakeplugin once per test binary and returns
// the binary's path.
func fakePlugin(t *testing.T) string {
	t.Helper()
	fake.once.Do(func() {
		dir, err := os.MkdirTemp("", "ramp-fakeplugin-")
		if err != nil {
			fake.err = err
			return
		}
		fake.path = filepath.Join(dir, "fakeplugin")
		out, err := exec.Command("go", "build", "-o", fake.path, "./testdata/fakeplugin").CombinedOutput()
		if err != nil {
			fake.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if fake.err != nil {
		t.Fatal(fake.err)
	}
	return fake.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	StopAll()
	if fake.path != "" {
		_ = os.RemoveAll(filepath.Dir(fake.path))
	}
	os.Exit(code)
}

// startFake installs the fake plugin (file://, SHA-256 checked) and
// returns its provider, stopped at the end of the test.
func startFake(t *testing.T) *Provider {
	t.Helper()
	bin := fakePlugin(t)
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	path, err := Install(context.Background(), Item{Name: "ramp/fake", Location: "file://" + bin, Sha256: hex.EncodeToString(sum[:])}, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := New("ramp/fake", path, nil)
	t.Cleanup(p.Stop)
	return p
}

// fakeRequest is a request of run ns/run for a metric configuring the
// fake plugin with cfg.
func fakeRequest(cfg string) provider.Request {
	run := &rampv1.AnalysisRun{
		ObjectMeta: metav1.ObjectMeta{Name: "run", Namespace: "ns", Labels: map[string]string{"app": "web"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		Spec: rampv1.AnalysisRunSpec{Args: []rampv1.Argument{{Name: "a", Value: ptr.To("1")}, {Name: "s", ValueFrom: &rampv1.ValueFrom{}}}},
	}
	return provider.Request{Run: run, Metric: rampv1.Metric{
		Name:             "rate",
		SuccessCondition: "result > 0.9",
		Count:            ptr.To(intstr.FromInt32(3)),
		FailureLimit:     ptr.To(intstr.FromString("1")),
		Provider:         rampv1.MetricProvider{Plugin: map[string]apiextensionsv1.JSON{"ramp/fake": {Raw: []byte(cfg)}}},
	}}
}

// TestRun: a measurement goes to the plugin's Plugin.Run with what it
// reads of the run and the metric (name, conditions, limits of either
// kind, its configuration, literal args), and its answer, with
// GetMetadata's, comes back as the result.
func TestRun(t *testing.T) {
	p := startFake(t)
	res, err := p.Measure(context.Background(), fakeRequest(`{"phase":"Successful","value":"0.95","message":"ok"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Phase != rampv1.AnalysisPhaseSuccessful || res.Display != "0.95" || res.Message != "ok" {
		t.Errorf("result %+v", res)
	}
	want := map[string]string{
		"call": "Run", "metric": "rate", "successCondition": "result > 0.9", "count": "3", "failureLimit": "1",
		"runName": "ns/run", "runLabels": "map[app:web]", "args": "a=1", "metadataFor": "rate",
	}
	for k, v := range want {
		if res.Metadata[k] != v {
			t.Errorf("metadata[%s] = %q, want %q (all: %v)", k, res.Metadata[k], v, res.Metadata)
		}
	}
}

// TestPhases: Failed and Inconclusive are the plugin's verdicts; Error is
// an error carrying its message; Running is resumed with Plugin.Resume at
// the plugin's resumeAt, and a terminated run's measurement goes to
// Plugin.Terminate.
func TestPhases(t *testing.T) {
	p := startFake(t)
	ctx := context.Background()
	for _, phase := range []rampv1.AnalysisPhase{rampv1.AnalysisPhaseFailed, rampv1.AnalysisPhaseInconclusive} {
		res, err := p.Measure(ctx, fakeRequest(`{"phase":"`+string(phase)+`"}`))
		if err != nil || res.Phase != phase {
			t.Errorf("%s: %+v, %v", phase, res, err)
		}
	}
	_, err := p.Measure(ctx, fakeRequest(`{"phase":"Error","message":"query failed: 503"}`))
	if err == nil || err.Error() != "plugin ramp/fake: query failed: 503" {
		t.Errorf("Error phase: %v", err)
	}
	_, err = p.Measure(ctx, fakeRequest(`{"phase":"Weird"}`))
	if err == nil || !strings.Contains(err.Error(), `phase "Weird"`) {
		t.Errorf("unknown phase: %v", err)
	}

	before := time.Now()
	req := fakeRequest(`{"phase":"Running","value":"partial","resumeMS":60000}`)
	res, err := p.Measure(ctx, req)
	if err != nil || res.Phase != rampv1.AnalysisPhaseRunning || res.ResumeAt.Before(before.Add(50*time.Second)) {
		t.Fatalf("Running: %+v, %v", res, err)
	}
	req.InFlight = &rampv1.Measurement{Phase: rampv1.AnalysisPhaseRunning, Value: res.Display, Metadata: res.Metadata}
	res, err = p.Measure(ctx, req)
	if err != nil || res.Phase != rampv1.AnalysisPhaseSuccessful || res.Metadata["call"] != "Resume" || res.Metadata["inFlightValue"] != "partial" {
		t.Errorf("Resume: %+v, %v", res, err)
	}
	req.Terminate = true
	res, err = p.Measure(ctx, req)
	if err != nil || res.Metadata["call"] != "Terminate" || res.Metadata["inFlightValue"] != "partial" {
		t.Errorf("Terminate: %+v, %v", res, err)
	}
}

// TestCrashAndTimeout: a plugin that exits mid-call is an error and is
// started again for the next measurement; a call past the context's
// deadline is an error naming it, and the process goes on serving.
func TestCrashAndTimeout(t *testing.T) {
	p := startFake(t)
	ctx := context.Background()
	pid := func() string {
		t.Helper()
		res, err := p.Measure(ctx, fakeRequest(`{"phase":"Successful"}`))
		if err != nil || res.Phase != rampv1.AnalysisPhaseSuccessful || res.Metadata["pid"] == "" {
			t.Fatalf("measurement: %+v, %v", res, err)
		}
		return res.Metadata["pid"]
	}
	first := pid()
	if _, err := p.Measure(ctx, fakeRequest(`{"exit":true}`)); err == nil || !strings.Contains(err.Error(), "Plugin.Run") {
		t.Errorf("crash: %v", err)
	}
	second := pid()
	if second == first {
		t.Errorf("the plugin was not started again after it exited (pid %s)", first)
	}
	short, cancel := context.WithTimeoutCause(ctx, 300*time.Millisecond, fmt.Errorf("timed out after 300ms"))
	defer cancel()
	if _, err := p.Measure(short, fakeRequest(`{"phase":"Successful","sleepMS":2000}`)); err == nil || !strings.Contains(err.Error(), "timed out after 300ms") {
		t.Errorf("timeout: %v", err)
	}
	if third := pid(); third != second {
		t.Errorf("a timeout restarted the plugin (pid %s, then %s)", second, third)
	}
}

// TestWrongMetric: a metric that does not configure exactly this plugin
// is an error before any call.
func TestWrongMetric(t *testing.T) {
	p := New("ramp/fake", "/nonexistent", nil)
	for _, cfg := range []map[string]apiextensionsv1.JSON{nil, {"ramp/other": {Raw: []byte(`{}`)}}, {"ramp/fake": {Raw: []byte(`{}`)}, "ramp/other": {}}} {
		req := provider.Request{Metric: rampv1.Metric{Name: "m", Provider: rampv1.MetricProvider{Plugin: cfg}}}
		if _, err := p.Measure(context.Background(), req); err == nil || !strings.Contains(err.Error(), "plugin ramp/fake") {
			t.Errorf("%v: error %v", cfg, err)
		}
	}
	req := fakeRequest(`{}`)
	if _, err := p.Measure(context.Background(), req); err == nil || !strings.Contains(err.Error(), "starting plugin ramp/fake") {
		t.Errorf("missing binary: %v", err)
	}
}
