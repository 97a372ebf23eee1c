package lint

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

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
	File string
	// Line is the 1-based line of the document's first line of content (of
	// the error itself for malformed YAML).
	Line     int
	Field    string // e.g. spec.strategy.canary.steps[2]; empty for the whole document
	Severity Severity
	Message  string
}

// String is "file:line: severity: field: message" (without "field: " when
// the finding is about the whole document).
func (f Finding) String() string {
	field := ""
	if f.Field != "" {
		field = f.Field + ": "
	}
	return fmt.Sprintf("%s:%d: %s: %s%s", f.File, f.Line, f.Severity, field, f.Message)
}

// Object is one document of a manifest file.
type Object struct {
	File string
	Line int // 1-based line of the document's first line of content
	// APIVersion and Kind identify the object's type, e.g.
	// "argoproj.io/v1alpha1" and "Rollout".
	APIVersion, Kind string
	// JSON is the document converted to JSON.
	JSON []byte
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
		return out[i].Line < out[j].Line
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
	for _, msg := range plan.ValidateRollout(r.ro) {
		field, rest := splitField(msg)
		// A feature this version cannot run yet is a warning: the manifest is
		// right, and the controller will report InvalidSpec until it can.
		sev := Error
		if strings.Contains(msg, "not supported by this version of Ramp") {
			sev = Warning
		}
		ix.add(r.obj, sev, field, rest)
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
	rollouts []rolloutDoc
	hpas     []hpaDoc
	hooks    []hookDoc
	out      []Finding
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
		ix.add(o, Error, m[3], fmt.Sprintf("got a %s, want %s", m[1], m[4]))
		return
	}
	ix.add(o, Error, "", msg)
}

var (
	quotedField = regexp.MustCompile(`^(unknown field|duplicate field) "([^"]+)"`)
	typeField   = regexp.MustCompile(`cannot unmarshal (\S+) into Go (struct field|value) (?:\S+?\.)?(\S+) of type (\S+)`)
)

func (ix *index) add(o *Object, sev Severity, field, msg string) {
	ix.out = append(ix.out, Finding{File: o.File, Line: o.Line, Field: field, Severity: sev, Message: msg})
}
