package analysis

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// FieldValue reads the field at path from obj (an object decoded from
// JSON), as a Rollout's valueFrom.fieldRef.fieldPath names it:
// "metadata.name", "metadata.labels['app']", "spec.template.spec.containers[0].image".
// Strings are returned as they are, other values as JSON.
func FieldValue(obj map[string]any, path string) (string, error) {
	var cur any = obj
	rest := path
	for rest != "" {
		var key string
		var index = -1
		switch {
		case strings.HasPrefix(rest, "['") || strings.HasPrefix(rest, `["`):
			q := rest[1:2]
			end := strings.Index(rest[2:], q+"]")
			if end < 0 {
				return "", fmt.Errorf("fieldPath %q: unterminated [%s", path, q)
			}
			key, rest = rest[2:2+end], rest[2+end+2:]
		case strings.HasPrefix(rest, "["):
			end := strings.Index(rest, "]")
			n, err := strconv.Atoi(rest[1:max(end, 1)])
			if end < 0 || err != nil || n < 0 {
				return "", fmt.Errorf("fieldPath %q: bad index in %q", path, rest)
			}
			index, rest = n, rest[end+1:]
		default:
			rest = strings.TrimPrefix(rest, ".")
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			key, rest = rest[:end], rest[end:]
			if key == "" {
				return "", fmt.Errorf("fieldPath %q: empty field name", path)
			}
		}
		var ok bool
		if index >= 0 {
			list, isList := cur.([]any)
			if ok = isList && index < len(list); ok {
				cur = list[index]
			}
		} else {
			m, isMap := cur.(map[string]any)
			if isMap {
				cur, ok = m[key]
			}
		}
		if !ok {
			return "", fmt.Errorf("fieldPath %q: no such field", path)
		}
	}
	if s, ok := cur.(string); ok {
		return s, nil
	}
	out, err := json.Marshal(cur)
	return string(out), err
}
