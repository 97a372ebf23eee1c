package rollout

import (
	"context"
	"sort"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// hpaIndex indexes HorizontalPodAutoscalers by the Rollout they scale.
const hpaIndex = ".spec.scaleTargetRef.rollout"

// hpaTarget is the name of the Rollout an HPA scales, or "".
func hpaTarget(h *autoscalingv2.HorizontalPodAutoscaler) string {
	ref := h.Spec.ScaleTargetRef
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil || ref.Kind != "Rollout" || gv.Group != rampv1.GroupVersion.Group {
		return ""
	}
	return ref.Name
}

// observeHPAs records the HPAs that scale ro, from the informer cache.
func (r *Reconciler) observeHPAs(ctx context.Context, ro *rampv1.Rollout, w *world) error {
	var list autoscalingv2.HorizontalPodAutoscalerList
	if err := r.Client.List(ctx, &list, client.InNamespace(ro.Namespace), client.MatchingFields{hpaIndex: ro.Name}); err != nil {
		return err
	}
	w.hpas = nil
	for _, h := range list.Items {
		w.hpas = append(w.hpas, h.Name)
	}
	sort.Strings(w.hpas)
	return nil
}

// hpaHandler enqueues the Rollout an HPA scales when the HPA appears, goes,
// or is pointed at another Rollout. The HPA's own status churns on every
// sync and its decisions reach the Rollout through spec.replicas, so other
// updates are ignored.
type hpaHandler struct{}

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

func enqueueTarget(h *autoscalingv2.HorizontalPodAutoscaler, q queue) {
	if name := hpaTarget(h); name != "" {
		q.Add(reconcile.Request{NamespacedName: client.ObjectKey{Namespace: h.Namespace, Name: name}})
	}
}

func (hpaHandler) Create(_ context.Context, e event.TypedCreateEvent[client.Object], q queue) {
	if h, ok := e.Object.(*autoscalingv2.HorizontalPodAutoscaler); ok {
		enqueueTarget(h, q)
	}
}

func (hpaHandler) Update(_ context.Context, e event.TypedUpdateEvent[client.Object], q queue) {
	old, ok1 := e.ObjectOld.(*autoscalingv2.HorizontalPodAutoscaler)
	nw, ok2 := e.ObjectNew.(*autoscalingv2.HorizontalPodAutoscaler)
	if !ok1 || !ok2 || old.Spec.ScaleTargetRef == nw.Spec.ScaleTargetRef {
		return
	}
	enqueueTarget(old, q)
	enqueueTarget(nw, q)
}

func (hpaHandler) Delete(_ context.Context, e event.TypedDeleteEvent[client.Object], q queue) {
	if h, ok := e.Object.(*autoscalingv2.HorizontalPodAutoscaler); ok {
		enqueueTarget(h, q)
	}
}

func (hpaHandler) Generic(_ context.Context, e event.TypedGenericEvent[client.Object], q queue) {
	if h, ok := e.Object.(*autoscalingv2.HorizontalPodAutoscaler); ok {
		enqueueTarget(h, q)
	}
}

var _ handler.EventHandler = hpaHandler{}
