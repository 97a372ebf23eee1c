package rollout_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// finishRuns plays the AnalysisRun and Experiment controllers: a step run
// succeeds at once, a background run and an Experiment run until they are
// told to stop (then they succeed).
func finishRuns(t *testing.T, env *controllertest.Env) {
	ctx := context.Background()
	var runs rampv1.AnalysisRunList
	if err := env.API.List(ctx, &runs); err != nil {
		t.Fatal(err)
	}
	for i := range runs.Items {
		ar := &runs.Items[i]
		want := rampv1.AnalysisPhaseSuccessful
		if ar.Labels[rampv1.RolloutTypeLabel] == "Background" && !ar.Spec.Terminate {
			want = rampv1.AnalysisPhaseRunning
		}
		if ar.Status.Phase != want {
			ar.Status.Phase = want
			if err := env.API.Update(ctx, ar); err != nil {
				t.Fatal(err)
			}
		}
	}
	var exs rampv1.ExperimentList
	if err := env.API.List(ctx, &exs); err != nil {
		t.Fatal(err)
	}
	for i := range exs.Items {
		ex := &exs.Items[i]
		want := rampv1.AnalysisPhaseRunning
		if ex.Spec.Terminate {
			want = rampv1.AnalysisPhaseSuccessful
		}
		if ex.Status.Phase != want {
			ex.Status.Phase = want
			if err := env.API.Update(ctx, ex); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// state is what a converged run leaves, without times and counters of
// attempts: ReplicaSets and their sizes, Service selectors, runs and
// Experiments and whether they were stopped, the Deployment's size, pods,
// and the Rollout's status and finalizers.
func state(t *testing.T, env *controllertest.Env) string {
	ctx := context.Background()
	var b strings.Builder
	var rss appsv1.ReplicaSetList
	var svcs corev1.ServiceList
	var runs rampv1.AnalysisRunList
	var exs rampv1.ExperimentList
	var deps appsv1.DeploymentList
	var pods corev1.PodList
	for _, l := range []client.ObjectList{&rss, &svcs, &runs, &exs, &deps, &pods} {
		if err := env.API.List(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	for _, rs := range rss.Items {
		lines = append(lines, fmt.Sprintf("ReplicaSet %s %d", rs.Name, *rs.Spec.Replicas))
	}
	for _, s := range svcs.Items {
		lines = append(lines, fmt.Sprintf("Service %s %v", s.Name, s.Spec.Selector))
	}
	for _, ar := range runs.Items {
		lines = append(lines, fmt.Sprintf("AnalysisRun %s terminate=%v", ar.Name, ar.Spec.Terminate))
	}
	for _, ex := range exs.Items {
		lines = append(lines, fmt.Sprintf("Experiment %s terminate=%v", ex.Name, ex.Spec.Terminate))
	}
	for _, d := range deps.Items {
		lines = append(lines, fmt.Sprintf("Deployment %s %d", d.Name, *d.Spec.Replicas))
	}
	roles := map[string]int{}
	for _, p := range pods.Items {
		roles[p.Labels["role"]]++
	}
	lines = append(lines, fmt.Sprintf("pods %d by role %v", len(pods.Items), roles))
	var ings networkingv1.IngressList
	if err := env.API.List(ctx, &ings); err != nil {
		t.Fatal(err)
	}
	for _, in := range ings.Items {
		lines = append(lines, fmt.Sprintf("Ingress %s weight=%s", in.Name, in.Annotations["nginx.ingress.kubernetes.io/canary-weight"]))
	}
	slices.Sort(lines)
	ro := &rampv1.Rollout{}
	switch err := env.API.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, ro); {
	case apierrors.IsNotFound(err):
		return strings.Join(append(lines, "Rollout gone"), "\n")
	case err != nil:
		t.Fatal(err)
	}
	s := ro.Status
	lines = append(lines, fmt.Sprintf("Rollout phase=%s %q stable=%s current=%s step=%v replicas=%d/%d/%d abort=%v restarted=%v finalizers=%v revision=%s",
		s.Phase, s.Message, s.StableRS, s.CurrentPodHash, deref(s.CurrentStepIndex), s.Replicas, s.AvailableReplicas, s.UpdatedReplicas,
		s.Abort, s.RestartedAt != nil, ro.Finalizers, ro.Annotations[rampv1.RevisionAnnotation]))
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}

func deref(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}
