package lint

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Position is a 1-based line and column in a file.
type Position struct{ Line, Column int }

// nodeOf parses one document's text into its YAML node tree, for positions
// only (the JSON conversion decides what the document means). lineOffset is
// added to every line. It returns nil when the text does not parse.
func nodeOf(text []byte, lineOffset int) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil || len(doc.Content) == 0 {
		return nil
	}
	shift(&doc, lineOffset, map[*yaml.Node]bool{})
	return doc.Content[0]
}

// shift moves every node of a tree by lineOffset lines, once per node
// (aliases share nodes).
func shift(n *yaml.Node, lineOffset int, seen map[*yaml.Node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	n.Line += lineOffset
	for _, c := range n.Content {
		shift(c, lineOffset, seen)
	}
}

// locate finds a field path (as the findings write it: "spec.steps[2].pause",
// `plugins["a/b"]`, "labels[app.kubernetes.io/name]") in a document's node
// tree. It returns the position of the deepest node the path reaches — the
// key of a mapping entry, or the item of a sequence — and whether it reached
// the whole path. A path segment without an index that meets a sequence
// (decoding errors name "steps.setWeight", not "steps[2].setWeight") is
// looked up in every item, first match wins, and the path with the index it
// took is returned.
func locate(root *yaml.Node, path string) (pos Position, resolved string, complete bool) {
	if root == nil {
		return Position{}, path, false
	}
	pos = Position{root.Line, root.Column}
	segs := splitPath(path)
	n, done, out := walk(root, segs, "")
	if n != nil {
		pos = Position{n.Line, n.Column}
	}
	return pos, strings.TrimPrefix(out, "."), done == len(segs)
}

// walk follows segs from n, returning the deepest node reached, how many
// segments it consumed, and the path it took (indices filled in).
func walk(n *yaml.Node, segs []segment, taken string) (*yaml.Node, int, string) {
	var at *yaml.Node
	for i := 0; i < len(segs); i++ {
		n = deref(n)
		s := segs[i]
		switch {
		case n == nil:
			return at, i, taken + restPath(segs[i:])
		case n.Kind == yaml.SequenceNode && s.index >= 0:
			if s.index >= len(n.Content) {
				return at, i, taken + restPath(segs[i:])
			}
			at, n = n.Content[s.index], n.Content[s.index]
			taken += "[" + strconv.Itoa(s.index) + "]"
		case n.Kind == yaml.SequenceNode:
			// No index given: try each item for the rest of the path.
			var best *yaml.Node
			bestDone, bestPath := -1, ""
			for j, item := range n.Content {
				idx := taken + "[" + strconv.Itoa(j) + "]"
				got, done, p := walk(item, segs[i:], idx)
				if done > bestDone {
					best, bestDone, bestPath = got, done, p
				}
				if done == len(segs)-i {
					break
				}
			}
			if best == nil {
				return at, i, taken + restPath(segs[i:])
			}
			return best, i + bestDone, bestPath
		case n.Kind == yaml.MappingNode:
			k, v := entry(n, s.key)
			if k == nil {
				return at, i, taken + restPath(segs[i:])
			}
			at, n = k, v
			taken += s.text(taken == "")
		default:
			return at, i, taken + restPath(segs[i:])
		}
	}
	return at, len(segs), taken
}

// deref follows an alias.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// entry finds a key in a mapping node (merge keys are not followed).
func entry(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// segment is one step of a field path: a key, or an index (index >= 0).
type segment struct {
	key     string
	index   int
	bracket bool // the key was written in brackets
}

func (s segment) text(first bool) string {
	switch {
	case s.index >= 0:
		return "[" + strconv.Itoa(s.index) + "]"
	case s.bracket:
		return "[" + s.key + "]"
	case first:
		return s.key
	}
	return "." + s.key
}

func restPath(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.text(false))
	}
	return b.String()
}

// splitPath cuts "a.b[2].c[key.with.dots]" or `a["x/y"]` into segments.
func splitPath(path string) []segment {
	var out []segment
	for len(path) > 0 {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return append(out, segment{key: path, index: -1})
			}
			inner := path[1:end]
			path = path[end+1:]
			if n, err := strconv.Atoi(inner); err == nil && n >= 0 {
				out = append(out, segment{index: n})
				continue
			}
			if uq, err := strconv.Unquote(inner); err == nil {
				inner = uq
			}
			out = append(out, segment{key: inner, index: -1, bracket: true})
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			out = append(out, segment{key: path[:end], index: -1})
			path = path[end:]
		}
	}
	return out
}

// findAll walks a document's node tree and returns the path of every
// mapping value for which match(path, key, value) holds, in document order.
func findAll(root *yaml.Node, match func(parent, key string, v *yaml.Node) bool) []string {
	var out []string
	var visit func(n *yaml.Node, path, key string)
	visit = func(n *yaml.Node, path, key string) {
		n = deref(n)
		if n == nil {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				p := k
				if path != "" {
					p = path + "." + k
				}
				if strings.ContainsAny(k, ".[]") {
					p = path + "[" + k + "]"
				}
				if match(key, k, deref(n.Content[i+1])) {
					out = append(out, p)
				}
				visit(n.Content[i+1], p, k)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				visit(c, path+"["+strconv.Itoa(i)+"]", key)
			}
		}
	}
	visit(root, "", "")
	return out
}

// locateValue returns the scalar value at a field path.
func locateValue(root *yaml.Node, path string) (string, Position, bool) {
	segs := splitPath(path)
	n := root
	for _, s := range segs {
		n = deref(n)
		switch {
		case n == nil:
			return "", Position{}, false
		case n.Kind == yaml.SequenceNode && s.index >= 0 && s.index < len(n.Content):
			n = n.Content[s.index]
		case n.Kind == yaml.MappingNode:
			_, v := entry(n, s.key)
			if v == nil {
				return "", Position{}, false
			}
			n = v
		default:
			return "", Position{}, false
		}
	}
	n = deref(n)
	if n == nil {
		return "", Position{}, false
	}
	return n.Value, Position{n.Line, n.Column}, true
}

// locateKind is locate for a path that may leave out sequence indices (as
// decoding errors do), preferring the first item whose value at the path is
// of the given YAML kind and tag ("" matches any tag): the item that holds
// the wrongly typed value.
func locateKind(root *yaml.Node, path string, kind yaml.Kind, tag string) (Position, string, bool) {
	var found []struct {
		n *yaml.Node
		p string
	}
	var visit func(n *yaml.Node, segs []segment, taken string)
	visit = func(n *yaml.Node, segs []segment, taken string) {
		n = deref(n)
		if n == nil {
			return
		}
		if len(segs) == 0 {
			return
		}
		s := segs[0]
		switch {
		case n.Kind == yaml.SequenceNode && s.index < 0:
			for j, item := range n.Content {
				visit(item, segs, taken+"["+strconv.Itoa(j)+"]")
			}
		case n.Kind == yaml.SequenceNode && s.index < len(n.Content):
			visit(n.Content[s.index], segs[1:], taken+"["+strconv.Itoa(s.index)+"]")
		case n.Kind == yaml.MappingNode:
			k, v := entry(n, s.key)
			if k == nil {
				return
			}
			p := taken + s.text(taken == "")
			if len(segs) == 1 {
				if v = deref(v); v != nil && v.Kind == kind && (tag == "" || v.Tag == tag) {
					found = append(found, struct {
						n *yaml.Node
						p string
					}{k, p})
				}
				return
			}
			visit(v, segs[1:], p)
		}
	}
	visit(root, splitPath(path), "")
	if len(found) == 0 {
		return Position{}, path, false
	}
	return Position{found[0].n.Line, found[0].n.Column}, found[0].p, true
}

// jsonKinds maps the JSON type a decoding error says it got to YAML.
var jsonKinds = map[string]struct {
	kind yaml.Kind
	tag  string
}{
	"string": {yaml.ScalarNode, "!!str"}, "number": {yaml.ScalarNode, ""}, "bool": {yaml.ScalarNode, "!!bool"},
	"object": {yaml.MappingNode, ""}, "array": {yaml.SequenceNode, ""},
}
