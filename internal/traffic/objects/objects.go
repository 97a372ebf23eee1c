// Package objects reads and writes the objects traffic routers own parts of:
// read from the informer cache, change only the router's fields on a copy,
// and write only when that changed something, with optimistic locking so a
// concurrent writer (a GitOps tool, a person) is never overwritten.
package objects

import (
	"context"
	"fmt"
	"k8s.io/apimachinery/pkg/runtime/schema"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// FieldOwner is the field manager of every router write.
const FieldOwner = "ramp-controller"

// IngressGVK is networking.k8s.io/v1 Ingress, which the ALB and NGINX
// routers both edit.
var IngressGVK = schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}

// Get reads ref (from the cache when c is the manager's client). A missing
// object is an error that names its kind, namespace and name.
func Get(ctx context.Context, c client.Reader, ref traffic.Ref) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(ref.GVK)
	if err := c.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, u); err != nil {
		return nil, readError(ref, err)
	}
	return u, nil
}

// Sync reads ref, applies mutate to a copy and, if that changed anything,
// updates the object with the resourceVersion it read (a conflict is retried
// on the next reconcile with a fresh read) and reports note
// (traffic.Report). It reports whether the object already carried what
// mutate sets.
func Sync(ctx context.Context, c client.Client, ref traffic.Ref, mutate func(*unstructured.Unstructured) error, note traffic.Write) (bool, error) {
	cur, err := Get(ctx, c, ref)
	if err != nil {
		return false, err
	}
	return Update(ctx, c, cur, mutate, note)
}

// Update applies mutate to a copy of cur and writes it if it changed,
// reporting note once the write is accepted.
func Update(ctx context.Context, c client.Client, cur *unstructured.Unstructured, mutate func(*unstructured.Unstructured) error, note traffic.Write) (bool, error) {
	want := cur.DeepCopy()
	if err := mutate(want); err != nil {
		return false, traffic.Misconfigured("%s %s/%s: %w", cur.GetKind(), cur.GetNamespace(), cur.GetName(), err)
	}
	if apiequality.Semantic.DeepEqual(cur.Object, want.Object) {
		return true, nil
	}
	if err := c.Update(ctx, want, client.FieldOwner(FieldOwner)); err != nil {
		if apierrors.IsConflict(err) {
			return false, nil // read from a cache that was behind; its watch event brings the next pass
		}
		return false, fmt.Errorf("update %s %s/%s: %w", cur.GetKind(), cur.GetNamespace(), cur.GetName(), err)
	}
	traffic.Report(ctx, note)
	return false, nil
}

// Ensure creates obj when no object of its kind and name exists yet,
// reporting note, and returns the existing one otherwise (created=false).
func Ensure(ctx context.Context, c client.Client, obj *unstructured.Unstructured, note traffic.Write) (cur *unstructured.Unstructured, created bool, err error) {
	ref := traffic.Ref{GVK: obj.GroupVersionKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
	cur = &unstructured.Unstructured{}
	cur.SetGroupVersionKind(ref.GVK)
	err = c.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, cur)
	switch {
	case err == nil:
		return cur, false, nil
	case !apierrors.IsNotFound(err):
		return nil, false, readError(ref, err)
	}
	if err := c.Create(ctx, obj, client.FieldOwner(FieldOwner)); err != nil {
		return nil, false, fmt.Errorf("create %s %s/%s: %w", ref.GVK.Kind, ref.Namespace, ref.Name, err)
	}
	traffic.Report(ctx, note)
	return obj, true, nil
}

// readError names the object; a missing object or kind is a ConfigError.
func readError(ref traffic.Ref, err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return traffic.Misconfigured("%s %s/%s not found", ref.GVK.Kind, ref.Namespace, ref.Name)
	case meta.IsNoMatchError(err):
		return traffic.Misconfigured("%s (%s) is not served by this cluster: install its CRD", ref.GVK.Kind, ref.GVK.GroupVersion())
	}
	return fmt.Errorf("read %s %s/%s: %w", ref.GVK.Kind, ref.Namespace, ref.Name, err)
}
