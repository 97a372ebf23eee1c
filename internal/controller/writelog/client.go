// Package writelog logs every write the controllers make. Client wraps the
// manager's client: each create, update, patch and delete, of an object or
// of its status, is logged at V(1) (--log-level debug) with the object's
// kind, the object (klog.KObj) and what changed: the patch as sent, the
// change an update makes to the object as the client read it, the size of
// a created ReplicaSet. Recorder does the same for each Event. Messages are
// constant; the data are key/value pairs, on the reconcile's logger (its
// controller, request and reconcileID come along).
//
// A write that fails is logged at V(1) too, with its error: the caller
// returns the error and controller-runtime logs it at error level (V(0))
// with the reconcile request, so an error is logged once at V(0); one the
// caller ignores on purpose (a NotFound after a delete, a conflict the next
// watch event retries) stays at V(1).
//
// It imports no Ramp package: the composition root (internal/controller)
// wraps the client and recorders it hands to reconcilers, routers and
// providers.
package writelog

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// maxChange bounds the bytes of one change in a log line.
const maxChange = 4096

// Client returns c with its writes logged.
func Client(c client.Client) client.Client { return &loggingClient{Client: c} }

type loggingClient struct{ client.Client }

var _ client.Client = (*loggingClient)(nil)

func (c *loggingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	err := c.Client.Create(ctx, obj, opts...)
	c.wrote(ctx, "created object", "create", "", obj, created(obj), err)
	return err
}

// Update logs the change from the object as this client reads it (the
// informer cache for the manager's client, where the caller read the
// object it updates) to obj: a merge patch, computed only at V(1).
func (c *loggingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	var kv []any
	if log.FromContext(ctx).V(1).Enabled() {
		kv = c.updateChange(ctx, obj)
	}
	err := c.Client.Update(ctx, obj, opts...)
	c.wrote(ctx, "updated object", "update", "", obj, kv, err)
	return err
}

func (c *loggingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	kv := patchChange(ctx, obj, patch)
	err := c.Client.Patch(ctx, obj, patch, opts...)
	c.wrote(ctx, "patched object", "patch", "", obj, kv, err)
	return err
}

func (c *loggingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	err := c.Client.Delete(ctx, obj, opts...)
	c.wrote(ctx, "deleted object", "delete", "", obj, nil, err)
	return err
}

func (c *loggingClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	err := c.Client.DeleteAllOf(ctx, obj, opts...)
	l := log.FromContext(ctx).V(1)
	if err != nil {
		l.Info("write failed", "verb", "deletecollection", "kind", c.kind(obj), "namespace", obj.GetNamespace(), "error", err.Error())
	} else {
		l.Info("deleted objects", "kind", c.kind(obj), "namespace", obj.GetNamespace())
	}
	return err
}

func (c *loggingClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	err := c.Client.Apply(ctx, obj, opts...)
	applied(ctx, "", obj, err)
	return err
}

func (c *loggingClient) Status() client.SubResourceWriter { return c.SubResource("status") }

func (c *loggingClient) SubResource(sub string) client.SubResourceClient {
	return &subResourceClient{SubResourceClient: c.Client.SubResource(sub), c: c, sub: sub}
}

type subResourceClient struct {
	client.SubResourceClient
	c   *loggingClient
	sub string
}

func (s *subResourceClient) Create(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceCreateOption) error {
	err := s.SubResourceClient.Create(ctx, obj, subResource, opts...)
	s.c.wrote(ctx, "created object", "create", s.sub, obj, nil, err)
	return err
}

func (s *subResourceClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	var kv []any
	if log.FromContext(ctx).V(1).Enabled() {
		kv = s.c.updateChange(ctx, obj)
	}
	err := s.SubResourceClient.Update(ctx, obj, opts...)
	s.c.wrote(ctx, "updated object", "update", s.sub, obj, kv, err)
	return err
}

func (s *subResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	kv := patchChange(ctx, obj, patch)
	err := s.SubResourceClient.Patch(ctx, obj, patch, opts...)
	s.c.wrote(ctx, "patched object", "patch", s.sub, obj, kv, err)
	return err
}

func (s *subResourceClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	err := s.SubResourceClient.Apply(ctx, obj, opts...)
	applied(ctx, s.sub, obj, err)
	return err
}

// wrote logs one write: msg and kv when it succeeded, "write failed" with
// the verb and the error when it did not.
func (c *loggingClient) wrote(ctx context.Context, msg, verb, sub string, obj client.Object, kv []any, err error) {
	l := log.FromContext(ctx).V(1)
	if !l.Enabled() {
		return
	}
	head := []any{"kind", c.kind(obj), "object", klog.KObj(obj)}
	if sub != "" {
		head = append(head, "subresource", sub)
	}
	if err != nil {
		l.Info("write failed", append(append(head, "verb", verb), append(kv, "error", err.Error())...)...)
		return
	}
	l.Info(msg, append(head, kv...)...)
}

// kind is obj's kind, from the client's scheme (typed objects carry none).
func (c *loggingClient) kind(obj runtime.Object) string {
	if gvk, err := c.GroupVersionKindFor(obj); err == nil {
		return gvk.Kind
	}
	return typeName(obj)
}

// updateChange is the merge patch from the object as c reads it to obj.
func (c *loggingClient) updateChange(ctx context.Context, obj client.Object) []any {
	old, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return nil
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), old); err != nil {
		return []any{"change", "unknown: " + err.Error()}
	}
	data, err := client.MergeFrom(old).Data(obj)
	if err != nil {
		return []any{"change", "unknown: " + err.Error()}
	}
	return []any{"change", bounded(data)}
}

// patchChange is the patch as it will be sent (its data depend on obj
// before the write), computed only at V(1).
func patchChange(ctx context.Context, obj client.Object, patch client.Patch) []any {
	if !log.FromContext(ctx).V(1).Enabled() {
		return nil
	}
	data, err := patch.Data(obj)
	if err != nil {
		return []any{"patchType", string(patch.Type()), "patch", "unreadable: " + err.Error()}
	}
	return []any{"patchType", string(patch.Type()), "patch", bounded(data)}
}

// created is what a create sets that a reader of the log wants at once.
func created(obj client.Object) []any {
	if rs, ok := obj.(*appsv1.ReplicaSet); ok && rs.Spec.Replicas != nil {
		return []any{"replicas", *rs.Spec.Replicas}
	}
	return nil
}

// applied logs a server-side apply with its configuration as sent.
func applied(ctx context.Context, sub string, obj runtime.ApplyConfiguration, err error) {
	l := log.FromContext(ctx).V(1)
	if !l.Enabled() {
		return
	}
	data, jerr := json.Marshal(obj)
	change := bounded(data)
	if jerr != nil {
		change = "unreadable: " + jerr.Error()
	}
	kv := []any{"type", typeName(obj), "subresource", sub, "apply", change}
	if err != nil {
		l.Info("write failed", append(kv, "verb", "apply", "error", err.Error())...)
		return
	}
	l.Info("applied object", kv...)
}

// bounded is data as a string, cut at maxChange bytes.
func bounded(data []byte) string {
	if len(data) <= maxChange {
		return string(data)
	}
	return fmt.Sprintf("%s... (%d bytes)", data[:maxChange], len(data))
}

// typeName is the Go type name of obj (Rollout for *v1alpha1.Rollout).
func typeName(obj any) string {
	t := reflect.TypeOf(obj)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	return t.Name()
}
