package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/action"
	"github.com/ramp-rollouts/ramp/internal/gather"
)

// ActionRequest is the body of POST /api/rollouts/{ns}/{name}/{action}.
type ActionRequest struct {
	// ResourceVersion is the version of the Rollout the person decided on
	// (RolloutDetail.ResourceVersion); if it changed since, nothing is done.
	ResourceVersion string `json:"resourceVersion"`
	// Revision is undo's target (0: the previous revision).
	Revision int64 `json:"revision,omitempty"`
	// Images are set-image's CONTAINER=IMAGE.
	Images []string `json:"images,omitempty"`
}

// Actions are the verbs the dashboard serves, as the CLI names them.
var Actions = []string{"promote", "promote-full", "abort", "retry", "pause", "resume", "restart", "undo", "set-image"}

// build is the patches of one action on ro, exactly what the CLI sends. An
// error is an action the Rollout's state does not allow (nothing to
// promote, no such revision or container).
func build(verb string, ro *rampv1.Rollout, rss []appsv1.ReplicaSet, req ActionRequest, now time.Time) ([]action.Patch, error) {
	var ps []action.Patch
	var err error
	switch verb {
	case "promote", "promote-full":
		ps, err = action.Promote(ro, verb == "promote-full")
	case "abort":
		ps = []action.Patch{action.Abort}
	case "retry":
		ps = []action.Patch{action.Retry}
	case "pause":
		ps = []action.Patch{action.Pause}
	case "resume":
		ps = []action.Patch{action.Unpause}
	case "restart":
		ps = []action.Patch{action.Restart(now)}
	case "undo":
		var p action.Patch
		p, _, err = action.Undo(ro, rss, req.Revision)
		ps = []action.Patch{p}
	case "set-image":
		var p action.Patch
		p, err = action.SetImage(ro, req.Images)
		ps = []action.Patch{p}
	}
	return ps, err
}

func (s *Server) act(w http.ResponseWriter, r *http.Request) {
	ctx, u := r.Context(), userOf(r.Context())
	ns, name, verb := r.PathValue("ns"), r.PathValue("name"), r.PathValue("action")
	id := ns + "/" + name
	if err := s.sessions.check(r); err != nil {
		writeError(w, http.StatusForbidden, "refused (cross-site request protection): "+err.Error())
		return
	}
	if !s.cfg.Actions {
		writeError(w, http.StatusForbidden, "the dashboard is read-only: start it with --enable-actions to act on rollouts")
		return
	}
	if !isAction(verb) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown action %q: one of %v", verb, Actions))
		return
	}
	var req ActionRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "the body must be JSON {\"resourceVersion\": ...}: "+err.Error())
		return
	}
	if req.ResourceVersion == "" {
		writeError(w, http.StatusBadRequest, "resourceVersion is required: the version of the rollout you decided on")
		return
	}
	if !s.authorize(w, r, rolloutAccess("get", ns, name, "")) {
		return
	}
	// The Rollout as it is now, from the API server, not the cache.
	ro := &rampv1.Rollout{}
	if err := s.cfg.Writer.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, ro); err != nil {
		s.actFailed(w, err, id, verb)
		return
	}
	if ro.ResourceVersion != req.ResourceVersion {
		writeError(w, http.StatusConflict, conflictMessage(id, verb))
		return
	}
	var rss []appsv1.ReplicaSet
	if verb == "undo" {
		if !s.authorize(w, r, Access{Verb: "list", Group: "apps", Resource: "replicasets", Namespace: ns}) {
			return
		}
		var l appsv1.ReplicaSetList
		if err := s.cfg.Reader.List(ctx, &l, client.InNamespace(ns)); err != nil {
			s.readFailed(w, err, "list replicasets")
			return
		}
		rss = l.Items
	}
	patches, err := build(verb, ro, rss, req, s.cfg.Now())
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	for _, p := range patches { // every patch authorised before the first is sent
		if !s.authorize(w, r, patchAccess(ns, name, p)) {
			return
		}
	}
	if err := s.apply(ctx, ro, patches, verb, u); err != nil {
		s.actFailed(w, err, id, verb)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"message": fmt.Sprintf("rollout %q: %s done", id, verb), "resourceVersion": ro.ResourceVersion})
}

// patchAccess is what sending p needs: patch on the rollout, or on its
// status subresource for a status patch.
func patchAccess(ns, name string, p action.Patch) Access {
	sub := ""
	if p.Status {
		sub = "status"
	}
	return rolloutAccess("patch", ns, name, sub)
}

func isAction(verb string) bool { return slices.Contains(Actions, verb) }

// refusedActions says, per action, why the user may not take it: the first
// access its patches need that authorisation refuses (undo and set-image,
// whose patches need the person's input, and an action the state does not
// allow, by patch rollouts). The page disables those actions. Local mode
// refuses nothing here: the API server judges the kubeconfig identity.
func (s *Server) refusedActions(ctx context.Context, u User, o *gather.Objects) (map[string]string, error) {
	ro := o.Rollout
	var refused map[string]string
	for _, verb := range Actions {
		var need []Access
		if verb == "undo" {
			need = append(need, Access{Verb: "list", Group: "apps", Resource: "replicasets", Namespace: ro.Namespace})
		}
		patches, err := build(verb, ro, o.ReplicaSets, ActionRequest{}, s.cfg.Now())
		if err != nil || len(patches) == 0 {
			need = append(need, rolloutAccess("patch", ro.Namespace, ro.Name, ""))
		}
		for _, p := range patches {
			need = append(need, patchAccess(ro.Namespace, ro.Name, p))
		}
		for _, a := range need {
			ok, err := s.cfg.Authz.Allowed(ctx, u, a)
			if err != nil {
				return nil, err
			}
			if !ok {
				if refused == nil {
					refused = map[string]string{}
				}
				refused[verb] = "you may not " + a.String()
				break
			}
		}
	}
	return refused, nil
}

func conflictMessage(id, verb string) string {
	return fmt.Sprintf("rollout %q changed since you loaded it (by someone else or the controller): %s was not applied; reload and decide again", id, verb)
}

// actFailed answers an action the API server refused, saying why.
func (s *Server) actFailed(w http.ResponseWriter, err error, id, verb string) {
	var half *halfApplied
	switch {
	case errors.As(err, &half):
		s.cfg.Log.Error(err, "action half applied", "rollout", id, "action", verb)
		writeError(w, http.StatusInternalServerError, err.Error())
	case apierrors.IsConflict(err):
		writeError(w, http.StatusConflict, conflictMessage(id, verb))
	case apierrors.IsNotFound(err):
		writeError(w, http.StatusNotFound, fmt.Sprintf("rollout %q not found (deleted, or never created)", id))
	case apierrors.IsForbidden(err):
		writeError(w, http.StatusForbidden, fmt.Sprintf("forbidden: the API server refused to %s rollout %q (check your RBAC)", verb, id))
	default:
		s.cfg.Log.Error(err, "action failed", "rollout", id, "action", verb)
		writeError(w, http.StatusBadGateway, fmt.Sprintf("%s rollout %q: %v", verb, id, err))
	}
}

// halfApplied is a chain of patches whose later patch failed after the
// earlier ones were applied and could not be taken back.
type halfApplied struct{ error }

// apply sends the patches in order. The first is conditional on the
// version the person decided on; the rest follow it as the CLI sends them.
// If a later patch fails, the earlier unpause is taken back, so nothing is
// left half-applied.
func (s *Server) apply(ctx context.Context, ro *rampv1.Rollout, patches []action.Patch, verb string, u User) error {
	for i, p := range patches {
		if i == 0 {
			var err error
			if p, err = action.WithResourceVersion(p, ro.ResourceVersion); err != nil {
				return err
			}
		}
		if err := s.send(ctx, ro, p, verb, u); err != nil {
			if i == 0 {
				return err
			}
			if patches[0] == action.Unpause && s.send(ctx, ro, action.Pause, verb+" (taken back)", u) == nil {
				return err
			}
			return &halfApplied{fmt.Errorf("%s: the rollout was unpaused but the promotion failed (%w), and pausing it again failed: pause it by hand", verb, err)}
		}
	}
	return nil
}

// send sends one patch; ro becomes the Rollout the API server returns.
func (s *Server) send(ctx context.Context, ro *rampv1.Rollout, p action.Patch, verb string, u User) error {
	raw := client.RawPatch(p.Type, []byte(p.Body))
	var err error
	if p.Status {
		err = s.cfg.Writer.Status().Patch(ctx, ro, raw)
	} else {
		err = s.cfg.Writer.Patch(ctx, ro, raw)
	}
	if err == nil { // at the default level: in the cluster, the API server's audit log names the dashboard, this line the person
		s.cfg.Log.Info("patched rollout", "rollout", client.ObjectKeyFromObject(ro), "action", verb, "user", u.Name,
			"status", p.Status, "type", p.Type, "resourceVersion", ro.ResourceVersion)
	}
	return err
}
