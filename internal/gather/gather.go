// Package gather reads the objects a person sees of one Rollout: the
// Rollout, the ReplicaSets it controls, their pods, and the AnalysisRuns and
// Experiments it owns. `ramp get rollout` reads them from the API server and
// the dashboard from its informer cache, through the same code, so both show
// the same world. It reads no Secret and decides nothing: internal/view turns
// what it reads into display models.
package gather

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Objects are one Rollout and what belongs to it.
type Objects struct {
	Rollout     *rampv1.Rollout
	ReplicaSets []appsv1.ReplicaSet
	Pods        []corev1.Pod
	Runs        []rampv1.AnalysisRun
	Experiments []rampv1.Experiment
}

// Error is a read that failed, naming the verb and resource (as RBAC names
// them) so callers can say what was refused.
type Error struct {
	Verb, Resource, Namespace string
	Err                       error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s in namespace %q: %v", e.Verb, e.Resource, e.Namespace, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Rollout reads ns/name and what belongs to it.
func Rollout(ctx context.Context, c client.Reader, ns, name string) (*Objects, error) {
	o := &Objects{Rollout: &rampv1.Rollout{}}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, o.Rollout); err != nil {
		return nil, &Error{"get", "rollouts.argoproj.io", ns, err}
	}
	if sel := PodSelector(o.Rollout); sel != nil {
		rsl := &appsv1.ReplicaSetList{}
		if err := c.List(ctx, rsl, client.InNamespace(ns), sel); err != nil {
			return nil, &Error{"list", "replicasets.apps", ns, err}
		}
		uids := map[types.UID]bool{}
		for _, rs := range rsl.Items {
			if ref := metav1.GetControllerOf(&rs); ref != nil && ref.UID == o.Rollout.UID {
				o.ReplicaSets, uids[rs.UID] = append(o.ReplicaSets, rs), true
			}
		}
		pl := &corev1.PodList{}
		if err := c.List(ctx, pl, client.InNamespace(ns), sel); err != nil {
			return nil, &Error{"list", "pods", ns, err}
		}
		for _, p := range pl.Items {
			if ref := metav1.GetControllerOf(&p); ref != nil && uids[ref.UID] {
				o.Pods = append(o.Pods, p)
			}
		}
	}
	owned := func(refs []metav1.OwnerReference) bool {
		return slices.ContainsFunc(refs, func(ref metav1.OwnerReference) bool { return ref.UID == o.Rollout.UID })
	}
	arl := &rampv1.AnalysisRunList{}
	if err := c.List(ctx, arl, client.InNamespace(ns)); err != nil {
		return nil, &Error{"list", "analysisruns.argoproj.io", ns, err}
	}
	for _, ar := range arl.Items {
		if owned(ar.OwnerReferences) {
			o.Runs = append(o.Runs, ar)
		}
	}
	exl := &rampv1.ExperimentList{}
	if err := c.List(ctx, exl, client.InNamespace(ns)); err != nil {
		return nil, &Error{"list", "experiments.argoproj.io", ns, err}
	}
	for _, ex := range exl.Items {
		if owned(ex.OwnerReferences) {
			o.Experiments = append(o.Experiments, ex)
		}
	}
	return o, nil
}

// PodSelector is spec.selector as a list option; nil when it is missing or
// invalid (the controller reports that; there is nothing to list).
func PodSelector(ro *rampv1.Rollout) client.ListOption {
	if ro.Spec.Selector == nil {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(ro.Spec.Selector)
	if err != nil || sel.Empty() {
		return nil
	}
	return client.MatchingLabelsSelector{Selector: sel}
}
