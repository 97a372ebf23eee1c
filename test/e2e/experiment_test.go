//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// hashServer answers /check?hash=H with {"ok": <ok>} and records the hashes
// it was asked about.
type hashServer struct {
	*httptest.Server
	mu     sync.Mutex
	hashes []string
	ok     bool
}

func newHashServer(t *testing.T, ok bool) *hashServer {
	s := &hashServer{ok: ok}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hashes = append(s.hashes, r.URL.Query().Get("hash"))
		ok := s.ok
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"ok": %v}`, ok) // a failed write is the provider's error to report
	}))
	t.Cleanup(s.Close)
	return s
}

// answer sets what the server answers from now on.
func (s *hashServer) answer(ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ok = ok
}

func (s *hashServer) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hashes...)
}

// experimentYAML is an Experiment "exp" with templates baseline (1 pod) and
// canary (2 pods), run for duration, and an analysis "check" of the
// AnalysisTemplate "check" given the canary's pod-template hash.
func experimentYAML(duration, url string) string {
	tmpl := func(name string, replicas int, extra string) string {
		return fmt.Sprintf(`  - name: %[1]s
    replicas: %[2]d
    selector: {matchLabels: {app: exp, color: %[1]s}}
    template:
      metadata: {labels: {app: exp, color: %[1]s}}
      spec: {containers: [{name: app, image: "registry.example/app:%[1]s", ports: [{name: http, containerPort: 8080}]}]}
%[3]s`, name, replicas, extra)
	}
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: check}
spec:
  args: [{name: url}, {name: hash}]
  metrics:
  - name: ok
    successCondition: result == true
    provider:
      web: {url: "{{args.url}}/check?hash={{args.hash}}", jsonPath: "{$.ok}"}
---
apiVersion: argoproj.io/v1alpha1
kind: Experiment
metadata: {name: exp}
spec:
  duration: %s
  scaleDownDelaySeconds: 0
  templates:
%s%s  analyses:
  - name: check
    templateName: check
    args:
    - {name: url, value: %q}
    - {name: hash, value: "{{templates.canary.podTemplateHash}}"}
`, duration, tmpl("baseline", 1, ""), tmpl("canary", 2, "    service: {}\n"), url)
}

func getExperiment(ns, name string) (*rampv1.Experiment, error) {
	ex := &rampv1.Experiment{}
	return ex, env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, ex)
}

func waitExperiment(t *testing.T, ns, name string, timeout time.Duration, what string, cond func(*rampv1.Experiment) error) *rampv1.Experiment {
	t.Helper()
	var ex *rampv1.Experiment
	eventually(t, timeout, "experiment "+name+": "+what, func() error {
		var err error
		if ex, err = getExperiment(ns, name); err != nil {
			return err
		}
		return cond(ex)
	})
	return ex
}

func experimentPhase(phase rampv1.AnalysisPhase) func(*rampv1.Experiment) error {
	return func(ex *rampv1.Experiment) error {
		if ex.Status.Phase != phase {
			return fmt.Errorf("phase %q (%s)", ex.Status.Phase, ex.Status.Message)
		}
		return nil
	}
}

// experimentSizes waits until the Experiment's ReplicaSets have these sizes.
func experimentSizes(t *testing.T, ns string, want map[string]int32) map[string]*appsv1.ReplicaSet {
	t.Helper()
	got := map[string]*appsv1.ReplicaSet{}
	eventually(t, 60*time.Second, fmt.Sprintf("experiment ReplicaSets %v", want), func() error {
		for name, n := range want {
			var rs appsv1.ReplicaSet
			if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "exp-" + name}, &rs); err != nil {
				return err
			}
			if rs.Spec.Replicas == nil || *rs.Spec.Replicas != n || rs.Status.Replicas != n {
				return fmt.Errorf("%s: spec %v, %d pods", rs.Name, rs.Spec.Replicas, rs.Status.Replicas)
			}
			got[name] = &rs
		}
		return nil
	})
	return got
}

// TestExperiment runs an Experiment on the real control plane: both
// templates' ReplicaSets come up, the analysis runs once they are available
// with the canary's pod-template hash, the Experiment succeeds after its
// duration and scales its ReplicaSets to 0; a failing analysis fails it at
// once; a missing template is an Error naming the field, nothing created.
func TestExperiment(t *testing.T) {
	t.Parallel()
	t.Run("succeeds after its duration", func(t *testing.T) {
		t.Parallel()
		ns, srv := namespace(t, "exp-good"), newHashServer(t, true)
		apply(t, ns, experimentYAML("4s", srv.URL))
		rss := experimentSizes(t, ns, map[string]int32{"baseline": 1, "canary": 2})
		eventually(t, 30*time.Second, "the canary template's Service selects its pods", func() error {
			var svc corev1.Service
			if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "exp-canary"}, &svc); err != nil {
				return err
			}
			if h := svc.Spec.Selector[hashLabel]; h != rss["canary"].Labels[hashLabel] || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 8080 {
				return fmt.Errorf("selector %v ports %v", svc.Spec.Selector, svc.Spec.Ports)
			}
			return nil
		})
		running := waitExperiment(t, ns, "exp", 60*time.Second, "Running, the canary's Service in its status", func(ex *rampv1.Experiment) error {
			if err := experimentPhase(rampv1.AnalysisPhaseRunning)(ex); err != nil {
				return err
			}
			if ts := ex.Status.TemplateStatuses; len(ts) != 2 || ts[1].ServiceName != "exp-canary" || ts[0].ServiceName != "" {
				return fmt.Errorf("template statuses %+v, want serviceName exp-canary for canary only", ts)
			}
			return nil
		})
		ex := waitExperiment(t, ns, "exp", 60*time.Second, "Successful", experimentPhase(rampv1.AnalysisPhaseSuccessful))
		canaryHash := rss["canary"].Labels[hashLabel]
		if asked := srv.asked(); len(asked) != 1 || asked[0] != canaryHash {
			t.Errorf("the analysis asked about hashes %v, want [%s] (the canary template's)", asked, canaryHash)
		}
		if rss["canary"].Labels[hashLabel] == rss["baseline"].Labels[hashLabel] {
			t.Error("both templates got the same pod-template hash")
		}
		ran := ex.Status.Conditions[0].LastTransitionTime.Sub(running.Status.AvailableAt.Time)
		if ran < 4*time.Second-time.Second { // stored times have second resolution
			t.Errorf("completed %s after availableAt, before its 4s duration", ran)
		}
		if len(ex.Status.AnalysisRuns) != 1 || ex.Status.AnalysisRuns[0].Phase != rampv1.AnalysisPhaseSuccessful ||
			ex.Status.AnalysisRuns[0].AnalysisRun != "exp-check" {
			t.Errorf("analysisRuns %+v", ex.Status.AnalysisRuns)
		}
		for _, ts := range ex.Status.TemplateStatuses {
			if ts.Status != rampv1.TemplateStatusSuccessful || ts.PodTemplateHash == "" {
				t.Errorf("template %s: %+v", ts.Name, ts)
			}
		}
		experimentSizes(t, ns, map[string]int32{"baseline": 0, "canary": 0})
		// The Service stays, selecting no pods, until the Experiment is
		// deleted: the controller never deletes Services.
		var svc corev1.Service
		if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "exp-canary"}, &svc); err != nil {
			t.Fatal(err)
		}
		if ctl := metav1.GetControllerOf(&svc); ctl == nil || ctl.Kind != "Experiment" || ctl.Name != "exp" {
			t.Errorf("Service exp-canary owners %+v, want the Experiment (garbage collected with it)", svc.OwnerReferences)
		}
	})
	t.Run("a failing analysis fails it", func(t *testing.T) {
		t.Parallel()
		ns, srv := namespace(t, "exp-bad"), newHashServer(t, false)
		apply(t, ns, experimentYAML("1h", srv.URL))
		ex := waitExperiment(t, ns, "exp", 60*time.Second, "Failed", experimentPhase(rampv1.AnalysisPhaseFailed))
		if !strings.Contains(ex.Status.Message, `assessed Failed`) { // as upstream: the failing run's own message
			t.Errorf("message %q is not the failing run's", ex.Status.Message)
		}
		experimentSizes(t, ns, map[string]int32{"baseline": 0, "canary": 0})
	})
	t.Run("runs until terminated with ramp", func(t *testing.T) {
		t.Parallel()
		ns, srv := namespace(t, "exp-term"), newHashServer(t, true)
		apply(t, ns, experimentYAML(`""`, srv.URL))
		waitExperiment(t, ns, "exp", 60*time.Second, "Running", experimentPhase(rampv1.AnalysisPhaseRunning))
		if out, code := ramp(t, ns, "terminate", "experiment", "nope"); code != 1 || !strings.Contains(out, fmt.Sprintf(`experiment %q not found`, ns+"/nope")) {
			t.Errorf("terminate of an unknown experiment: exit %d\n%s", code, out)
		}
		mustRamp(t, ns, "terminate", "experiment", "exp")
		ex := waitExperiment(t, ns, "exp", 30*time.Second, "Successful", experimentPhase(rampv1.AnalysisPhaseSuccessful))
		if ex.Status.Message != "" { // as upstream: a successful Experiment has no message (the condition says why)
			t.Errorf("message %q, want none", ex.Status.Message)
		}
		if c := experimentCondition(ex); c == nil || c.Message != "Experiment was terminated" {
			t.Errorf("Progressing condition %+v, want the message \"Experiment was terminated\"", c)
		}
		experimentSizes(t, ns, map[string]int32{"baseline": 0, "canary": 0})
	})
	t.Run("missing template", func(t *testing.T) {
		t.Parallel()
		ns := namespace(t, "exp-invalid")
		m := experimentYAML("1m", "http://127.0.0.1:1")
		apply(t, ns, m[strings.Index(m, "---\n")+4:]) // without the AnalysisTemplate
		ex := waitExperiment(t, ns, "exp", 30*time.Second, "Error", experimentPhase(rampv1.AnalysisPhaseError))
		want := fmt.Sprintf(`spec.analyses[0]: AnalysisTemplate "check" not found in namespace %q`, ns)
		if ex.Status.Message != want {
			t.Errorf("message %q, want %q", ex.Status.Message, want)
		}
		var rss appsv1.ReplicaSetList
		if err := env.client.List(context.Background(), &rss, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if len(rss.Items) != 0 {
			t.Errorf("%d ReplicaSets created for an invalid Experiment", len(rss.Items))
		}
	})
}

// experimentRolloutYAML is a canary Rollout "web" whose step 1 is an
// experiment of the stable and the new pod templates, analysed by the
// AnalysisTemplate "check" of experimentYAML against the server at url.
func experimentRolloutYAML(url string) string {
	m := experimentYAML("1s", url)
	return m[:strings.Index(m, "---\n")+4] + rolloutYAML{name: "web", replicas: 2, canary: fmt.Sprintf(`steps:
- setWeight: 50
- experiment:
    duration: 3s
    scaleDownDelaySeconds: 0
    templates:
    - {name: baseline, specRef: stable}
    - {name: canary, specRef: canary, replicas: 2, metadata: {labels: {track: experiment}}}
    analyses:
    - name: check
      templateName: check
      args:
      - {name: url, value: %q}
      - {name: hash, value: "{{templates.canary.podTemplateHash}}"}
- setWeight: 100`, url)}.String()
}

// TestExperimentStep: a Rollout's experiment step runs an Experiment of the
// stable and new pod templates (named <rollout>-<hash>-<revision>-<step>,
// owned by the Rollout); a Successful Experiment lets the update go on to
// Healthy, a Failed one aborts it with the Experiment's verdict.
func TestExperimentStep(t *testing.T) {
	t.Parallel()
	for _, good := range []bool{true, false} {
		t.Run(map[bool]string{true: "successful", false: "failed"}[good], func(t *testing.T) {
			t.Parallel()
			ns, srv := namespace(t, "exp-step"), newHashServer(t, good)
			apply(t, ns, experimentRolloutYAML(srv.URL))
			v1 := waitHealthy(t, ns, "web", "", 2).Status.StableRS
			setImage(t, ns, "web", "app", "registry.example/app:v2")
			var name string
			ro := waitRollout(t, ns, "web", 60*time.Second, "running the experiment", func(ro *rampv1.Rollout) error {
				if name = ro.Status.Canary.CurrentExperiment; name == "" {
					return fmt.Errorf("no current experiment: %s", summary(ro))
				}
				return nil
			})
			if want := fmt.Sprintf("web-%s-2-1", ro.Status.CurrentPodHash); name != want {
				t.Errorf("experiment %q, want %q", name, want)
			}
			ex, err := getExperiment(ns, name)
			if err != nil {
				t.Fatal(err)
			}
			images := map[string]string{}
			for _, tmpl := range ex.Spec.Templates {
				images[tmpl.Name] = tmpl.Template.Spec.Containers[0].Image
			}
			if images["baseline"] != "registry.example/app:v1" || images["canary"] != "registry.example/app:v2" ||
				ex.Spec.Templates[1].Template.Labels["track"] != "experiment" {
				t.Errorf("experiment templates: images %v, canary labels %v", images, ex.Spec.Templates[1].Template.Labels)
			}
			if !metav1IsControlledByRollout(ex, ro) {
				t.Errorf("experiment owners %+v, want the Rollout", ex.OwnerReferences)
			}
			if out := mustRamp(t, ns, "get", "rollout", "web"); !strings.Contains(out, "Σ "+name) || !strings.Contains(out, "templates:baseline,canary") {
				t.Errorf("ramp get rollout does not show experiment %s:\n%s", name, out)
			}
			if good {
				waitHealthy(t, ns, "web", ro.Status.CurrentPodHash, 2)
				waitExperiment(t, ns, name, 10*time.Second, "Successful", experimentPhase(rampv1.AnalysisPhaseSuccessful))
				return
			}
			aborted := waitRollout(t, ns, "web", 60*time.Second, "aborted by the experiment", func(ro *rampv1.Rollout) error {
				if !ro.Status.Abort || ro.Status.Phase != rampv1.RolloutPhaseDegraded {
					return fmt.Errorf("not aborted: %s", summary(ro))
				}
				return nil
			})
			if !strings.Contains(aborted.Status.Message, "Experiment "+name+" Failed") || aborted.Status.StableRS != v1 {
				t.Errorf("message %q, stableRS %s; want the Experiment's verdict, %s still stable", aborted.Status.Message, aborted.Status.StableRS, v1)
			}
			eventually(t, 60*time.Second, "the experiment's ReplicaSets at 0", func() error {
				var rss appsv1.ReplicaSetList
				if err := env.client.List(context.Background(), &rss, client.InNamespace(ns)); err != nil {
					return err
				}
				rss.Items = slices.DeleteFunc(rss.Items, func(rs appsv1.ReplicaSet) bool { return rs.Annotations[rampv1.ExperimentNameAnnotation] != name })
				if len(rss.Items) != 2 {
					return fmt.Errorf("%d ReplicaSets", len(rss.Items))
				}
				for _, rs := range rss.Items {
					if *rs.Spec.Replicas != 0 {
						return fmt.Errorf("%s at %d", rs.Name, *rs.Spec.Replicas)
					}
				}
				return nil
			})
			// A retry runs a new Experiment, which passes this time.
			srv.answer(true)
			patchStatus(t, ns, "web", `{"status":{"abort":false}}`)
			waitHealthy(t, ns, "web", ro.Status.CurrentPodHash, 2)
			if _, err := getExperiment(ns, name+".1"); err != nil {
				t.Errorf("the retry's Experiment %s.1: %v", name, err)
			}
		})
	}
}

func metav1IsControlledByRollout(ex *rampv1.Experiment, ro *rampv1.Rollout) bool {
	for _, ref := range ex.OwnerReferences {
		if ref.Controller != nil && *ref.Controller && ref.UID == ro.UID {
			return true
		}
	}
	return false
}

// experimentCondition is the Experiment's Progressing condition, or nil.
func experimentCondition(ex *rampv1.Experiment) *rampv1.ExperimentCondition {
	for i := range ex.Status.Conditions {
		if ex.Status.Conditions[i].Type == rampv1.ExperimentProgressing {
			return &ex.Status.Conditions[i]
		}
	}
	return nil
}
