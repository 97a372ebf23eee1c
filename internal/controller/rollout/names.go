package rollout

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ramp-rollouts/ramp/internal/plan"
)

// nameUse is what a name means for an object about to be created under it.
type nameUse int

const (
	nameFree  nameUse = iota // not known to be taken: create
	nameOurs                 // held by this same try (a pass whose status write did not land): nothing to create
	nameSpent                // held by an earlier try: take the next name
)

// createFree creates obj (a kind, for errors) under the first of
// plan.RetryNames(its name) that no earlier try holds: cached says what
// the cache shows of a name, taken what a name the API server reports as
// existing is. It reports whether it created obj; obj's name is the one it
// settled on either way.
func (r *Reconciler) createFree(ctx context.Context, kind string, obj client.Object, cached func(name string) nameUse,
	taken func(ctx context.Context, name string) (nameUse, error)) (bool, error) {
	base := obj.GetName()
	for name := range plan.RetryNames(base) {
		obj.SetName(name)
		switch cached(name) {
		case nameOurs:
			return false, nil
		case nameSpent:
			continue
		}
		err := r.Client.Create(ctx, obj)
		if err == nil {
			return true, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return false, fmt.Errorf("create %s %s: %w", kind, name, err)
		}
		use, err := taken(ctx, name)
		if err != nil || use == nameOurs {
			return false, err
		}
	}
	obj.SetName(base)
	return false, fmt.Errorf("create %s %s: every retry name is taken", kind, base)
}
