package web

import (
	"encoding/json"
	"fmt"

	"k8s.io/client-go/util/jsonpath"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// jsonPath is a parsed jsonPath and its source, for error messages.
type jsonPath struct {
	source string
	path   *jsonpath.JSONPath
}

// parsePath parses a metric's jsonPath (rampv1.DefaultWebMetricJSONPath
// when empty).
func parsePath(source string) (jsonPath, error) {
	if source == "" {
		source = rampv1.DefaultWebMetricJSONPath
	}
	path := jsonpath.New("jsonPath")
	if err := path.Parse(source); err != nil {
		return jsonPath{}, fmt.Errorf("invalid jsonPath %q: %w", source, err)
	}
	return jsonPath{source: source, path: path}, nil
}

// find decodes a JSON response and returns what path finds in it: the one
// value found, or a []any of several or of none (a wildcard, slice or filter
// that matched nothing). A missing key is an error.
func find(path jsonPath, body []byte) (value any, err error) {
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the response is not JSON: %w", err)
	}
	defer func() { // jsonpath is not hardened against every document
		if r := recover(); r != nil {
			value, err = nil, fmt.Errorf("jsonPath %q: %v", path.source, r)
		}
	}()
	results, err := path.path.FindResults(doc)
	if err != nil {
		return nil, fmt.Errorf("jsonPath %q: %w", path.source, err)
	}
	var values []any
	for _, list := range results {
		for _, v := range list {
			if !v.IsValid() || !v.CanInterface() {
				values = append(values, nil)
				continue
			}
			values = append(values, v.Interface())
		}
	}
	switch len(values) {
	case 0: // a wildcard, slice or filter that matched nothing
		return []any{}, nil
	case 1:
		return values[0], nil
	}
	return values, nil
}
