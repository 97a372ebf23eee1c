package dashboard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/gather"
	"github.com/ramp-rollouts/ramp/internal/view"
)

// RolloutList is the answer of GET /api/rollouts: the rows of `ramp get
// rollouts -A`, limited to the namespaces the user may list rollouts in.
type RolloutList struct {
	Items []Row `json:"items"`
}

func rolloutsAccess(verb, ns string) Access {
	return Access{Verb: verb, Group: rampv1.GroupVersion.Group, Resource: "rollouts", Namespace: ns}
}

// rolloutAccess is verb on the one rollout ns/name (sub: its subresource).
func rolloutAccess(verb, ns, name, sub string) Access {
	a := rolloutsAccess(verb, ns)
	a.Name, a.Subresource = name, sub
	return a
}

func (s *Server) listRollouts(w http.ResponseWriter, r *http.Request) {
	var l rampv1.RolloutList
	if err := s.cfg.Reader.List(r.Context(), &l); err != nil {
		s.readFailed(w, err, "list rollouts")
		return
	}
	out := RolloutList{Items: []Row{}}
	for i := range l.Items {
		ro := &l.Items[i]
		ok, err := s.mayList(r.Context(), userOf(r.Context()), ro.Namespace)
		if err != nil {
			s.readFailed(w, err, "authorize")
			return
		}
		if ok {
			out.Items = append(out.Items, rowOf(ro))
		}
	}
	slices.SortFunc(out.Items, func(a, b Row) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	writeJSON(w, http.StatusOK, out)
}

// mayList says whether u may list rollouts in ns: cluster-wide, or in
// that namespace (both answers cached by the authorizer).
func (s *Server) mayList(ctx context.Context, u User, ns string) (bool, error) {
	all, err := s.cfg.Authz.Allowed(ctx, u, rolloutsAccess("list", ""))
	if err != nil || all {
		return all, err
	}
	return s.cfg.Authz.Allowed(ctx, u, rolloutsAccess("list", ns))
}

// RolloutDetail is the answer of GET /api/rollouts/{ns}/{name}.
type RolloutDetail struct {
	// Rollout is the tree of `ramp get rollout`.
	Rollout view.RolloutView `json:"rollout"`
	// ResourceVersion is what an action must name to act on this state.
	ResourceVersion string `json:"resourceVersion"`
	// Timeline is the canary's steps; absent without steps.
	Timeline     *Timeline     `json:"timeline,omitempty"`
	AnalysisRuns []AnalysisRun `json:"analysisRunDetails"`
	Events       []Event       `json:"events"`
	// Forecast is the planner's remaining points of the update, drawn on
	// the timeline; Confirm what each action would do now.
	Forecast view.Forecast      `json:"forecast"`
	Confirm  view.Confirmations `json:"confirm"`
	// Traffic is the routers, weights and managed routes (trafficRouting).
	Traffic *view.Traffic `json:"traffic,omitempty"`
	// HPAs are the HorizontalPodAutoscalers that scale the rollout.
	HPAs []view.HPA `json:"hpas,omitempty"`
	// Withheld are the kinds the user may not list in the namespace,
	// left out of the answer.
	Withheld []string `json:"withheld,omitempty"`
	// Refused says, per action, the access a SubjectAccessReview refused
	// the user (in-cluster); the page disables those actions and says why.
	Refused map[string]string `json:"refused,omitempty"`
}

// part is one kind the detail page shows besides the Rollout.
type part struct{ group, resource string }

var parts = []part{{"apps", "replicasets"}, {"", "pods"}, {rampv1.GroupVersion.Group, "analysisruns"},
	{rampv1.GroupVersion.Group, "experiments"}, {"", "events"}, {"autoscaling", "horizontalpodautoscalers"}}

func (s *Server) getRollout(w http.ResponseWriter, r *http.Request) {
	ctx, u, ns, name := r.Context(), userOf(r.Context()), r.PathValue("ns"), r.PathValue("name")
	// Asked before looking: a rollout the user may not get is 403 whether
	// it exists or not, so the answer does not tell.
	if !s.authorize(w, r, rolloutAccess("get", ns, name, "")) {
		return
	}
	o, err := gather.Rollout(ctx, s.cfg.Reader, ns, name)
	if ge := (*gather.Error)(nil); errors.As(err, &ge) && ge.Verb == "get" && apierrors.IsNotFound(ge.Err) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("rollout %q not found (deleted, or never created)", ns+"/"+name))
		return
	}
	if err != nil {
		s.readFailed(w, err, fmt.Sprintf("read rollout %s/%s", ns, name))
		return
	}
	d := RolloutDetail{ResourceVersion: o.Rollout.ResourceVersion}
	var events []corev1.Event
	var hpas []autoscalingv2.HorizontalPodAutoscaler
	for _, p := range parts {
		ok, err := s.cfg.Authz.Allowed(ctx, u, Access{Verb: "list", Group: p.group, Resource: p.resource, Namespace: ns})
		if err != nil {
			s.readFailed(w, err, "authorize")
			return
		}
		if !ok {
			d.Withheld = append(d.Withheld, p.resource)
			withhold(o, p.resource)
			continue
		}
		switch p.resource {
		case "events":
			events, err = rolloutEvents(ctx, s.cfg.Reader, o.Rollout)
		case "horizontalpodautoscalers":
			hpas, err = rolloutHPAs(ctx, s.cfg.Reader, o.Rollout)
		}
		if err != nil {
			s.readFailed(w, err, "list "+p.resource)
			return
		}
	}
	now := s.cfg.Now()
	d.Timeline = timelineOf(o.Rollout)
	d.Rollout = view.Rollout(o.Rollout, o.ReplicaSets, o.Pods, o.Runs, now)
	d.Rollout.AddExperiments(o.Experiments, now)
	d.AnalysisRuns = analysisRuns(o.Runs)
	d.Events = eventsOf(events)
	s.addEvidence(&d, o, hpas)
	if s.cfg.Actions {
		if d.Refused, err = s.refusedActions(ctx, u, o); err != nil {
			s.readFailed(w, err, "authorize")
			return
		}
	}
	writeJSON(w, http.StatusOK, d)
}

// withhold drops the objects of a kind the user may not list.
func withhold(o *gather.Objects, resource string) {
	switch resource {
	case "replicasets":
		o.ReplicaSets, o.Pods = nil, nil // pods hang from their ReplicaSets
	case "pods":
		o.Pods = nil
	case "analysisruns":
		o.Runs = nil
	case "experiments":
		o.Experiments = nil
	}
}

// authorize answers 403 (naming what was refused) unless u may do a.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, a Access) bool {
	ok, err := s.cfg.Authz.Allowed(r.Context(), userOf(r.Context()), a)
	switch {
	case err != nil:
		s.readFailed(w, err, "authorize")
	case !ok:
		writeError(w, http.StatusForbidden, "forbidden: "+userOf(r.Context()).Name+" cannot "+a.String())
	}
	return err == nil && ok
}

// readFailed answers a failed read with 502, naming what failed; the
// cause is logged.
func (s *Server) readFailed(w http.ResponseWriter, err error, what string) {
	s.cfg.Log.Error(err, "read failed", "what", what)
	writeError(w, http.StatusBadGateway, "cannot "+what+": "+err.Error())
}

// rolloutEvents are the Events about ro, oldest first.
func rolloutEvents(ctx context.Context, c client.Reader, ro *rampv1.Rollout) ([]corev1.Event, error) {
	var l corev1.EventList
	if err := c.List(ctx, &l, client.InNamespace(ro.Namespace)); err != nil {
		return nil, err
	}
	var out []corev1.Event
	for _, e := range l.Items {
		if e.InvolvedObject.UID == ro.UID || (e.InvolvedObject.UID == "" && e.InvolvedObject.Kind == "Rollout" && e.InvolvedObject.Name == ro.Name) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b corev1.Event) int { return eventTime(a).Compare(eventTime(b)) })
	return out, nil
}
