//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	pods                                                       []unstructured.Unstructured // for conditions, and labels summarized per ReplicaSet
	// routes are the traffic routers' objects (see routeGVRs), by kind.
	routes map[string][]unstructured.Unstructured
	// metrics are the controller's samples about the namespace's objects.
	metrics []sample
}

// routeGVRs are the objects a traffic router writes, read at the version
// each project documents (the API server converts nothing between these
// versions: what a controller wrote is what is read).
var routeGVRs = map[string]schema.GroupVersionResource{
	"virtualservice":  {Group: "networking.istio.io", Version: "v1alpha3", Resource: "virtualservices"},
	"destinationrule": {Group: "networking.istio.io", Version: "v1alpha3", Resource: "destinationrules"},
	"ingress":         {Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"},
	"trafficsplit":    {Group: "split.smi-spec.io", Version: "v1alpha1", Resource: "trafficsplits"},
	"httproute":       {Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"},
}

func (s *side) read(ctx context.Context, ns string) (*world, error) {
	w := &world{}
	for _, l := range []struct {
		dst *[]unstructured.Unstructured
		gvr schema.GroupVersionResource
	}{
		{&w.rollouts, gvrRollout}, {&w.replicaSets, gvrReplicaSet}, {&w.services, gvrService},
		{&w.runs, gvrAnalysisRun}, {&w.experiments, gvrExperiment}, {&w.events, gvrEvent}, {&w.pods, gvrPod},
	} {
		list, err := s.dyn.Resource(l.gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("%s: list %s: %w", s.name, l.gvr.Resource, err)
		}
		*l.dst = list.Items
	}
	w.routes = map[string][]unstructured.Unstructured{}
	for kind, gvr := range routeGVRs {
		list, err := s.dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) {
			continue // that version is not served: nothing of it to read
		}
		if err != nil {
			return nil, fmt.Errorf("%s: list %s: %w", s.name, gvr.Resource, err)
		}
		w.routes[kind] = list.Items
	}
	if s.metricsAddr == "" {
		return w, nil // a plane whose controller changes under the reader (migration_test.go)
	}
	samples, _, err := s.scrape(ctx)
	if err != nil {
		return nil, err
	}
	for _, sm := range samples {
		if sm.labels["namespace"] == ns {
			w.metrics = append(w.metrics, sm)
		}
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
		if rev := rs.GetAnnotations()["rollout.argoproj.io/revision"]; h != "" && rev != "" {
			out[h] = "H" + rev
		}
	}
	// an experiment's name carries its Rollout's hash: normalized first
	revs := newNormalizer(maps.Clone(out))
	for _, rs := range w.replicaSets {
		h := rs.GetLabels()[hashLabel]
		if h != "" && rs.GetAnnotations()["rollout.argoproj.io/revision"] == "" {
			out[h] = "H" + revs.apply(strings.TrimSuffix(strings.ReplaceAll(rs.GetName(), h, ""), "-"))
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
		aff, _, _ := unstructured.NestedMap(rs.Object, "spec", "template", "spec", "affinity")
		if len(aff) > 0 {
			put(p+" template affinity", aff)
		}
		if pl := w.podLabels(rs.GetName()); pl != "" {
			put(p+" pods' labels", pl)
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
			if set.kind == "experiment" {
				observeExperiment(put, p, u)
				continue
			}
			msg, _, _ := unstructured.NestedString(u.Object, "status", "message")
			put(p+" status.message", msg)
			mrs, _, _ := unstructured.NestedSlice(u.Object, "status", "metricResults")
			for _, mr := range mrs {
				mr, _ := mr.(map[string]any)
				put(fmt.Sprintf("%s metric %v phase", p, mr["name"]), mr["phase"])
				if mr["dryRun"] == true {
					put(fmt.Sprintf("%s metric %v dryRun", p, mr["name"]), "true")
				}
			}
			if ds, ok, _ := unstructured.NestedMap(u.Object, "status", "dryRunSummary"); ok {
				put(p+" status.dryRunSummary", ds)
			}
		}
	}
	for kind, items := range w.routes {
		for i := range items {
			u := &items[i]
			p := kind + "/" + u.GetName()
			meta(p, u)
			put(p+" spec", u.Object["spec"]) // json.Marshal sorts map keys: canonical
			put(p+" written as", writtenAs(u))
		}
	}
	observeMetrics(put, w.metrics)
	return o
}

// writtenAs lists the API versions in which controllers (not kubectl, which
// applied the scenario's manifests) wrote the object, "" if none did.
func writtenAs(u *unstructured.Unstructured) string {
	seen := map[string]bool{}
	for _, mf := range u.GetManagedFields() {
		if !strings.HasPrefix(mf.Manager, "kubectl") {
			seen[mf.APIVersion] = true
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
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
		if lostRace(e.Object) {
			continue
		}
		seen[reason] = true
	}
	out := make([]string, 0, len(seen))
	for r := range seen {
		out = append(out, r)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// lostRace reports a Warning Event about a write that lost an
// optimistic-concurrency race ("the object has been modified"): the
// controller retries it on its next pass, and whether two writers collide is
// timing, not behaviour (seen from upstream on its own VirtualService
// writes, as TrafficRoutingError).
func lostRace(e map[string]any) bool {
	typ, _, _ := unstructured.NestedString(e, "type")
	msg, _, _ := unstructured.NestedString(e, "message")
	return typ == "Warning" && strings.Contains(msg, "the object has been modified")
}

// raceOnlyReasons are the Warning reasons every one of whose Events about
// the Rollout lost a race (lostRace): rollout_events_total counts them
// without their message, so they are taken out of the counted reasons.
func (w *world) raceOnlyReasons() map[string]bool {
	race, other := map[string]bool{}, map[string]bool{}
	for _, e := range w.events {
		if kind, _, _ := unstructured.NestedString(e.Object, "involvedObject", "kind"); kind != "Rollout" {
			continue
		}
		reason, _, _ := unstructured.NestedString(e.Object, "reason")
		if lostRace(e.Object) {
			race["Warning/"+reason] = true
		} else {
			typ, _, _ := unstructured.NestedString(e.Object, "type")
			other[typ+"/"+reason] = true
		}
	}
	for r := range other {
		delete(race, r)
	}
	return race
}

// eventBurst is client-go's spam filter: each controller's recorder accepts
// 25 Events per object, then one per five minutes, and drops the rest.
const eventBurst = 25

// eventsRecorded counts the Events about the Rollout that the recorder let
// through (an aggregated Event counts each time it was said).
func (w *world) eventsRecorded() int64 {
	var n int64
	for _, e := range w.events {
		if kind, _, _ := unstructured.NestedString(e.Object, "involvedObject", "kind"); kind != "Rollout" {
			continue
		}
		c, ok, _ := unstructured.NestedInt64(e.Object, "count")
		if !ok || c < 1 {
			c = 1
		}
		n += c
	}
	return n
}

// podLabels summarizes the labels of a ReplicaSet's live pods: each distinct
// label set, sorted, with how many pods carry it ("" without pods).
func (w *world) podLabels(rs string) string {
	count := map[string]int{}
	for _, p := range w.pods {
		if p.GetDeletionTimestamp() != nil || !ownedBy(&p, rs) {
			continue
		}
		var kv []string
		for k, v := range p.GetLabels() {
			kv = append(kv, k+"="+v)
		}
		sort.Strings(kv)
		count[strings.Join(kv, ",")]++
	}
	var out []string
	for set, n := range count {
		out = append(out, fmt.Sprintf("%s x%d", set, n))
	}
	sort.Strings(out)
	return strings.Join(out, " | ")
}

func ownedBy(u *unstructured.Unstructured, name string) bool {
	for _, o := range u.GetOwnerReferences() {
		if o.Name == name {
			return true
		}
	}
	return false
}

// unschedulable counts a ReplicaSet's pods the scheduler cannot place (a
// scenario's way to have pods that never become ready).
func (w *world) unschedulable(rs string) int64 {
	var n int64
	for _, p := range w.pods {
		if p.GetDeletionTimestamp() != nil || !ownedBy(&p, rs) {
			continue
		}
		conds, _, _ := unstructured.NestedSlice(p.Object, "status", "conditions")
		for _, c := range conds {
			c, _ := c.(map[string]any)
			if c["type"] == "PodScheduled" && c["status"] == "False" && c["reason"] == "Unschedulable" {
				n++
			}
		}
	}
	return n
}

// settled says whether the controllers' work on the ReplicaSets is done: every
// owned ReplicaSet has its desired pods ready and available (or unschedulable,
// so never to be ready), and the Rollout has observed its generation.
func (w *world) settled() error {
	for _, rs := range w.replicaSets {
		spec, _, _ := unstructured.NestedInt64(rs.Object, "spec", "replicas")
		stuck := w.unschedulable(rs.GetName())
		for _, f := range []string{"replicas", "readyReplicas", "availableReplicas"} {
			got, _, _ := unstructured.NestedInt64(rs.Object, "status", f)
			if f != "replicas" {
				got += stuck
			}
			if got != spec {
				return fmt.Errorf("replicaset %s: status.%s %d (+%d unschedulable), spec %d", rs.GetName(), f, got, stuck, spec)
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

// observeExperiment puts an Experiment's message, its templates' status and
// replica counts, its analyses' phases and its conditions.
func observeExperiment(put func(string, any), p string, u *unstructured.Unstructured) {
	msg, _, _ := unstructured.NestedString(u.Object, "status", "message")
	put(p+" status.message", msg)
	ts, _, _ := unstructured.NestedSlice(u.Object, "status", "templateStatuses")
	for _, t := range ts {
		t, _ := t.(map[string]any)
		put(fmt.Sprintf("%s template %v", p, t["name"]), fmt.Sprintf("%v %v/%v/%v/%v %v",
			t["status"], t["replicas"], t["updatedReplicas"], t["readyReplicas"], t["availableReplicas"], t["message"]))
	}
	ars, _, _ := unstructured.NestedSlice(u.Object, "status", "analysisRuns")
	for _, a := range ars {
		a, _ := a.(map[string]any)
		put(fmt.Sprintf("%s analysis %v", p, a["name"]), fmt.Sprintf("%v %v %v", a["analysisRun"], a["phase"], a["message"]))
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		c, _ := c.(map[string]any)
		put(fmt.Sprintf("%s condition %v", p, c["type"]), fmt.Sprintf("%v/%v", c["status"], c["reason"]))
	}
	put(p+" status.availableAt set", strconv.FormatBool(unstructuredHas(u, "status", "availableAt")))
}

func unstructuredHas(u *unstructured.Unstructured, fields ...string) bool {
	_, ok, _ := unstructured.NestedFieldNoCopy(u.Object, fields...)
	return ok
}
