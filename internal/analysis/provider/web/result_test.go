package web

import "testing"

// FuzzFind checks that no response or path panics, and that every value
// found is one that encoding/json decodes into an any (or a literal of
// the path).
func FuzzFind(f *testing.F) {
	for _, s := range [][2]string{
		{"", doc}, {"{$.data.ok}", doc}, {"{.data.items[*].v}", doc}, {"{$.data.items[2:]}", doc},
		{"{range .data.items[*]}{.v}{end}", doc}, {"x{.status}y", doc}, {"{$}", "null"}, {"{$[0]}", "[1,2]"},
		{"{.a[?(@.b==\"x\")].c}", `{"a":[{"b":"x","c":1}]}`}, {"{$.a}", "{"}, {"{..v}", doc},
	} {
		f.Add(s[0], []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, source string, body []byte) {
		path, err := parsePath(source)
		if err != nil {
			return
		}
		value, err := find(path, body)
		if err != nil {
			return
		}
		if !decoded(value) {
			t.Fatalf("%q on %q gave a %T", source, body, value)
		}
		_ = display(value)
	})
}

// decoded reports whether v is made only of the types encoding/json
// decodes JSON into, or an int (a literal number in the path, as in "{0}").
func decoded(v any) bool {
	switch v := v.(type) {
	case nil, bool, float64, string, int:
		return true
	case []any:
		for _, e := range v {
			if !decoded(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range v {
			if !decoded(e) {
				return false
			}
		}
		return true
	}
	return false
}
