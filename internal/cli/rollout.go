package cli

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/action"
)

// target is one Rollout a command acts on.
type target struct {
	c  client.WithWatch
	ns string
	ro *rampv1.Rollout
}

// getRollout fetches the named Rollout with a message that says what failed.
func (e *env) getRollout(ctx context.Context, name string) (*target, error) {
	c, err := e.client()
	if err != nil {
		return nil, err
	}
	ns, err := e.namespace()
	if err != nil {
		return nil, err
	}
	ro := &rampv1.Rollout{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, ro); err != nil {
		return nil, explain(err, "get", "rollouts.argoproj.io", ns, name)
	}
	return &target{c: c, ns: ns, ro: ro}, nil
}

// patch sends one patch, to the status subresource when it says so.
func (t *target) patch(ctx context.Context, a action.Patch) error {
	p := client.RawPatch(a.Type, []byte(a.Body))
	if a.Status {
		if err := t.c.Status().Patch(ctx, t.ro, p); err != nil {
			return explain(err, "patch", "rollouts.argoproj.io/status", t.ns, t.ro.Name)
		}
		return nil
	}
	if err := t.c.Patch(ctx, t.ro, p); err != nil {
		return explain(err, "patch", "rollouts.argoproj.io", t.ns, t.ro.Name)
	}
	return nil
}

// explain turns API errors into one line naming the object, or the verb and
// resource RBAC refused.
func explain(err error, verb, resource, ns, name string) error {
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("rollout %q not found", ns+"/"+name)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("forbidden: cannot %s %s in namespace %q (check your RBAC)", verb, resource, ns)
	}
	return fmt.Errorf("%s %s %s/%s: %w", verb, resource, ns, name, err)
}
