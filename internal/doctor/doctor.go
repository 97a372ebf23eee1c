// Package doctor checks what is running in a cluster: the rules `ramp lint`
// applies to manifests, applied to the live Rollouts and
// HorizontalPodAutoscalers, plus what only the cluster knows (an HPA that
// reports it cannot scale, a metrics API that is not served, a controller
// that is not running, a Rollout the controller found invalid).
//
// Check is pure: the CLI reads a Snapshot and prints the Findings.
package doctor

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/lint"
)

// Info is a finding that is not a problem: what is in force.
const Info lint.Severity = "info"

// Snapshot is what doctor reads from a cluster.
type Snapshot struct {
	Now         time.Time
	Rollouts    []rampv1.Rollout
	HPAs        []autoscalingv2.HorizontalPodAutoscaler
	Experiments []rampv1.Experiment
	// MetricsAPI is nil when metrics.k8s.io/v1beta1 is served, else why
	// it is not.
	MetricsAPI error
	// Lease is the controller's leader-election Lease (nil: none found in
	// LeaseNamespaces); LeaseErr is set when it could not be read.
	Lease           *coordinationv1.Lease
	LeaseNamespaces []string
	LeaseErr        error
}

// Finding is one observation about one object.
type Finding struct {
	// Object is "Kind namespace/name".
	Object   string
	Field    string
	Severity lint.Severity
	Message  string
}

// String is "Kind namespace/name: severity: field: message".
func (f Finding) String() string {
	field := ""
	if f.Field != "" {
		field = f.Field + ": "
	}
	return fmt.Sprintf("%s: %s: %s%s", f.Object, f.Severity, field, f.Message)
}

// Check examines a snapshot. Findings are ordered by object (controller
// first, then Rollouts and HPAs by name), errors before warnings before
// info.
func Check(s Snapshot) []Finding {
	var out []Finding
	out = append(out, controller(s)...)
	out = append(out, rules(s)...)
	for i := range s.Rollouts {
		out = append(out, rollout(&s.Rollouts[i], out)...)
	}
	for i := range s.HPAs {
		out = append(out, hpa(s, &s.HPAs[i])...)
	}
	for i := range s.Experiments {
		out = append(out, experiment(&s.Experiments[i], out)...)
	}
	rank := map[lint.Severity]int{lint.Error: 0, lint.Warning: 1, Info: 2}
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(objectRank(a.Object), objectRank(b.Object)), cmp.Compare(a.Object, b.Object),
			cmp.Compare(rank[a.Severity], rank[b.Severity]))
	})
	return out
}

// objectRank puts the controller's Lease first.
func objectRank(o string) int {
	if strings.HasPrefix(o, "Lease ") {
		return 0
	}
	return 1
}

// Count returns the number of errors and warnings.
func Count(fs []Finding) (errors, warnings int) {
	for _, f := range fs {
		switch f.Severity {
		case lint.Error:
			errors++
		case lint.Warning:
			warnings++
		}
	}
	return errors, warnings
}

func ref(kind, ns, name string) string { return kind + " " + ns + "/" + name }

// rules runs lint's rules on the live objects, so that doctor and lint can
// never disagree about a manifest.
func rules(s Snapshot) []Finding {
	var objs []lint.Object
	add := func(apiVersion, kind, ns, name string, v any) {
		data, err := json.Marshal(v)
		if err != nil { // typed API objects always marshal
			panic(err)
		}
		objs = append(objs, lint.Object{File: ref(kind, ns, name), APIVersion: apiVersion, Kind: kind, JSON: data})
	}
	for _, ro := range s.Rollouts {
		ro.APIVersion, ro.Kind = rampv1.GroupVersion.String(), "Rollout"
		ro.ManagedFields = nil
		add(ro.APIVersion, ro.Kind, ro.Namespace, ro.Name, &ro)
	}
	for _, h := range s.HPAs {
		h.APIVersion, h.Kind = autoscalingv2.SchemeGroupVersion.String(), "HorizontalPodAutoscaler"
		h.ManagedFields = nil
		add(h.APIVersion, h.Kind, h.Namespace, h.Name, &h)
	}
	for _, ex := range s.Experiments {
		ex.APIVersion, ex.Kind = rampv1.GroupVersion.String(), "Experiment"
		ex.ManagedFields = nil
		add(ex.APIVersion, ex.Kind, ex.Namespace, ex.Name, &ex)
	}
	var out []Finding
	for _, f := range lint.Lint(objs) {
		out = append(out, Finding{Object: f.File, Field: f.Field, Severity: f.Severity, Message: f.Message})
	}
	return out
}
