// Package foreign reports, once each, the Rollouts labelled for another
// controller instance (argo-rollouts.argoproj.io/controller-instance-id):
// another controller (Argo Rollouts, or a Ramp started with another
// --instance-id) runs them, and this one never reads their spec nor writes
// to them. Only their metadata is watched, through its own informer (the
// manager's cache holds only this instance's Rollouts).
package foreign

import (
	"context"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Reason of the Event.
const Reason = "ForeignInstance"

// Reporter records one Event on each Rollout another instance runs. It runs
// on the leader only.
type Reporter struct {
	Config     *rest.Config
	Namespace  string // "" for all
	InstanceID string // this controller's --instance-id ("" for none)
	Recorder   events.EventRecorder

	mu   sync.Mutex
	told map[types.UID]bool
}

// Selector matches the Rollouts of other instances: labelled, with
// another id than this one's.
func Selector(instanceID string) (labels.Selector, error) {
	has, err := labels.NewRequirement(rampv1.ControllerInstanceIDLabel, selection.Exists, nil)
	if err != nil {
		return nil, err
	}
	sel := labels.NewSelector().Add(*has)
	if instanceID != "" {
		other, err := labels.NewRequirement(rampv1.ControllerInstanceIDLabel, selection.NotEquals, []string{instanceID})
		if err != nil {
			return nil, err
		}
		sel = sel.Add(*other)
	}
	return sel, nil
}

func (r *Reporter) NeedLeaderElection() bool { return true }

func (r *Reporter) Start(ctx context.Context) error {
	sel, err := Selector(r.InstanceID)
	if err != nil {
		return err
	}
	mc, err := metadata.NewForConfig(r.Config)
	if err != nil {
		return err
	}
	f := metadatainformer.NewFilteredSharedInformerFactory(mc, 0, r.Namespace, func(o *metav1.ListOptions) {
		o.LabelSelector = sel.String()
	})
	inf := f.ForResource(rampv1.GroupVersion.WithResource("rollouts")).Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.Seen(obj) },
		UpdateFunc: func(_, obj any) { r.Seen(obj) },
		DeleteFunc: func(obj any) { r.Forget(obj) },
	}); err != nil {
		return err
	}
	f.Start(ctx.Done())
	<-ctx.Done()
	f.Shutdown()
	return nil
}

// Seen records the Event for a foreign Rollout the first time it is seen.
func (r *Reporter) Seen(obj any) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return
	}
	r.mu.Lock()
	if r.told == nil {
		r.told = map[types.UID]bool{}
	}
	first := !r.told[m.UID]
	r.told[m.UID] = true
	r.mu.Unlock()
	if !first {
		return
	}
	id := m.Labels[rampv1.ControllerInstanceIDLabel]
	ro := &rampv1.Rollout{ObjectMeta: *m.ObjectMeta.DeepCopy()}
	mine := fmt.Sprintf("instance %q", r.InstanceID)
	if r.InstanceID == "" {
		mine = "no instance id"
	}
	log.Log.WithName("foreign").V(1).Info("leaving a rollout to another instance", "rollout", klog.KObj(m), "instanceID", id)
	r.Recorder.Eventf(ro, nil, "Normal", Reason, "Ignore",
		"labelled %s=%s: another controller instance runs this rollout; this controller (%s) leaves it alone", rampv1.ControllerInstanceIDLabel, id, mine)
}

// Forget drops a deleted Rollout.
func (r *Reporter) Forget(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		r.mu.Lock()
		delete(r.told, m.UID)
		r.mu.Unlock()
	}
}
