package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Symbols of the tree's object kinds.
const (
	iconRollout     = "⟳"
	iconRevision    = "#"
	iconReplicaSet  = "⧉"
	iconPod         = "□"
	iconAnalysisRun = "α"
)

// Render writes v as `get rollout` shows it: a summary, then the tree of
// revisions, ReplicaSets, pods and AnalysisRuns. ANSI colours only when
// color is true.
func Render(w io.Writer, v RolloutView, color bool) error {
	var b strings.Builder
	field := func(label, value string) { fmt.Fprintf(&b, "%-17s%s\n", label+":", value) }
	field("Name", v.Name)
	field("Namespace", v.Namespace)
	field("Status", paint(v.Status.String(), iconColors[v.Status.Icon], color))
	if v.Message != "" {
		field("Message", v.Message)
	}
	field("Strategy", v.Strategy)
	if v.Step != "" {
		field("  Step", v.Step)
	}
	if v.SetWeight != nil {
		field("  SetWeight", strconv.Itoa(int(*v.SetWeight)))
	}
	if v.ActualWeight != nil {
		field("  ActualWeight", strconv.Itoa(int(*v.ActualWeight)))
	}
	for i, im := range v.Images {
		label := ""
		if i == 0 {
			label = "Images:"
		}
		text := im.Image
		if len(im.Markers) > 0 {
			text += " (" + strings.Join(im.Markers, ", ") + ")"
		}
		fmt.Fprintf(&b, "%-17s%s\n", label, text)
	}
	b.WriteString("Replicas:\n")
	field("  Desired", strconv.Itoa(int(v.Replicas.Desired)))
	field("  Current", strconv.Itoa(int(v.Replicas.Current)))
	field("  Updated", strconv.Itoa(int(v.Replicas.Updated)))
	field("  Ready", strconv.Itoa(int(v.Replicas.Ready)))
	field("  Available", strconv.Itoa(int(v.Replicas.Available)))
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	rows := [][]cell{{{text: "NAME"}, {text: "KIND"}, {text: "STATUS"}, {text: "AGE"}, {text: "INFO"}}}
	rows = tree(rows, rolloutNode(v), "", "")
	return writeTable(w, rows, color)
}

// node is one line of the tree and the lines under it.
type node struct {
	icon, name, kind string
	status           *Status
	age, info        string
	kids             []node
}

func tree(rows [][]cell, n node, lead, kidLead string) [][]cell {
	st := cell{}
	if n.status != nil {
		st = statusCell(*n.status)
	}
	rows = append(rows, []cell{{text: lead + n.icon + " " + n.name}, {text: n.kind}, st, {text: n.age}, {text: n.info}})
	for i, k := range n.kids {
		if i == len(n.kids)-1 {
			rows = tree(rows, k, kidLead+"└──", kidLead+"   ")
		} else {
			rows = tree(rows, k, kidLead+"├──", kidLead+"│  ")
		}
	}
	return rows
}

func rolloutNode(v RolloutView) node {
	root := node{icon: iconRollout, name: v.Name, kind: "Rollout", status: &v.Status, age: v.Age}
	for _, rev := range v.Revisions {
		rn := node{icon: iconRevision, name: "revision:" + strconv.FormatInt(rev.Number, 10)}
		for _, rs := range rev.ReplicaSets {
			rn.kids = append(rn.kids, replicaSetNode(rs))
		}
		for _, ar := range rev.AnalysisRuns {
			rn.kids = append(rn.kids, analysisRunNode(ar))
		}
		for _, e := range rev.Experiments {
			rn.kids = append(rn.kids, experimentNode(e))
		}
		root.kids = append(root.kids, rn)
	}
	for _, ar := range v.AnalysisRuns {
		root.kids = append(root.kids, analysisRunNode(ar))
	}
	for _, e := range v.Experiments {
		root.kids = append(root.kids, experimentNode(e))
	}
	return root
}

func replicaSetNode(rs ReplicaSet) node {
	info := append([]string{}, rs.Markers...)
	if rs.Delay != "" {
		info = append(info, "delay:"+rs.Delay)
	}
	info = append(info, fmt.Sprintf("ready:%d/%d", rs.Ready, rs.Desired))
	n := node{icon: iconReplicaSet, name: rs.Name, kind: "ReplicaSet", status: &rs.Status, age: rs.Age, info: strings.Join(info, ",")}
	for _, p := range rs.Pods {
		info := "ready:" + p.Ready
		if p.Restarts > 0 {
			info += ",restarts:" + strconv.Itoa(int(p.Restarts))
		}
		n.kids = append(n.kids, node{icon: iconPod, name: p.Name, kind: "Pod", status: &p.Status, age: p.Age, info: info})
	}
	return n
}

func analysisRunNode(ar AnalysisRun) node {
	var info []string
	for _, c := range []struct {
		icon string
		n    int32
	}{{IconOK, ar.Successful}, {IconBad, ar.Failed}, {IconUnknown, ar.Inconclusive}, {IconWarning, ar.Error}} {
		if c.n > 0 {
			info = append(info, fmt.Sprintf("%s %d", c.icon, c.n))
		}
	}
	return node{icon: iconAnalysisRun, name: ar.Name, kind: "AnalysisRun", status: &ar.Status, age: ar.Age, info: strings.Join(info, ",")}
}

// RenderRows writes the rollout list table; namespaces adds a NAMESPACE
// column (for --all-namespaces).
func RenderRows(w io.Writer, rows []RolloutRow, namespaces bool) error {
	head := []string{"NAME", "STRATEGY", "STATUS", "STEP", "SET-WEIGHT", "READY", "DESIRED", "UP-TO-DATE", "AVAILABLE"}
	if namespaces {
		head = append([]string{"NAMESPACE"}, head...)
	}
	table := [][]cell{cells(head...)}
	for _, r := range rows {
		line := cells(r.Name, r.Strategy, r.Status, r.Step, r.SetWeight, r.Ready,
			strconv.Itoa(int(r.Desired)), strconv.Itoa(int(r.UpToDate)), strconv.Itoa(int(r.Available)))
		if namespaces {
			line = append(cells(r.Namespace), line...)
		}
		table = append(table, line)
	}
	return writeTable(w, table, false)
}

func cells(texts ...string) []cell {
	out := make([]cell, len(texts))
	for i, t := range texts {
		out[i] = cell{text: t}
	}
	return out
}
