package view

import (
	"cmp"
	"slices"
	"strings"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// iconExperiment marks an Experiment in the tree.
const iconExperiment = "Σ"

// Experiment is one Experiment of a Rollout's experiment step.
type Experiment struct {
	Name      string   `json:"name"`
	Status    Status   `json:"status"`
	Templates []string `json:"templates,omitempty"`
	Age       string   `json:"age,omitempty"`
}

// AddExperiments puts the Rollout's Experiments under the revision whose
// ReplicaSet has their pod-template hash label, the others under the
// Rollout; the caller selects them (by owner).
func (v *RolloutView) AddExperiments(exps []rampv1.Experiment, now time.Time) {
	revOfHash := map[string]int{}
	for i, rev := range v.Revisions {
		for _, rs := range rev.ReplicaSets {
			revOfHash[rs.Hash] = i
		}
	}
	for i := range exps {
		ex := &exps[i]
		e := Experiment{Name: ex.Name, Status: analysisStatus(ex.Status.Phase), Age: Age(ex.CreationTimestamp.Time, now)}
		for _, t := range ex.Spec.Templates {
			e.Templates = append(e.Templates, t.Name)
		}
		if i, ok := revOfHash[ex.Labels[rampv1.DefaultRolloutUniqueLabelKey]]; ok {
			v.Revisions[i].Experiments = append(v.Revisions[i].Experiments, e)
		} else {
			v.Experiments = append(v.Experiments, e)
		}
	}
	byName := func(a, b Experiment) int { return cmp.Compare(a.Name, b.Name) }
	for i := range v.Revisions {
		slices.SortFunc(v.Revisions[i].Experiments, byName)
	}
	slices.SortFunc(v.Experiments, byName)
}

func experimentNode(e Experiment) node {
	return node{icon: iconExperiment, name: e.Name, kind: "Experiment", status: &e.Status, age: e.Age,
		info: "templates:" + strings.Join(e.Templates, ",")}
}
