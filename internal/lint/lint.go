package lint

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/experiment"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// Severity is how bad a Finding is.
type Severity string

// Severities.
const (
	// Error: the API server would reject the object, or Ramp would not run
	// it (InvalidSpec). `ramp lint` exits 1.
	Error Severity = "error"
	// Warning: it applies and runs, but not as its author likely expects.
	Warning Severity = "warning"
)

// Finding is one problem in one document of a file.
type Finding struct {
	File string `json:"file"`
	// Line and Column (1-based) are where the offending field is written:
	// its key, or the item of a list; the nearest enclosing field that is
	// written when the field itself is missing (a required value); the
	// problem itself for malformed YAML.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Kind and Name identify the object ("" for a document that is not one);
	// a generateName ends in "*".
	Kind     string   `json:"kind,omitempty"`
	Name     string   `json:"name,omitempty"`
	Field    string   `json:"field,omitempty"` // e.g. spec.strategy.canary.steps[2]; empty for the whole document
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String is "file:line:column: severity: Kind/name: field: message" (without
// the parts that are empty).
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d: %s: ", f.File, f.Line, max(f.Column, 1), f.Severity)
	if f.Kind != "" {
		fmt.Fprintf(&b, "%s/%s: ", f.Kind, f.Name)
	}
	if f.Field != "" {
		b.WriteString(f.Field + ": ")
	}
	b.WriteString(f.Message)
	return b.String()
}

// Object is one document of a manifest file.
type Object struct {
	File string
	Line int // 1-based line of the document's first line of content
	// APIVersion and Kind identify the object's type, e.g.
	// "argoproj.io/v1alpha1" and "Rollout"; Name is metadata.name (or
	// generateName followed by "*").
	APIVersion, Kind, Name string
	// JSON is the document converted to JSON.
	JSON []byte
	// node is the document's YAML node tree, for positions (nil for JSON
	// input that did not parse as YAML nodes).
	node *yaml.Node
}

// At returns where a field path of the object is written (the nearest
// enclosing field that is, when it is not), and the path with any index a
// decoding error left out filled in.
func (o *Object) At(field string) (Position, string) {
	if o.node == nil || field == "" {
		return Position{o.Line, 1}, field
	}
	pos, resolved, _ := locate(o.node, field)
	if pos.Line == 0 {
		pos = Position{o.Line, 1}
	}
	return pos, resolved
}

// File is a named manifest file's content ("-" names standard input).
type File struct {
	Name string
	Data []byte
}

// Check parses every file and lints all their objects together (an HPA in
// one file is checked against the Rollout in another), returning the
// findings ordered by file, then line.
func Check(files ...File) []Finding {
	var objs []Object
	var out []Finding
	for _, f := range files {
		o, fs := Parse(f.Name, f.Data)
		objs, out = append(objs, o...), append(out, fs...)
	}
	out = append(out, Lint(objs)...)
	order := map[string]int{}
	for i, f := range files {
		if _, ok := order[f.Name]; !ok {
			order[f.Name] = i
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := order[out[i].File], order[out[j].File]; a != b {
			return a < b
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	return out
}

// HasErrors reports whether any finding is an Error.
func HasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

// Lint checks decoded objects: each Rollout on its own (plan.ValidateRollout
// errors; blue-green and header-route warnings), and
// HPAs and Argo CD hooks against the Rollouts among objects. Objects of
// kinds it does not know are ignored.
func Lint(objects []Object) []Finding {
	ix := newIndex(objects)
	for _, r := range ix.rollouts {
		ix.rolloutErrors(r)
		ix.serviceRefs(r)
		ix.ingressRefs(r)
		ix.blueGreenPostPromotion(r)
		ix.canaryStalls(r)
	}
	for _, h := range ix.hpas {
		ix.hpaTrafficRouting(h)
		ix.hpaResourceRequests(h)
	}
	for _, h := range ix.hooks {
		ix.hookPromotes(h)
	}
	return ix.out
}

// rolloutErrors reports what the controller would report as InvalidSpec
// (plan.ValidateRollout: value rules upstream's CRD schema leaves to the
// controller, then what this version cannot run). Unknown fields and wrong
// types, which admission rejects, are found while decoding.
func (ix *index) rolloutErrors(r rolloutDoc) {
	msgs := plan.ValidateRollout(r.ro)
	if msg := plan.ValidateSupported(r.ro); msg != "" {
		msgs = append(msgs, msg)
	}
	for _, msg := range msgs {
		field, rest := splitField(msg)
		// A feature this version cannot run is an error too: the controller
		// refuses the Rollout with these words (InvalidSpec).
		ix.add(r.obj, Error, field, rest)
	}
}

// fieldPrefix is the field path a controller message starts with.
var fieldPrefix = regexp.MustCompile(`^[A-Za-z0-9_.\[\]]+`)

// splitField splits "spec.selector: message" or `spec.x "v": message` into
// the field path and the rest.
func splitField(msg string) (field, rest string) {
	field = fieldPrefix.FindString(msg)
	rest = strings.TrimPrefix(strings.TrimPrefix(msg[len(field):], ":"), " ")
	return field, rest
}

// rolloutDoc is a decoded Rollout and the document it came from.
type rolloutDoc struct {
	obj *Object
	ro  *rampv1.Rollout
}

// index holds the decoded objects the rules look at, and the findings.
type index struct {
	rollouts  []rolloutDoc
	hpas      []hpaDoc
	hooks     []hookDoc
	services  []serviceDoc
	ingresses []ingressDoc
	out       []Finding
}

func newIndex(objects []Object) *index {
	ix := &index{}
	for i := range objects {
		o := &objects[i]
		obj, err := decode(o)
		if err != nil {
			ix.decodeError(o, err)
			if obj == nil {
				continue
			}
		}
		switch v := obj.(type) {
		case *rampv1.Rollout:
			ix.rollouts = append(ix.rollouts, rolloutDoc{obj: o, ro: v})
		case *rampv1.AnalysisTemplate:
			ix.analysisTemplate(o, &v.Spec)
		case *rampv1.ClusterAnalysisTemplate:
			ix.analysisTemplate(o, &v.Spec)
		case *rampv1.AnalysisRun:
			ix.analysisRun(o, &v.Spec)
		case *rampv1.Experiment:
			if msg := experiment.Validate(v); msg != "" {
				field, rest := splitField(msg)
				ix.add(o, Error, field, rest)
			}
		default:
			ix.addWorkload(o, obj)
		}
	}
	return ix
}

// decodeError reports unknown fields of Ramp's kinds (kubectl's strict
// field validation rejects them) and values of the wrong type.
func (ix *index) decodeError(o *Object, err error) {
	if se, ok := runtime.AsStrictDecodingError(err); ok {
		if !strings.HasPrefix(o.APIVersion, rampv1.GroupVersion.Group+"/") {
			return
		}
		for _, e := range se.Errors() {
			msg := e.Error()
			if m := quotedField.FindStringSubmatch(msg); m != nil {
				ix.add(o, Error, m[2], m[1]+" (kubectl apply rejects it; without strict validation the API server drops it)")
				continue
			}
			ix.add(o, Error, "", msg)
		}
		return
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if m := typeField.FindStringSubmatch(msg); m != nil {
		field := m[3]
		if k, ok := jsonKinds[m[1]]; ok && o.node != nil {
			if _, p, found := locateKind(o.node, field, k.kind, k.tag); found {
				field = p
			}
		}
		ix.add(o, Error, field, fmt.Sprintf("got a %s, want %s", m[1], m[4]))
		return
	}
	if strings.Contains(msg, "quantities must match") {
		// The decoder names no field: find every quantity that does not parse.
		if bad := badQuantities(o); len(bad) > 0 {
			for _, f := range bad {
				ix.add(o, Error, f.path, fmt.Sprintf("%q is not a quantity (e.g. 128Mi, 0.5, 250m)", f.value))
			}
			return
		}
	}
	ix.add(o, Error, "", msg)
}

// quantityField is a resource quantity as written, and where.
type quantityField struct{ path, value string }

// badQuantities lists the values of resources.requests and
// resources.limits (and a pod's overhead) that are not quantities.
func badQuantities(o *Object) []quantityField {
	var out []quantityField
	for _, p := range findAll(o.node, func(parent, _ string, v *yaml.Node) bool {
		if (parent != "requests" && parent != "limits" && parent != "overhead") || v.Kind != yaml.ScalarNode {
			return false
		}
		if _, err := resource.ParseQuantity(v.Value); err != nil {
			return true
		}
		return false
	}) {
		out = append(out, quantityField{path: p})
	}
	for i := range out {
		if n, _, ok := locateValue(o.node, out[i].path); ok {
			out[i].value = n
		}
	}
	return out
}

var (
	quotedField = regexp.MustCompile(`^(unknown field|duplicate field) "([^"]+)"`)
	typeField   = regexp.MustCompile(`cannot unmarshal (\S+) into Go (struct field|value) (?:\S+?\.)?(\S+) of type (\S+)`)
)

// add records a finding about a field of o (the whole object when field is
// ""), at the position the field is written.
func (ix *index) add(o *Object, sev Severity, field, msg string) {
	pos, field := o.At(field)
	ix.out = append(ix.out, Finding{File: o.File, Line: pos.Line, Column: pos.Column, Kind: o.Kind, Name: o.Name,
		Field: field, Severity: sev, Message: msg})
}
