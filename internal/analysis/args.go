package analysis

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// placeholder matches {{args.NAME}} (blanks inside the braces allowed).
var placeholder = regexp.MustCompile(`\{\{\s*args\.([A-Za-z0-9_.-]+)\s*\}\}`)

// Args are the resolved argument values of a run, by name, and which of
// them came from a Secret.
type Args struct {
	Values  map[string]string
	Secrets map[string]bool
}

// Substitute returns m with every {{args.NAME}} placeholder in any of its
// string fields replaced by the argument's value (JSON-escaped where it
// lands inside a JSON string, so a value cannot change the metric's
// structure). A placeholder naming an argument without a value is an error
// that names the metric and the argument.
func Substitute(m rampv1.Metric, args Args) (rampv1.Metric, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return m, fmt.Errorf("metric %q: %w", m.Name, err)
	}
	var missing []string
	out := placeholder.ReplaceAllFunc(raw, func(tag []byte) []byte {
		name := string(placeholder.FindSubmatch(tag)[1])
		v, ok := args.Values[name]
		if !ok {
			missing = append(missing, name)
			return tag
		}
		quoted, _ := json.Marshal(v) // a string always encodes
		return quoted[1 : len(quoted)-1]
	})
	if len(missing) > 0 {
		sort.Strings(missing)
		return m, fmt.Errorf("metric %q: argument %q is not defined or has no value", m.Name, missing[0])
	}
	var res rampv1.Metric
	if err := json.Unmarshal(out, &res); err != nil {
		return m, fmt.Errorf("metric %q: after argument substitution: %w", m.Name, err)
	}
	return res, nil
}

// Redact replaces every secret argument value in s, in every form and
// piece a Redactor knows, by Mask. Messages, values and metadata that
// providers return pass through it before they are stored, so a Secret
// never reaches status, Events or logs. It builds the Redactor each call:
// a caller redacting several texts builds it once with Redactor.
func (a Args) Redact(s string) string { return a.Redactor().Redact(s) }

// RedactMap applies Redact to every value of m (in place) and returns it.
func (a Args) RedactMap(m map[string]string) map[string]string {
	r := a.Redactor()
	for k, v := range m {
		m[k] = r.Redact(v)
	}
	return m
}

// substituteKnown replaces the placeholders whose argument value is known
// (known maps names to values), leaves the others, and reports whether none
// is left (an argument from a Secret is read only when a measurement is
// taken).
func substituteKnown(m rampv1.Metric, known map[string]string) (rampv1.Metric, bool) {
	raw, err := json.Marshal(m)
	if err != nil {
		return m, false
	}
	complete := true
	out := placeholder.ReplaceAllFunc(raw, func(tag []byte) []byte {
		v, ok := known[string(placeholder.FindSubmatch(tag)[1])]
		if !ok {
			complete = false
			return tag
		}
		quoted, _ := json.Marshal(v) // a string always encodes
		return quoted[1 : len(quoted)-1]
	})
	var res rampv1.Metric
	if err := json.Unmarshal(out, &res); err != nil {
		return m, false
	}
	return res, complete
}

// knownArgs maps the arguments that carry a plain value to it.
func knownArgs(args []rampv1.Argument) map[string]string {
	known := map[string]string{}
	for _, a := range args {
		if a.Value != nil {
			known[a.Name] = *a.Value
		}
	}
	return known
}

// ResolveKnown returns the run spec with every placeholder of a plain-valued
// argument substituted in its metrics, as upstream resolves them before it
// schedules or judges anything: `count: "{{args.count}}"` counts. Arguments
// from Secrets stay placeholders until a measurement substitutes them, so
// they never reach a stored object.
func ResolveKnown(spec rampv1.AnalysisRunSpec) rampv1.AnalysisRunSpec {
	known := knownArgs(spec.Args)
	if len(known) == 0 {
		return spec
	}
	out := *spec.DeepCopy()
	for i, m := range out.Metrics {
		out.Metrics[i], _ = substituteKnown(m, known)
	}
	return out
}
