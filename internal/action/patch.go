package action

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Patch is one patch to send to a Rollout.
type Patch struct {
	Type types.PatchType
	Body string
	// Status sends the patch to the status subresource.
	Status bool
}

// The fixed patches.
var (
	Unpause    = Patch{types.MergePatchType, `{"spec":{"paused":false}}`, false}
	Pause      = Patch{types.MergePatchType, `{"spec":{"paused":true}}`, false}
	Abort      = Patch{types.MergePatchType, `{"status":{"abort":true}}`, true}
	Retry      = Patch{types.MergePatchType, `{"status":{"abort":false}}`, true}
	promoteOne = Patch{types.MergePatchType, `{"status":{"pauseConditions":null}}`, true}
	promoteAll = Patch{types.MergePatchType, `{"status":{"promoteFull":true}}`, true}
)

// Promote is the patches of promote (full: --full), in the order to send
// them: a paused spec is unpaused first. It refuses, with nothing to send,
// when there is nothing to promote.
func Promote(ro *rampv1.Rollout, full bool) ([]Patch, error) {
	s := ro.Status
	var out []Patch
	if ro.Spec.Paused {
		out = append(out, Unpause)
	}
	if full {
		if s.StableRS != "" && s.StableRS == s.CurrentPodHash {
			return nil, fmt.Errorf("rollout %q is not updating: nothing to promote", ro.Namespace+"/"+ro.Name)
		}
		return append(out, promoteAll), nil
	}
	if len(s.PauseConditions) > 0 || s.ControllerPause {
		return append(out, promoteOne), nil
	}
	if c := ro.Spec.Strategy.Canary; c != nil && s.CurrentStepIndex != nil && int(*s.CurrentStepIndex) < len(c.Steps) {
		body, err := json.Marshal(map[string]any{"status": map[string]any{"pauseConditions": nil, "currentStepIndex": *s.CurrentStepIndex + 1}})
		if err != nil {
			return nil, err
		}
		return append(out, Patch{types.MergePatchType, string(body), true}), nil
	}
	if len(out) > 0 {
		return out, nil // unpausing is the promotion
	}
	return nil, fmt.Errorf("rollout %q is not paused and has no step to skip: nothing to promote (phase %s)", ro.Namespace+"/"+ro.Name, phaseOf(ro))
}

func phaseOf(ro *rampv1.Rollout) string {
	if ro.Status.Phase == "" {
		return "unknown"
	}
	return string(ro.Status.Phase)
}

// Restart asks the controller to restart every pod at at (spec.restartAt).
func Restart(at time.Time) Patch {
	return Patch{types.MergePatchType, fmt.Sprintf(`{"spec":{"restartAt":%q}}`, at.UTC().Format(time.RFC3339)), false}
}
