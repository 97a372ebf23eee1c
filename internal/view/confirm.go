package view

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/action"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// Confirmations say what each action of the CLI (internal/action) would do
// to a Rollout now, for the dashboard's confirmation dialog: from the
// Rollout's status and the planner's forecast of its update.
type Confirmations struct {
	// Actions maps a verb as the dashboard names it (promote,
	// promote-full, abort, retry, pause, resume, restart, set-image) to
	// what it does.
	Actions map[string]string `json:"actions"`
	// Undo is what undo to each revision does, newest first; Revision 0 is
	// "the previous revision".
	Undo []UndoTarget `json:"undo,omitempty"`
}

// UndoTarget is one revision undo can go back to.
type UndoTarget struct {
	Revision int64    `json:"revision"`
	Images   []string `json:"images,omitempty"`
	Text     string   `json:"text"`
}

// confirmer holds what every text is computed from.
type confirmer struct {
	ro   *rampv1.Rollout
	rss  []appsv1.ReplicaSet
	tr   plan.Trajectory
	ok   bool // the planner simulated the update (tr is set)
	idx  int  // the current canary step
	left []plan.Point
}

// ConfirmationsOf computes the texts for ro, whose ReplicaSets are rss,
// with tr the planner's simulation of its update (err when it has none).
func ConfirmationsOf(ro *rampv1.Rollout, rss []appsv1.ReplicaSet, tr plan.Trajectory, err error) Confirmations {
	c := &confirmer{ro: ro, rss: rss, tr: tr, ok: err == nil}
	if i := ro.Status.CurrentStepIndex; i != nil {
		c.idx = max(int(*i), 0) // a negative index (a hand-edited status) reads as the first step
	}
	if c.ok {
		c.left, _ = Remaining(ro, tr)
	}
	out := Confirmations{Actions: map[string]string{
		"promote":      c.promote(),
		"promote-full": c.promoteFull(),
		"abort":        c.abort(),
		"retry":        c.retry(),
		"pause":        c.pause(),
		"resume":       c.resume(),
		"restart":      c.restart(),
		"set-image":    c.setImage(),
	}}
	out.Undo = c.undo()
	return out
}

func (c *confirmer) canary() *rampv1.CanaryStrategy { return c.ro.Spec.Strategy.Canary }

// routed reports a canary with trafficRouting (false without a canary: a
// Rollout whose spec is invalid gets texts, not a panic).
func (c *confirmer) routed() bool { return c.canary() != nil && c.canary().TrafficRouting != nil }

// pointAt is the simulated point of canary step i (the end of the steps
// when i is past them), false without one.
func (c *confirmer) pointAt(i int) (plan.Point, bool) {
	if !c.ok || c.canary() == nil {
		return plan.Point{}, false
	}
	n := len(c.canary().Steps)
	for _, p := range c.tr.Points {
		if (i < n && p.Kind == plan.PointStep && p.Index == i) || (i >= n && p.Kind == plan.PointComplete) {
			return p, true
		}
	}
	return plan.Point{}, false
}

// figures is "canary 2 pods, stable 3, 40% of traffic" at p.
func (c *confirmer) figures(p plan.Point) string {
	if p.Kind == plan.PointComplete {
		return fmt.Sprintf("the new version becomes stable with all %d pods and 100%% of traffic", p.New.Spec)
	}
	actual, _ := CanaryActual(c.tr, p)
	return fmt.Sprintf("canary %s, stable %d, %s of traffic", pods(p.New.Spec), p.Old.Spec, strings.TrimSuffix(actual, "*"))
}

func pods(n int32) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}

// at is the figures of step i, prefixed by ": ", or "" without them.
func (c *confirmer) at(i int) string {
	if p, ok := c.pointAt(i); ok {
		return ": " + c.figures(p)
	}
	return ""
}

func (c *confirmer) promote() string {
	ro, st := c.ro, &c.ro.Status
	if _, err := action.Promote(ro, false); err != nil {
		return "Nothing to promote: " + err.Error() + "."
	}
	unpause := ""
	if ro.Spec.Paused {
		unpause = "Clears spec.paused. "
	}
	if st.Abort && updating(ro) {
		return unpause + abortedPromote
	}
	if ro.Spec.Strategy.BlueGreen != nil {
		return unpause + c.blueGreenPromote()
	}
	if c.canary() == nil || len(c.canary().Steps) == 0 {
		return unpause + "Clears the pause and lets the update go on."
	}
	paused := len(st.PauseConditions) > 0 || st.ControllerPause
	onPause := c.idx < len(c.canary().Steps) && c.canary().Steps[c.idx].Pause != nil
	switch {
	case paused && !onPause:
		return unpause + fmt.Sprintf("Clears the pause (%s) and %s goes on%s.", pauseReasons(st), stepName(ro, c.idx), c.at(c.idx))
	case !paused && c.idx >= len(c.canary().Steps): // only spec.paused: unpausing is the promotion
		return unpause + fmt.Sprintf("The steps are done: the update goes on to its end%s.", c.at(c.idx))
	case paused:
		return unpause + fmt.Sprintf("Ends %s and moves on to %s%s.", stepName(ro, c.idx), stepName(ro, c.idx+1), c.at(c.idx+1))
	}
	return unpause + fmt.Sprintf("Ends %s without waiting for it and moves on to %s%s.", stepName(ro, c.idx), stepName(ro, c.idx+1), c.at(c.idx+1))
}

func pauseReasons(st *rampv1.RolloutStatus) string {
	var rs []string
	for _, pc := range st.PauseConditions {
		rs = append(rs, string(pc.Reason))
	}
	if len(rs) == 0 {
		return "paused by the controller"
	}
	return strings.Join(rs, ", ")
}

// abortedPromote is promote's text during an aborted update: the
// controller holds it on the stable version at the first step and clears
// promoteFull until a retry (internal/plan abortOrRetry).
const abortedPromote = "The update is aborted: the controller keeps it on the stable version, resets its steps and clears promoteFull " +
	"while it is, so this changes nothing. Retry starts the update again."

// blueGreenPromote says what promote does to a blue-green update: ending
// the promotion pause switches the active service; after the switch (an
// inconclusive post-promotion analysis) there is no switch left; a rollout
// only the user paused just goes on.
func (c *confirmer) blueGreenPromote() string {
	st := &c.ro.Status
	switch {
	case len(st.PauseConditions) == 0 && !st.ControllerPause:
		return "The update goes on from where it was paused (" + blueGreenPhase(c.ro) + "); a promotion pause it has not reached yet still holds it there."
	case blueGreenPhase(c.ro) == plan.PhasePostPromotion:
		s := fmt.Sprintf("Clears the pause (%s): the active service already selects the new version", pauseReasons(st))
		for _, p := range c.left {
			if p.Kind == plan.PointComplete {
				s += "; " + PhaseText(c.ro.Spec.Strategy.BlueGreen, c.tr, p)
			}
		}
		return s + "."
	}
	s := "Ends the promotion pause: the active service switches to the new version"
	var grow, post, done string
	for _, p := range c.left {
		switch p.Kind {
		case plan.PhaseScaleUp:
			grow = fmt.Sprintf("; the new ReplicaSet first grows from %d to %d pods", c.tr.Preview, p.New.Spec)
		case plan.PhaseSwitch:
			s += fmt.Sprintf(" once all %d of its pods are available", p.New.Spec)
		case plan.PhasePostPromotion:
			post = "; then " + GateText(p.Gate)
		case plan.PointComplete:
			done = "; " + PhaseText(c.ro.Spec.Strategy.BlueGreen, c.tr, p)
		}
	}
	return s + grow + post + done + "."
}

func (c *confirmer) promoteFull() string {
	ro := c.ro
	if _, err := action.Promote(ro, true); err != nil {
		return "Nothing to promote: " + err.Error() + "."
	}
	if ro.Status.Abort {
		return abortedPromote
	}
	s := "Skips every remaining step, analysis and pause"
	if cs := c.canary(); cs != nil && c.idx < len(cs.Steps) {
		s += fmt.Sprintf(" (from %s to step %d)", stepName(ro, c.idx), len(cs.Steps))
	}
	s += fmt.Sprintf(": the new version gets all the traffic and all %d replicas", ro.Replicas())
	if d := ro.ScaleDownDelaySeconds(); d > 0 && (ro.Spec.Strategy.BlueGreen != nil || c.routed()) {
		s += fmt.Sprintf("; the previous ReplicaSet goes to 0 after %ds (scaleDownDelaySeconds)", d)
	} else {
		s += "; the previous ReplicaSet goes to 0"
	}
	return s + "."
}

func (c *confirmer) abort() string {
	st := &c.ro.Status
	switch {
	case !updating(c.ro):
		return "No update in progress: there is nothing to abort."
	case st.Abort:
		return "Already aborted: traffic is on the stable version. Retry starts the update again."
	}
	stable := strings.Join(c.imagesOf(st.StableRS), ", ")
	if stable != "" {
		stable = " (" + stable + ")"
	}
	d := c.ro.AbortScaleDownDelaySeconds()
	if c.ro.Spec.Strategy.BlueGreen != nil {
		down := fmt.Sprintf("the preview is scaled down after %ds (abortScaleDownDelaySeconds)", d)
		if d == 0 {
			down = "the preview is left running (abortScaleDownDelaySeconds: 0)"
		}
		return fmt.Sprintf("Stops the update: the active service stays on (or goes back to) the stable version%s and %s. Retry starts it again.", stable, down)
	}
	s := fmt.Sprintf("Stops the update at %s: traffic goes back to the stable version%s", stepName(c.ro, c.idx), stable)
	down := "the canary is scaled down as stable grows back"
	switch {
	case c.routed() && d > 0:
		s += " (every router sends the canary 0%)"
		down = fmt.Sprintf("the canary is scaled down after %ds (abortScaleDownDelaySeconds)", d)
	case c.routed() && !c.canary().DynamicStableScale:
		s += " (every router sends the canary 0%)"
		down = "the canary is left running (abortScaleDownDelaySeconds: 0)"
	case c.routed():
		s += " (every router sends the canary 0%)"
	}
	return s + fmt.Sprintf("; %s. Retry starts it again from %s.", down, stepName(c.ro, 0))
}

func (c *confirmer) retry() string {
	if !c.ro.Status.Abort {
		return "The rollout is not aborted: retry changes nothing."
	}
	if c.ro.Spec.Strategy.BlueGreen != nil {
		return "Clears the abort and starts the update again: the new ReplicaSet comes up as the preview."
	}
	return fmt.Sprintf("Clears the abort and starts the update again from %s%s.", stepName(c.ro, 0), c.at(0))
}

// where is " at step 2 (pause): canary 1 pod, …" during a canary update
// that is not aborted.
func (c *confirmer) where() string {
	if !updating(c.ro) || c.ro.Status.Abort || c.canary() == nil || len(c.canary().Steps) == 0 {
		return "" // aborted: back on stable, no step to name
	}
	return " at " + stepName(c.ro, c.idx) + c.at(c.idx)
}

func (c *confirmer) pause() string {
	if c.ro.Spec.Paused {
		return "Already paused (spec.paused: true): pause changes nothing."
	}
	return "Pauses the rollout where it is (spec.paused: true) until it is resumed; nothing moves meanwhile" + c.where() + "."
}

func (c *confirmer) resume() string {
	if !c.ro.Spec.Paused {
		return "The rollout is not paused (spec.paused is false): resume changes nothing."
	}
	return "Clears spec.paused so the rollout goes on from where it was paused" + c.where() + "."
}

func (c *confirmer) restart() string {
	return fmt.Sprintf("Restarts every pod of the rollout (%s now), a few at a time (spec.restartAt: now); "+
		"the pod template, the step and the traffic do not change.", pods(cmp.Or(c.ro.Status.Replicas, c.ro.Replicas())))
}

// update is what a new pod template starts: the first step and its figures.
func (c *confirmer) update() string {
	if cs := c.canary(); cs != nil && len(cs.Steps) > 0 {
		return "a new update from " + stepName(c.ro, 0) + c.at(0)
	}
	if c.ro.Spec.Strategy.BlueGreen != nil {
		return fmt.Sprintf("a new update: the new version comes up as the preview (%s)", pods(c.tr.Preview))
	}
	return "a new update"
}

func (c *confirmer) setImage() string {
	var now []string
	if t := c.ro.Spec.Template; t != nil {
		for _, ct := range t.Spec.Containers {
			now = append(now, ct.Name+"="+ct.Image)
		}
	}
	return fmt.Sprintf("Changes the container image(s) of the pod template (now %s); this starts %s.", strings.Join(now, ", "), c.update())
}

// imagesOf are CONTAINER=IMAGE of the ReplicaSet of hash.
func (c *confirmer) imagesOf(hash string) []string {
	for _, rs := range c.rss {
		if hash != "" && rs.Labels[rampv1.DefaultRolloutUniqueLabelKey] == hash {
			return templateImages(rs)
		}
	}
	return nil
}

func templateImages(rs appsv1.ReplicaSet) []string {
	var out []string
	for _, ct := range rs.Spec.Template.Spec.Containers {
		out = append(out, ct.Name+"="+ct.Image)
	}
	return out
}

// undo is the text of undo to each revision it can go to, newest first.
func (c *confirmer) undo() []UndoTarget {
	var out []UndoTarget
	revs := map[int64]appsv1.ReplicaSet{}
	for _, rs := range c.rss {
		if _, rev, err := action.Undo(c.ro, []appsv1.ReplicaSet{rs}, action.Revision(&rs)); err == nil && rev > 0 {
			revs[rev] = rs
		}
	}
	keys := make([]int64, 0, len(revs))
	for k := range revs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	slices.Reverse(keys)
	if _, prev, err := action.Undo(c.ro, c.rss, 0); err == nil {
		t := c.undoTo(revs[prev], prev)
		t.Revision, t.Text = 0, "The previous revision is "+fmt.Sprint(prev)+". "+t.Text
		out = append(out, t)
	}
	for _, k := range keys {
		out = append(out, c.undoTo(revs[k], k))
	}
	return out
}

func (c *confirmer) undoTo(rs appsv1.ReplicaSet, rev int64) UndoTarget {
	t := UndoTarget{Revision: rev, Images: templateImages(rs)}
	hash := rs.Labels[rampv1.DefaultRolloutUniqueLabelKey]
	what := fmt.Sprintf("Rolls the pod template back to revision %d (%s)", rev, strings.Join(t.Images, ", "))
	switch {
	case hash == c.ro.Status.CurrentPodHash:
		t.Text = what + ": it is the current template, nothing changes."
	case hash == c.ro.Status.StableRS && c.canary() != nil:
		t.Text = what + ": it is the stable revision, so the rollout returns to it at once, skipping the steps."
	default:
		t.Text = what + "; this starts " + c.update() + "."
	}
	return t
}
