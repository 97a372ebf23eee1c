//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// observation is one settled point of a trajectory, flattened to
// "object field" -> value so that two of them diff line by line. Values that
// carry a pod-template hash are rewritten to "H<revision>" (the hashes differ
// between the controllers by construction: see improvements_test.go), and
// times are left out.
type observation map[string]string

// world is what the harness reads of one namespace.
type world struct {
	rollouts, replicaSets, services, runs, experiments, events []unstructured.Unstructured
}

func (s *side) read(ctx context.Context, ns string) (*world, error) {
	w := &world{}
	for _, l := range []struct {
		dst *[]unstructured.Unstructured
		gvr schema.GroupVersionResource
	}{
		{&w.rollouts, gvrRollout}, {&w.replicaSets, gvrReplicaSet}, {&w.services, gvrService},
		{&w.runs, gvrAnalysisRun}, {&w.experiments, gvrExperiment}, {&w.events, gvrEvent},
	} {
		list, err := s.dyn.Resource(l.gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("%s: list %s: %w", s.name, l.gvr.Resource, err)
		}
		*l.dst = list.Items
	}
	return w, nil
}

const hashLabel = "rollouts-pod-template-hash"

// hashes maps every pod-template hash of the namespace's ReplicaSets to
// "H<revision>" (experiment ReplicaSets to "H<name without hash>").
func (w *world) hashes() map[string]string {
	out := map[string]string{}
	for _, rs := range w.replicaSets {
		h := rs.GetLabels()[hashLabel]
		if h == "" {
			continue
		}
		if rev := rs.GetAnnotations()["rollout.argoproj.io/revision"]; rev != "" {
			out[h] = "H" + rev
		} else {
			out[h] = "H" + strings.TrimSuffix(strings.ReplaceAll(rs.GetName(), h, ""), "-")
		}
	}
	return out
}

// normalizer rewrites hashes; longest first, so that no hash is a prefix hit.
type normalizer struct{ pairs []string }

func newNormalizer(h map[string]string) normalizer {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	var n normalizer
	for _, k := range keys {
		n.pairs = append(n.pairs, k, h[k])
	}
	return n
}

func (n normalizer) apply(s string) string {
	if len(n.pairs) == 0 {
		return s
	}
	return strings.NewReplacer(n.pairs...).Replace(s)
}

// ignoredMeta are keys that say nothing about behaviour (client bookkeeping).
var ignoredMeta = regexp.MustCompile(`^(kubectl\.kubernetes\.io/last-applied-configuration|deployment\.kubernetes\.io/.*)$`)

// observe flattens the world into an observation.
func (w *world) observe(opts observeOpts) observation {
	n := newNormalizer(w.hashes())
	o := observation{}
	put := func(k string, v any) {
		var s string
		switch v := v.(type) {
		case nil:
			return
		case string:
			s = v
		default:
			b, _ := json.Marshal(v)
			s = string(b)
		}
		if _, err := time.Parse(time.RFC3339, s); err == nil {
			s = "<time>" // deadlines and timestamps: when, not whether
		}
		o[n.apply(k)] = n.apply(s)
	}
	meta := func(prefix string, u *unstructured.Unstructured) {
		for k, v := range u.GetLabels() {
			if !ignoredMeta.MatchString(k) {
				put(prefix+" label "+k, v)
			}
		}
		for k, v := range u.GetAnnotations() {
			if !ignoredMeta.MatchString(k) && !opts.ignoreAnnotation(k) {
				put(prefix+" annotation "+k, v)
			}
		}
	}
	for i := range w.rollouts {
		r := &w.rollouts[i]
		p := "rollout/" + r.GetName()
		meta(p, r)
		st, _, _ := unstructured.NestedMap(r.Object, "status")
		for _, f := range []string{"phase", "message", "currentStepIndex", "controllerPause", "abort",
			"stableRS", "currentPodHash", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
			"HPAReplicas", "selector", "promoteFull"} {
			put(p+" status."+f, st[f])
		}
		put(p+" status.observedGeneration==generation", strconv.FormatBool(fmt.Sprint(st["observedGeneration"]) == strconv.FormatInt(r.GetGeneration(), 10)))
		put(p+" status.restartedAt set", strconv.FormatBool(st["restartedAt"] != nil))
		put(p+" status.abortedAt set", strconv.FormatBool(st["abortedAt"] != nil))
		if pcs, ok := st["pauseConditions"].([]any); ok {
			var reasons []string
			for _, pc := range pcs {
				reasons = append(reasons, fmt.Sprint(pc.(map[string]any)["reason"]))
			}
			put(p+" status.pauseConditions", strings.Join(reasons, ","))
		}
		if c, ok := st["canary"].(map[string]any); ok {
			if c["weights"] != nil {
				put(p+" status.canary.weights", c["weights"])
			}
			if a, ok := c["currentStepAnalysisRunStatus"].(map[string]any); ok {
				put(p+" status.canary.currentStepAnalysisRunStatus", a["name"].(string)+" "+fmt.Sprint(a["status"]))
			}
			if a, ok := c["currentBackgroundAnalysisRunStatus"].(map[string]any); ok {
				put(p+" status.canary.currentBackgroundAnalysisRunStatus", a["name"].(string)+" "+fmt.Sprint(a["status"]))
			}
			if e, ok := c["currentExperiment"].(string); ok {
				put(p+" status.canary.currentExperiment", e)
			}
		}
		if b, ok := st["blueGreen"].(map[string]any); ok {
			for _, f := range []string{"activeSelector", "previewSelector", "scaleUpPreviewCheckPoint"} {
				put(p+" status.blueGreen."+f, b[f])
			}
			if a, ok := b["prePromotionAnalysisRunStatus"].(map[string]any); ok {
				put(p+" status.blueGreen.prePromotionAnalysisRunStatus", a["name"].(string)+" "+fmt.Sprint(a["status"]))
			}
			if a, ok := b["postPromotionAnalysisRunStatus"].(map[string]any); ok {
				put(p+" status.blueGreen.postPromotionAnalysisRunStatus", a["name"].(string)+" "+fmt.Sprint(a["status"]))
			}
		}
		if conds, ok := st["conditions"].([]any); ok {
			for _, c := range conds {
				c := c.(map[string]any)
				put(p+" condition "+fmt.Sprint(c["type"]), fmt.Sprintf("%v/%v", c["status"], c["reason"]))
			}
		}
	}
	for i := range w.replicaSets {
		rs := &w.replicaSets[i]
		p := "replicaset/" + rs.GetName() // the hash in the name is normalized with the rest
		meta(p, rs)
		spec, _, _ := unstructured.NestedInt64(rs.Object, "spec", "replicas")
		ready, _, _ := unstructured.NestedInt64(rs.Object, "status", "readyReplicas")
		avail, _, _ := unstructured.NestedInt64(rs.Object, "status", "availableReplicas")
		put(p+" replicas spec/ready/available", fmt.Sprintf("%d/%d/%d", spec, ready, avail))
		tl, _, _ := unstructured.NestedStringMap(rs.Object, "spec", "template", "metadata", "labels")
		for k, v := range tl {
			put(p+" template label "+k, v)
		}
		ta, _, _ := unstructured.NestedStringMap(rs.Object, "spec", "template", "metadata", "annotations")
		for k, v := range ta {
			put(p+" template annotation "+k, v)
		}
	}
	for i := range w.services {
		s := &w.services[i]
		if s.GetName() == "kubernetes" {
			continue
		}
		p := "service/" + s.GetName()
		meta(p, s)
		sel, _, _ := unstructured.NestedStringMap(s.Object, "spec", "selector")
		put(p+" selector", sel)
	}
	for _, set := range []struct {
		kind  string
		items []unstructured.Unstructured
	}{{"analysisrun", w.runs}, {"experiment", w.experiments}} {
		for i := range set.items {
			u := &set.items[i]
			p := set.kind + "/" + u.GetName()
			meta(p, u)
			phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
			put(p+" status.phase", phase)
		}
	}
	return o
}

// eventReasons lists, sorted, the reasons of the Events about the Rollout.
// Only which reasons were said is compared, once the scenario is over:
// upstream records Events asynchronously (after the settled point is seen),
// aggregates identical ones and drops them past 25 per object (client-go's
// spam filter), so neither order nor counts are a contract.
func (w *world) eventReasons() string {
	seen := map[string]bool{}
	for _, e := range w.events {
		kind, _, _ := unstructured.NestedString(e.Object, "involvedObject", "kind")
		if kind != "Rollout" {
			continue
		}
		reason, _, _ := unstructured.NestedString(e.Object, "reason")
		seen[reason] = true
	}
	out := make([]string, 0, len(seen))
	for r := range seen {
		out = append(out, r)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// settled says whether the controllers' work on the ReplicaSets is done: every
// owned ReplicaSet has its desired pods ready and available, and the Rollout
// has observed its generation.
func (w *world) settled() error {
	for _, rs := range w.replicaSets {
		spec, _, _ := unstructured.NestedInt64(rs.Object, "spec", "replicas")
		for _, f := range []string{"replicas", "readyReplicas", "availableReplicas"} {
			got, _, _ := unstructured.NestedInt64(rs.Object, "status", f)
			if got != spec {
				return fmt.Errorf("replicaset %s: status.%s %d, spec %d", rs.GetName(), f, got, spec)
			}
		}
	}
	for _, r := range w.rollouts {
		og, _, _ := unstructured.NestedFieldNoCopy(r.Object, "status", "observedGeneration")
		if fmt.Sprint(og) != strconv.FormatInt(r.GetGeneration(), 10) {
			return fmt.Errorf("rollout %s: observedGeneration %v, generation %d", r.GetName(), og, r.GetGeneration())
		}
	}
	return nil
}

type observeOpts struct {
	ignoreAnnotations []string
}

func (o observeOpts) ignoreAnnotation(k string) bool {
	for _, p := range o.ignoreAnnotations {
		if k == p {
			return true
		}
	}
	return false
}
