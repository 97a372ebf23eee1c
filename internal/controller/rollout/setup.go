package rollout

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/metrics"
	"github.com/ramp-rollouts/ramp/internal/plan"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// serviceIndex indexes Rollouts by the Services their strategy names.
const serviceIndex = ".spec.strategy.services"

// routeIndex indexes Rollouts by the route objects their traffic routers
// read ("<Kind>.<group>/<namespace>/<name>").
const routeIndex = ".spec.strategy.canary.trafficRouting.objects"

// servedRouteKinds resolves the kinds r's routers read and write (their
// traffic.Definition's Kinds) to the versions this cluster serves (at
// start: a router CRD installed later is watched after a controller
// restart; until then a Rollout using it reports the kind as not served).
func (r *Reconciler) servedRouteKinds(mgr ctrl.Manager) ([]schema.GroupVersionKind, error) {
	var names []string
	if r.Routers != nil {
		names = r.Routers.Names()
	}
	kinds, err := traffic.KindsOf(names)
	if err != nil {
		return nil, err
	}
	gks := make([]schema.GroupKind, 0, len(kinds))
	for _, k := range kinds {
		gks = append(gks, k.GroupKind)
	}
	return servedKinds(mgr.GetRESTMapper(), gks, mgr.GetLogger())
}

// servedKinds maps each kind to the version the API server serves. Only a
// kind the server does not serve (meta.IsNoMatchError: its CRD is not
// installed) is skipped, with a log line; any other error (discovery
// unreachable, forbidden) is returned, so that the manager fails to start
// with it instead of silently running without that kind's watch.
func servedKinds(mapper meta.RESTMapper, kinds []schema.GroupKind, log logr.Logger) ([]schema.GroupVersionKind, error) {
	var out []schema.GroupVersionKind
	for _, gk := range kinds {
		m, err := mapper.RESTMapping(gk)
		if meta.IsNoMatchError(err) {
			log.Info("traffic route kind not served; its router works after a restart once the CRD is installed", "kind", gk.String())
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("resolve traffic route kind %s: %w", gk, err)
		}
		out = append(out, m.GroupVersionKind)
	}
	return out, nil
}

func routeKey(gk schema.GroupKind, ns, name string) string {
	return gk.String() + "/" + ns + "/" + name
}

// routeKeys lists the route objects ro's routers read.
func (r *Reconciler) routeKeys(ro *rampv1.Rollout) []string {
	routers, _ := r.routersOf(ro) // an unknown router reads nothing; checkRouters reports it as InvalidSpec
	var keys []string
	for _, rt := range routers {
		if rt.Check(ro) != nil {
			continue
		}
		for _, ref := range rt.Refs(ro) {
			keys = append(keys, routeKey(ref.GVK.GroupKind(), ref.Namespace, ref.Name))
		}
	}
	return keys
}

// rolloutsForRoute enqueues the Rollout that controls a route object (a
// generated canary Ingress, a TrafficSplit) and those whose routers read it.
func (r *Reconciler) rolloutsForRoute(ctx context.Context, o client.Object) []reconcile.Request {
	var reqs []reconcile.Request
	if ref := metav1.GetControllerOf(o); ref != nil && ref.Kind == "Rollout" {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: o.GetNamespace(), Name: ref.Name}})
	}
	gk := o.GetObjectKind().GroupVersionKind().GroupKind()
	return append(reqs, r.rolloutsBy(ctx, "", routeIndex, routeKey(gk, o.GetNamespace(), o.GetName()))...)
}

// templateIndex indexes Rollouts by the analysis templates they reference
// (name, or "cluster/<name>" for a ClusterAnalysisTemplate).
const templateIndex = ".spec.strategy.analysisTemplates"

// Index is one field index the reconciler lists objects by.
type Index struct {
	Object  client.Object
	Field   string
	Extract client.IndexerFunc
}

// Indexes are the field indexes Reconcile and the watches list by, but the
// route index (it reads the routers): SetupWithManager registers them, and
// tests give them to a fake client.
func Indexes() []Index {
	ownedBy := func(o client.Object) []string {
		if ref := metav1.GetControllerOf(o); ref != nil && ref.Kind == "Rollout" {
			return []string{string(ref.UID)}
		}
		return nil
	}
	return []Index{
		{&appsv1.ReplicaSet{}, ownerIndex, ownedBy},
		{&rampv1.AnalysisRun{}, ownerIndex, ownedBy},
		{&rampv1.Experiment{}, ownerIndex, ownedBy},
		{&rampv1.Rollout{}, workloadIndex, func(o client.Object) []string { return workloadName(o.(*rampv1.Rollout)) }},
		{&rampv1.Rollout{}, serviceIndex, func(o client.Object) []string { return plan.ServiceNames(o.(*rampv1.Rollout)) }},
		{&rampv1.Rollout{}, templateIndex, func(o client.Object) []string { return templateKeys(o.(*rampv1.Rollout)) }},
		{&autoscalingv2.HorizontalPodAutoscaler{}, hpaIndex, func(o client.Object) []string {
			if name := hpaTarget(o.(*autoscalingv2.HorizontalPodAutoscaler)); name != "" {
				return []string{name}
			}
			return nil
		}},
	}
}

// SetupWithManager registers the reconciler, its indexes and its watches:
// Rollouts, the ReplicaSets they own, the Services they name (so that
// creating a missing Service recovers an InvalidSpec Rollout at once), and
// the HorizontalPodAutoscalers that scale them.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	ctx := context.Background()
	idx := mgr.GetFieldIndexer()
	for _, ix := range Indexes() {
		if err := idx.IndexField(ctx, ix.Object, ix.Field, ix.Extract); err != nil {
			return err
		}
	}
	if err := idx.IndexField(ctx, &rampv1.Rollout{}, routeIndex, func(o client.Object) []string {
		return r.routeKeys(o.(*rampv1.Rollout))
	}); err != nil {
		return err
	}
	routeKinds, err := r.servedRouteKinds(mgr)
	if err != nil {
		return err
	}
	b := ctrl.NewControllerManagedBy(mgr)
	for _, gvk := range routeKinds {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		b = b.Watches(u, handler.EnqueueRequestsFromMapFunc(r.rolloutsForRoute))
	}
	return b.
		For(&rampv1.Rollout{}).
		Owns(&appsv1.ReplicaSet{}).
		Owns(&rampv1.AnalysisRun{}).
		Owns(&rampv1.Experiment{}).
		Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(r.rolloutsForService)).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.rolloutRestartingPod), builder.WithPredicates(podReadinessChanged)).
		Watches(&appsv1.Deployment{}, handler.EnqueueRequestsFromMapFunc(r.rolloutsForDeployment)).
		Watches(&autoscalingv2.HorizontalPodAutoscaler{}, hpaHandler{}).
		Watches(&rampv1.AnalysisTemplate{}, handler.EnqueueRequestsFromMapFunc(r.rolloutsForTemplate)).
		Watches(&rampv1.ClusterAnalysisTemplate{}, handler.EnqueueRequestsFromMapFunc(r.rolloutsForTemplate)).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(metrics.Rollouts.Instrument(r, mgr.GetClient(), func() client.Object { return &rampv1.Rollout{} }))
}

func (r *Reconciler) rolloutsForService(ctx context.Context, svc client.Object) []reconcile.Request {
	return r.rolloutsBy(ctx, svc.GetNamespace(), serviceIndex, svc.GetName())
}

// rolloutsForTemplate enqueues the Rollouts that reference an
// (Cluster)AnalysisTemplate, so that creating a missing one recovers them.
func (r *Reconciler) rolloutsForTemplate(ctx context.Context, t client.Object) []reconcile.Request {
	if _, cluster := t.(*rampv1.ClusterAnalysisTemplate); cluster {
		return r.rolloutsBy(ctx, "", templateIndex, "cluster/"+t.GetName())
	}
	return r.rolloutsBy(ctx, t.GetNamespace(), templateIndex, t.GetName())
}

// rolloutsBy lists the Rollouts whose index holds value. A map function
// cannot return an error: a failed list (the cache not synced, a missing
// index) is logged at error level, as this event then wakes no Rollout.
func (r *Reconciler) rolloutsBy(ctx context.Context, ns, index, value string) []reconcile.Request {
	var list rampv1.RolloutList
	if err := r.Client.List(ctx, &list, client.InNamespace(ns), client.MatchingFields{index: value}); err != nil {
		log.FromContext(ctx).Error(err, "list rollouts to wake", "namespace", ns, "index", index, "value", value)
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for _, ro := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&ro)})
	}
	return reqs
}

func templateKeys(ro *rampv1.Rollout) []string {
	var keys []string
	for _, u := range analysesOf(ro) {
		for _, t := range u.a.Templates {
			if t.IsClusterScope() {
				keys = append(keys, "cluster/"+t.TemplateName)
			} else {
				keys = append(keys, t.TemplateName)
			}
		}
	}
	return keys
}
