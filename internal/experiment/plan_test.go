package experiment

import (
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// sim runs an Experiment through the planner: ReplicaSets take the size
// asked for and are available on the next pass when ready is set; runs are
// created Running and keep the phase the test gives them.
type sim struct {
	t     *testing.T
	ex    *rampv1.Experiment
	now   time.Time
	rs    map[string]ReplicaSet
	runs  map[string]Run
	ready bool
	last  Output
}

func newSim(t *testing.T, mutate func(*rampv1.ExperimentSpec)) *sim {
	tmpl := func(name string) rampv1.TemplateSpec {
		l := map[string]string{"app": "web", "color": name}
		return rampv1.TemplateSpec{Name: name, Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(l)},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}}}
	}
	ex := &rampv1.Experiment{ObjectMeta: metav1.ObjectMeta{Name: "exp", CreationTimestamp: metav1.NewTime(t0)},
		Spec: rampv1.ExperimentSpec{Templates: []rampv1.TemplateSpec{tmpl("baseline"), tmpl("canary")}, Duration: "1m",
			ScaleDownDelaySeconds: ptr.To(int32(5)),
			Analyses:              []rampv1.ExperimentAnalysisTemplateRef{{Name: "a", TemplateName: "t"}, {Name: "b", TemplateName: "t"}}}}
	ex.Spec.Templates[1].Replicas = ptr.To(int32(2))
	if mutate != nil {
		mutate(&ex.Spec)
	}
	return &sim{t: t, ex: ex, now: t0, rs: map[string]ReplicaSet{}, runs: map[string]Run{}, ready: true}
}

// pass plans once and makes the plan true.
func (s *sim) pass() Output {
	in := Input{Experiment: s.ex.DeepCopy(), Now: s.now, ReplicaSets: map[string]ReplicaSet{}, Runs: map[string]Run{}}
	in.Invalid = Validate(s.ex)
	for k, v := range s.rs {
		in.ReplicaSets[k] = v
	}
	for k, v := range s.runs {
		in.Runs[k] = v
	}
	out := Plan(in)
	for _, name := range out.Create {
		s.rs[name] = ReplicaSet{Name: "exp-" + name, Hash: "h-" + name}
	}
	for name, n := range out.Scale {
		rs := s.rs[name]
		switch { // the controller's annotation, as upstream's
		case out.ScaleDownDeadline.IsZero():
			rs.ScaleDownAt = time.Time{}
		case n > 0 && rs.ScaleDownAt.IsZero():
			rs.ScaleDownAt = out.ScaleDownDeadline
		}
		rs.Spec = n
		if s.ready {
			rs.Replicas, rs.Ready, rs.Available = n, n, n
		}
		s.rs[name] = rs
	}
	for _, a := range out.Start {
		s.runs[a] = Run{Name: "exp-" + a, Phase: rampv1.AnalysisPhaseRunning}
	}
	for _, a := range out.Terminate {
		r := s.runs[a]
		r.Phase = rampv1.AnalysisPhaseSuccessful // a terminated run ends Successful
		s.runs[a] = r
	}
	s.ex.Status = out.Status
	s.last = out
	return out
}

func (s *sim) sizes() string {
	return "baseline=" + itoa(s.rs["baseline"].Spec) + " canary=" + itoa(s.rs["canary"].Spec)
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

func (s *sim) expect(phase rampv1.AnalysisPhase, sizes string) {
	s.t.Helper()
	if s.ex.Status.Phase != phase || s.sizes() != sizes {
		s.t.Fatalf("at %s: phase %s (%s), %s; want %s, %s", s.now.Sub(t0), s.ex.Status.Phase, s.ex.Status.Message, s.sizes(), phase, sizes)
	}
}

func TestExperimentLifecycle(t *testing.T) {
	s := newSim(t, nil)
	s.ready = false
	out := s.pass()
	if !slices.Equal(out.Create, []string{"baseline", "canary"}) || len(out.Start) != 0 {
		t.Fatalf("first pass: create %v, start %v", out.Create, out.Start)
	}
	s.expect(rampv1.AnalysisPhasePending, "baseline=1 canary=2")
	if out.RequeueAfter != 600*time.Second {
		t.Errorf("requeue %s, want the progress deadline (600s)", out.RequeueAfter)
	}
	s.ready, s.now = true, t0.Add(3*time.Second)
	s.pass() // sizes become available
	out = s.pass()
	s.expect(rampv1.AnalysisPhaseRunning, "baseline=1 canary=2")
	if got := s.ex.Status.AvailableAt; got == nil || !got.Time.Equal(s.now) {
		t.Errorf("availableAt %v, want %s", got, s.now)
	}
	if c := s.ex.Status.Conditions; len(c) != 1 || c[0].Reason != "NewReplicaSetAvailable" {
		t.Errorf("conditions %+v, want Progressing NewReplicaSetAvailable once running (upstream's reason)", c)
	}
	if !slices.Equal(out.Start, []string{"a", "b"}) || out.RequeueAfter != time.Minute {
		t.Errorf("start %v requeue %s, want both analyses and the duration", out.Start, out.RequeueAfter)
	}
	s.pass()
	if ts := s.ex.Status.TemplateStatuses; len(ts) != 2 || ts[1].Status != rampv1.TemplateStatusRunning || ts[1].AvailableReplicas != 2 || ts[1].PodTemplateHash != "h-canary" {
		t.Errorf("template statuses %+v", ts)
	}
	if ar := s.ex.Status.AnalysisRuns; len(ar) != 2 || ar[0].AnalysisRun != "exp-a" || ar[0].Phase != rampv1.AnalysisPhaseRunning {
		t.Errorf("analysis runs %+v", ar)
	}

	s.now = s.now.Add(time.Minute)
	out = s.pass()
	s.expect(rampv1.AnalysisPhaseSuccessful, "baseline=1 canary=2")
	if s.ex.Status.Message != "" {
		t.Errorf("message %q after the duration, want none (as upstream)", s.ex.Status.Message)
	}
	if want := s.now.Add(5 * time.Second); !out.ScaleDownDeadline.Equal(want) {
		t.Errorf("scale-down deadline %s, want %s (the verdict plus the delay)", out.ScaleDownDeadline, want)
	}
	if !slices.Equal(out.Terminate, []string{"a", "b"}) || out.RequeueAfter != 5*time.Second {
		t.Errorf("terminate %v requeue %s, want the runs stopped and the scale-down delay", out.Terminate, out.RequeueAfter)
	}
	s.now = s.now.Add(5 * time.Second)
	s.pass()
	s.expect(rampv1.AnalysisPhaseSuccessful, "baseline=0 canary=0")
	if ts := s.ex.Status.TemplateStatuses; ts[0].Status != rampv1.TemplateStatusSuccessful {
		t.Errorf("template status %s, want Successful", ts[0].Status)
	}
}

func TestExperimentVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mutate  func(*rampv1.ExperimentSpec)
		run     func(s *sim) // after Running
		want    rampv1.AnalysisPhase
		message string
	}{{
		name: "a failed run fails it at once",
		run: func(s *sim) {
			s.runs["b"] = Run{Name: "exp-b", Phase: rampv1.AnalysisPhaseFailed, Message: "metric m assessed Failed"}
		},
		want: rampv1.AnalysisPhaseFailed, message: `metric m assessed Failed`,
	}, {
		name: "an erroring run ends it in Error",
		run:  func(s *sim) { s.runs["a"] = Run{Name: "exp-a", Phase: rampv1.AnalysisPhaseError, Message: "boom"} },
		want: rampv1.AnalysisPhaseError, message: `boom`,
	}, {
		name:   "required analysis without duration: complete when it succeeds",
		mutate: func(sp *rampv1.ExperimentSpec) { sp.Duration, sp.Analyses[0].RequiredForCompletion = "", true },
		run:    func(s *sim) { s.runs["a"] = Run{Name: "exp-a", Phase: rampv1.AnalysisPhaseSuccessful} },
		want:   rampv1.AnalysisPhaseSuccessful, message: "",
	}, {
		name:   "terminate",
		mutate: func(sp *rampv1.ExperimentSpec) { sp.Duration = "" },
		run:    func(s *sim) { s.ex.Spec.Terminate = true },
		want:   rampv1.AnalysisPhaseSuccessful, message: "",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, tc.mutate)
			s.pass()
			s.pass()
			s.expect(rampv1.AnalysisPhaseRunning, "baseline=1 canary=2")
			tc.run(s)
			s.now = s.now.Add(time.Second)
			s.pass()
			if s.ex.Status.Phase != tc.want || s.ex.Status.Message != tc.message {
				t.Fatalf("phase %s %q, want %s %q", s.ex.Status.Phase, s.ex.Status.Message, tc.want, tc.message)
			}
			s.now = s.now.Add(5 * time.Second)
			s.pass()
			s.pass()
			s.expect(tc.want, "baseline=0 canary=0")
			for name, r := range s.runs {
				if !r.Phase.Completed() {
					t.Errorf("run %s still %s", name, r.Phase)
				}
			}
		})
	}
}

func TestExperimentNoDurationRunsUntilTerminated(t *testing.T) {
	s := newSim(t, func(sp *rampv1.ExperimentSpec) { sp.Duration = "" })
	s.pass()
	s.pass()
	s.now = s.now.Add(24 * time.Hour)
	out := s.pass()
	s.expect(rampv1.AnalysisPhaseRunning, "baseline=1 canary=2")
	if out.RequeueAfter != 0 {
		t.Errorf("requeue %s with nothing timed", out.RequeueAfter)
	}
}

func TestExperimentProgressDeadline(t *testing.T) {
	s := newSim(t, func(sp *rampv1.ExperimentSpec) { sp.ProgressDeadlineSeconds = ptr.To(int32(30)) })
	s.ready = false
	s.pass()
	s.now = t0.Add(29 * time.Second)
	if out := s.pass(); s.ex.Status.Phase != rampv1.AnalysisPhasePending || out.RequeueAfter != time.Second {
		t.Fatalf("before the deadline: %s, requeue %s", s.ex.Status.Phase, out.RequeueAfter)
	}
	s.now = t0.Add(30 * time.Second)
	s.pass()
	want := "templates [baseline canary] did not become available within progressDeadlineSeconds (30s)"
	if s.ex.Status.Phase != rampv1.AnalysisPhaseFailed || s.ex.Status.Message != want {
		t.Fatalf("phase %s %q, want Failed %q", s.ex.Status.Phase, s.ex.Status.Message, want)
	}
}

func TestExperimentInvalid(t *testing.T) {
	s := newSim(t, func(sp *rampv1.ExperimentSpec) { sp.Duration = "soon" })
	out := s.pass()
	want := `spec.duration: "soon" is not a positive duration (e.g. 30s, 20m, 1h)`
	if len(out.Create) != 0 || s.ex.Status.Phase != rampv1.AnalysisPhaseError || s.ex.Status.Message != want {
		t.Fatalf("create %v, phase %s %q; want nothing created, Error %q", out.Create, s.ex.Status.Phase, s.ex.Status.Message, want)
	}
	c := condition(&s.ex.Status, rampv1.InvalidExperimentSpec)
	if c == nil || c.Status != corev1.ConditionTrue || c.Message != want {
		t.Errorf("InvalidSpec condition %+v", c)
	}
	if again := s.pass(); len(again.Events) != 0 {
		t.Errorf("events repeated: %+v", again.Events)
	}
}

func TestValidate(t *testing.T) {
	good := func() *rampv1.Experiment { return newSim(t, nil).ex }
	for _, tc := range []struct {
		name   string
		mutate func(*rampv1.ExperimentSpec)
		want   string
	}{
		{"valid", func(*rampv1.ExperimentSpec) {}, ""},
		{"no templates", func(s *rampv1.ExperimentSpec) { s.Templates = nil }, "spec.templates: at least one template is required"},
		{"duplicate template", func(s *rampv1.ExperimentSpec) { s.Templates[1].Name = "baseline" },
			`spec.templates[1].name: "baseline" is used by another template`},
		{"selector mismatch", func(s *rampv1.ExperimentSpec) { s.Templates[0].Selector.MatchLabels["color"] = "x" },
			`spec.templates[0].selector "app=web,color=x" does not match spec.templates[0].template.metadata.labels`},
		{"no selector", func(s *rampv1.ExperimentSpec) { s.Templates[0].Selector = nil },
			"spec.templates[0].selector: required, and must not select every pod"},
		{"negative replicas", func(s *rampv1.ExperimentSpec) { s.Templates[0].Replicas = ptr.To(int32(-1)) },
			"spec.templates[0].replicas: -1 must not be negative"},
		{"negative minReadySeconds", func(s *rampv1.ExperimentSpec) { s.Templates[1].MinReadySeconds = -1 },
			"spec.templates[1].minReadySeconds: -1 must not be negative"},
		{"negative progressDeadlineSeconds", func(s *rampv1.ExperimentSpec) { s.ProgressDeadlineSeconds = ptr.To(int32(-1)) },
			"spec.progressDeadlineSeconds: -1 must not be negative"},
		{"negative scaleDownDelaySeconds", func(s *rampv1.ExperimentSpec) { s.ScaleDownDelaySeconds = ptr.To(int32(-30)) },
			"spec.scaleDownDelaySeconds: -30 must not be negative"},
		{"duplicate analysis", func(s *rampv1.ExperimentSpec) { s.Analyses[1].Name = "a" },
			`spec.analyses[1].name: "a" is used by another analysis`},
		{"no templateName", func(s *rampv1.ExperimentSpec) { s.Analyses[0].TemplateName = "" }, "spec.analyses[0].templateName: required"},
		// The pod template, as the API server checks a ReplicaSet's, under the template's own path.
		{"container name", func(s *rampv1.ExperimentSpec) { s.Templates[1].Template.Spec.Containers[0].Name = "REPLACEME" },
			`spec.templates[1].template.spec.containers[0].name: Invalid value: "REPLACEME": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{"no containers", func(s *rampv1.ExperimentSpec) { s.Templates[0].Template.Spec.Containers = nil },
			"spec.templates[0].template.spec.containers: Required value"},
		{"restartPolicy", func(s *rampv1.ExperimentSpec) { s.Templates[0].Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			`spec.templates[0].template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := good()
			tc.mutate(&ex.Spec)
			if got := Validate(ex); got != tc.want {
				t.Errorf("Validate = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestExperimentServices: a template with service gets its Service while the
// Experiment runs (none is created once it is over); the status names it.
func TestExperimentServices(t *testing.T) {
	s := newSim(t, func(sp *rampv1.ExperimentSpec) { sp.Templates[1].Service = &rampv1.TemplateService{} })
	out := s.pass()
	if !out.Services["canary"] || out.Services["baseline"] {
		t.Fatalf("services %v, want canary's only", out.Services)
	}
	in := Input{Experiment: s.ex.DeepCopy(), Now: s.now, ReplicaSets: s.rs, Runs: s.runs, Services: map[string]string{"canary": "exp-canary"}}
	if got := Plan(in).Status.TemplateStatuses[1].ServiceName; got != "exp-canary" {
		t.Errorf("serviceName %q, want exp-canary", got)
	}
	s.ex.Spec.Terminate = true
	s.pass()
	if out := s.pass(); out.Services["canary"] {
		t.Errorf("a Service is still asked for once the Experiment is over: %v", out.Services)
	}
}
