package analysis

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

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
		quoted, _ := json.Marshal(v)
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

// Redact replaces every secret argument value in s by "*****". Messages,
// values and metadata that providers return pass through it before they are
// stored, so a Secret never reaches status, Events or logs.
func (a Args) Redact(s string) string {
	for name := range a.Secrets {
		if v := a.Values[name]; v != "" {
			s = strings.ReplaceAll(s, v, "*****")
		}
	}
	return s
}

// RedactMap applies Redact to every value of m (in place) and returns it.
func (a Args) RedactMap(m map[string]string) map[string]string {
	for k, v := range m {
		m[k] = a.Redact(v)
	}
	return m
}
