package view

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/view -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (go test ./internal/view -update rewrites it)\n--- got:\n%s\n--- want:\n%s", name, path, got, want)
	}
}

func TestRenderGolden(t *testing.T) {
	for name, mk := range scenarios {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, mk().view(), false); err != nil {
				t.Fatal(err)
			}
			golden(t, name, b.Bytes())
		})
	}
}

func TestRenderRowsGolden(t *testing.T) {
	names := make([]string, 0, len(scenarios))
	for name := range scenarios {
		names = append(names, name)
	}
	sort.Strings(names)
	var rows []RolloutRow
	for _, name := range names {
		rows = append(rows, Row(scenarios[name]().ro))
	}
	var b bytes.Buffer
	if err := RenderRows(&b, rows, true); err != nil {
		t.Fatal(err)
	}
	golden(t, "list", b.Bytes())
}

var ansi = regexp.MustCompile("\033\\[[0-9;]*m")

// Colour changes no layout: without its escapes the coloured text is the
// plain text.
func TestRenderColor(t *testing.T) {
	for name, mk := range scenarios {
		var plain, colored bytes.Buffer
		v := mk().view()
		if err := Render(&plain, v, false); err != nil {
			t.Fatal(err)
		}
		if err := Render(&colored, v, true); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(plain.Bytes(), []byte("\033")) {
			t.Errorf("%s: escape codes without color", name)
		}
		if !ansi.Match(colored.Bytes()) {
			t.Errorf("%s: no escape codes with color", name)
		}
		if got := ansi.ReplaceAll(colored.Bytes(), nil); !bytes.Equal(got, plain.Bytes()) {
			t.Errorf("%s: colour changed the layout:\n%s", name, got)
		}
	}
}

func TestWeights(t *testing.T) {
	v := canaryPaused().view()
	if *v.SetWeight != 20 || *v.ActualWeight != 20 || v.Step != "1/4" {
		t.Errorf("canary paused: step %s set %d actual %d, want 1/4 20 20", v.Step, *v.SetWeight, *v.ActualWeight)
	}
	w := canaryPaused()
	w.ro.Status.CurrentStepIndex = nil
	w.ro.Spec.Strategy.Canary.Steps = nil
	w.ro.Status.StableRS = w.ro.Status.CurrentPodHash
	if v := w.view(); *v.SetWeight != 100 || *v.ActualWeight != 100 || v.Step != "" {
		t.Errorf("no steps: step %q set %d actual %d, want \"\" 100 100", v.Step, *v.SetWeight, *v.ActualWeight)
	}
	w = analysisFailed()
	w.ro.Status.Abort, w.ro.Status.CurrentStepIndex = false, ptr.To[int32](1)
	w.ro.Status.Canary.Weights.Canary.Weight = 10
	w.ro.Status.AvailableReplicas = 5
	if v := w.view(); *v.SetWeight != 10 || *v.ActualWeight != 10 {
		t.Errorf("router: set %d actual %d, want the router's 10 10", *v.SetWeight, *v.ActualWeight)
	}
	if v := blueGreenPreview().view(); v.SetWeight != nil || v.ActualWeight != nil || v.Step != "" {
		t.Errorf("blue-green has canary fields: %+v", v)
	}
}

func TestUnobservedGeneration(t *testing.T) {
	w := canaryPaused()
	w.ro.Generation = 5
	v := w.view()
	if v.Status.Name != "Progressing" || v.Message != "waiting for rollout spec update to be observed" {
		t.Errorf("got %s %q", v.Status, v.Message)
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 5 * time.Second: "5s", 59 * time.Second: "59s", 3 * time.Minute: "3m",
		2*time.Hour + 59*time.Minute: "2h", 47 * time.Hour: "47h", 72 * time.Hour: "3d", -time.Second: "0s",
	} {
		if got := Age(now.Add(-d), now); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
	if got := Age(time.Time{}, now); got != "" {
		t.Errorf("Age(zero) = %q", got)
	}
}

func TestPodStatus(t *testing.T) {
	term := func(code int32, reason string) corev1.ContainerState {
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason}}
	}
	cases := []struct {
		name string
		st   corev1.PodStatus
		want Status
	}{
		{"ready", runningPod(true, 0), Status{"Running", IconOK}},
		{"not ready", runningPod(false, 0), Status{"Running", IconProgressing}},
		{"creating", waitingPod("ContainerCreating", 0), Status{"ContainerCreating", IconProgressing}},
		{"crash", waitingPod("CrashLoopBackOff", 3), Status{"CrashLoopBackOff", IconBad}},
		{"pending", corev1.PodStatus{Phase: corev1.PodPending}, Status{"Pending", IconProgressing}},
		{"evicted", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"}, Status{"Evicted", IconBad}},
		{"exit", corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{State: term(2, "")}}}, Status{"ExitCode:2", IconBad}},
		{"init done", corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{{State: term(0, "Completed")}},
			ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}},
			Status{"ContainerCreating", IconProgressing}},
		{"init failed", corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{{State: term(1, "Error")}}}, Status{"Init:Error", IconBad}},
		{"init running", corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{{}}}, Status{"Init:Running", IconProgressing}},
	}
	for _, c := range cases {
		if got := podStatus(&corev1.Pod{Status: c.st}); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestAnalysisRunWithoutRevision(t *testing.T) {
	w := canaryPaused()
	w.runs[0].Annotations = nil
	w.runs[0].Labels = nil
	v := w.view()
	if len(v.AnalysisRuns) != 1 || v.AnalysisRuns[0].Name != "checkout-7b9c5d4f8-3" {
		t.Errorf("loose runs: %+v", v.AnalysisRuns)
	}
	w.runs[0].Labels = map[string]string{rampv1.DefaultRolloutUniqueLabelKey: "7b9c5d4f8"}
	if v := w.view(); len(v.AnalysisRuns) != 0 || len(v.Revisions[0].AnalysisRuns) != 1 {
		t.Errorf("run not placed by its hash: %+v", v.Revisions[0])
	}
}
