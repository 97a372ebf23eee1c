package plan

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// sim is a tiny pure model of the cluster for the planner: ReplicaSets whose
// pods become available at once, and a clock that jumps to each requeue.
type sim struct {
	t    *testing.T
	ro   *rampv1.Rollout
	rs   map[string]*ReplicaSet // by hash
	now  time.Time
	log  []string
	last string
	rev  int64
	plan func(Input) Output
	runs map[string]Run        // AnalysisRuns, by name
	hpas []string              // HPAs targeting the Rollout
	exps map[string]Experiment // Experiments, by name; created Running
}

func newSim(t *testing.T, replicas int32, steps ...rampv1.CanaryStep) *sim {
	ro := &rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 1}}
	ro.Spec.Replicas = &replicas
	ro.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{Steps: steps}
	return &sim{t: t, ro: ro, rs: map[string]*ReplicaSet{}, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), plan: Canary}
}

// run plans until nothing changes and no requeue is pending within limit.
func (s *sim) run(hash string, limit time.Duration) {
	end := s.now.Add(limit)
	for i := 0; i < 500 && !s.now.After(end); i++ {
		out := s.plan(s.input(hash))
		changed := s.apply(hash, out)
		s.record()
		if changed {
			s.now = s.now.Add(10 * time.Millisecond)
			continue
		}
		if out.RequeueAfter == 0 || out.RequeueAfter > limit {
			return
		}
		s.now = s.now.Add(out.RequeueAfter)
	}
}

func (s *sim) input(hash string) Input {
	in := Input{Rollout: s.ro, NewHash: hash, Now: s.now, Runs: s.runs, HPAs: s.hpas, Experiments: s.exps}
	for h, rs := range s.rs {
		switch {
		case h == hash:
			in.New = rs
		case h == s.ro.Status.StableRS:
			in.Stable = rs
		default:
			in.Others = append(in.Others, *rs)
		}
	}
	sort.Slice(in.Others, func(i, j int) bool { return in.Others[i].Name < in.Others[j].Name })
	return in
}

// apply makes the output true at once (pods available immediately).
func (s *sim) apply(hash string, out Output) bool {
	changed := false
	if out.CreateNew {
		s.rev++
		s.rs[hash] = &ReplicaSet{Name: "web-" + hash, Hash: hash, Revision: s.rev, Created: s.now}
		s.scale(s.rs[hash], out.NewReplicas)
		changed = true
	}
	for name, n := range out.Scale {
		for _, rs := range s.rs {
			if rs.Name == name {
				s.scale(rs, n)
				changed = true
			}
		}
	}
	for name, at := range out.ScaleDownAt {
		for _, rs := range s.rs {
			if rs.Name == name {
				rs.ScaleDownAt = at
				changed = true
			}
		}
	}
	changed = s.applyRuns(hash, &out) || changed
	changed = s.applyExperiments(hash, &out) || changed
	for _, e := range out.Events {
		if e.Reason != rampv1.RolloutReasonScalingReplicaSet {
			s.log = append(s.log, fmt.Sprintf("%6.2fs event %s", s.elapsed(), e.Reason))
		}
	}
	if !apiequality.Semantic.DeepEqual(out.Status, s.ro.Status) {
		changed = true
	}
	s.ro.Status = out.Status
	return changed
}

func (s *sim) scale(rs *ReplicaSet, n int32) {
	rs.Spec, rs.Replicas, rs.Ready, rs.Available = n, n, n, n
}

func (s *sim) elapsed() float64 {
	return s.now.Sub(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)).Seconds()
}

func (s *sim) record() {
	var parts []string
	for _, h := range []string{"v1", "v2", "v3"} {
		if rs := s.rs[h]; rs != nil {
			parts = append(parts, fmt.Sprintf("%s=%d", h, rs.Spec))
		}
	}
	st := s.ro.Status
	step := "-"
	if st.CurrentStepIndex != nil {
		step = fmt.Sprint(*st.CurrentStepIndex)
	}
	line := fmt.Sprintf("%s step=%s phase=%s stable=%s", strings.Join(parts, " "), step, st.Phase, st.StableRS)
	if bg := st.BlueGreen; bg.ActiveSelector != "" {
		line += fmt.Sprintf(" active=%s preview=%s", bg.ActiveSelector, bg.PreviewSelector)
	}
	if line != s.last {
		s.log = append(s.log, fmt.Sprintf("%6.2fs %s", s.elapsed(), line))
		s.last = line
	}
}

func (s *sim) expect(want string) {
	s.t.Helper()
	got := strings.Join(s.log, "\n")
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		s.t.Errorf("simulation log:\n%s\n\nwant:\n%s", got, want)
	}
	s.log = nil
}

func weight(w int32) rampv1.CanaryStep { return rampv1.CanaryStep{SetWeight: &w} }
func pauseFor(d string) rampv1.CanaryStep {
	v := intstr.Parse(d)
	return rampv1.CanaryStep{Pause: &rampv1.RolloutPause{Duration: &v}}
}
func pauseForever() rampv1.CanaryStep { return rampv1.CanaryStep{Pause: &rampv1.RolloutPause{}} }

// applyRuns creates and terminates AnalysisRuns as the reconciler and the
// AnalysisRun controller would: a new run is Running, a terminated one
// Successful.
func (s *sim) applyRuns(hash string, out *Output) bool {
	if s.runs == nil {
		s.runs = map[string]Run{}
	}
	for _, st := range out.StartRuns {
		name := fmt.Sprintf("web-%s-%s", hash, st.Type)
		if st.StepIndex != nil {
			name += fmt.Sprint(*st.StepIndex)
		}
		for n := 1; s.runs[name].Name != ""; n++ {
			name = fmt.Sprintf("%s.%d", strings.Split(name, ".")[0], n)
		}
		s.runs[name] = Run{Name: name, Type: st.Type, Hash: hash, StepIndex: st.StepIndex, Phase: rampv1.AnalysisPhaseRunning}
		ref := &rampv1.RolloutAnalysisRunStatus{Name: name, Status: rampv1.AnalysisPhasePending}
		switch st.Type {
		case RunStep:
			out.Status.Canary.CurrentStepAnalysisRunStatus = ref
		case RunBackground:
			out.Status.Canary.CurrentBackgroundAnalysisRunStatus = ref
		case RunPrePromotion:
			out.Status.BlueGreen.PrePromotionAnalysisRunStatus = ref
		case RunPostPromotion:
			out.Status.BlueGreen.PostPromotionAnalysisRunStatus = ref
		}
		s.log = append(s.log, fmt.Sprintf("%6.2fs run %s started", s.elapsed(), name))
	}
	for _, name := range out.TerminateRuns {
		run := s.runs[name]
		run.Terminating, run.Phase = true, rampv1.AnalysisPhaseSuccessful
		s.runs[name] = run
		s.log = append(s.log, fmt.Sprintf("%6.2fs run %s terminated", s.elapsed(), name))
	}
	return len(out.StartRuns)+len(out.TerminateRuns) > 0
}

// finish ends a run with phase and message, as its controller would.
func (s *sim) finish(name string, phase rampv1.AnalysisPhase, msg string) {
	s.t.Helper()
	run, ok := s.runs[name]
	if !ok {
		s.t.Fatalf("no run %s (have %v)", name, s.runs)
	}
	run.Phase, run.Message = phase, msg
	s.runs[name] = run
}

// applyExperiments creates the Experiment asked for (Running) and ends the
// ones terminated (Successful, as a terminated Experiment does).
func (s *sim) applyExperiments(hash string, out *Output) bool {
	changed := false
	if st := out.StartExperiment; st != nil {
		if s.exps == nil {
			s.exps = map[string]Experiment{}
		}
		name := fmt.Sprintf("web-%s-%d-%d", hash, s.rs[hash].Revision, st.StepIndex)
		for n := 1; s.exps[name].Name != ""; n++ {
			name = fmt.Sprintf("%s.%d", strings.Split(name, ".")[0], n)
		}
		s.exps[name] = Experiment{Name: name, Hash: hash, StepIndex: st.StepIndex, Phase: rampv1.AnalysisPhaseRunning}
		changed = true
	}
	for _, name := range out.TerminateExperiments {
		x := s.exps[name]
		x.Terminating, x.Phase = true, rampv1.AnalysisPhaseSuccessful
		s.exps[name] = x
		changed = true
	}
	return changed
}
