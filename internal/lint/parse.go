package lint

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// Parse splits a multi-document YAML (or JSON) file into objects, noting
// the line each document's content starts on. A document that is not valid
// YAML, or not a Kubernetes object, becomes an Error finding at the line of
// the problem; the other documents are still returned. Empty documents
// (blank or comments only) are skipped.
func Parse(file string, data []byte) ([]Object, []Finding) {
	var objs []Object
	var out []Finding
	for _, d := range splitDocuments(data) {
		line := firstContentLine(d.text, d.start)
		if line == 0 {
			continue
		}
		js, err := yaml.YAMLToJSONStrict(d.text)
		if err != nil {
			at, msg := absoluteLines(err.Error(), d.start)
			if at == 0 {
				at = line
			}
			out = append(out, Finding{File: file, Line: at, Column: indentOf(data, at) + 1, Severity: Error, Message: msg})
			continue
		}
		js = bytes.TrimSpace(js)
		if bytes.Equal(js, []byte("null")) {
			continue
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name         string `json:"name"`
				GenerateName string `json:"generateName"`
			} `json:"metadata"`
		}
		node := nodeOf(d.text, d.start-1)
		if len(js) == 0 || js[0] != '{' || json.Unmarshal(js, &head) != nil {
			out = append(out, Finding{File: file, Line: line, Column: 1, Severity: Error,
				Message: "not a Kubernetes object: want a mapping with string apiVersion and kind"})
			continue
		}
		missing := false
		for _, f := range []struct{ name, v string }{{"apiVersion", head.APIVersion}, {"kind", head.Kind}} {
			if f.v == "" {
				missing = true
				out = append(out, Finding{File: file, Line: line, Column: 1, Field: f.name, Severity: Error, Message: "Required value"})
			}
		}
		if !missing {
			name := head.Metadata.Name
			if name == "" && head.Metadata.GenerateName != "" {
				name = head.Metadata.GenerateName + "*"
			}
			objs = append(objs, Object{File: file, Line: line, APIVersion: head.APIVersion, Kind: head.Kind, Name: name,
				JSON: js, node: node})
		}
	}
	return objs, out
}

// document is one YAML document and the 1-based line its text starts on.
type document struct {
	text  []byte
	start int
}

// splitDocuments cuts at "---" lines (a "--- " line's rest stays in the next
// document, on the same line).
func splitDocuments(data []byte) []document {
	var docs []document
	cur := document{start: 1}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, l := range lines {
		trimmed := strings.TrimRight(string(l), "\r\n")
		if !strings.HasPrefix(trimmed, "---") {
			cur.text = append(cur.text, l...)
			continue
		}
		rest := trimmed[3:]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			cur.text = append(cur.text, l...) // e.g. "----" inside a block scalar
			continue
		}
		docs = append(docs, cur)
		cur = document{start: i + 1}
		if r := strings.TrimSpace(rest); r != "" && !strings.HasPrefix(r, "#") {
			cur.text = append(cur.text, "   "+rest+"\n"...)
		} else {
			cur.start = i + 2
		}
	}
	return append(docs, cur)
}

// firstContentLine is the line of the first line that is neither blank nor
// a comment (0 if none).
func firstContentLine(text []byte, start int) int {
	for i, l := range strings.Split(string(text), "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return start + i
		}
	}
	return 0
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// absoluteLines rewrites the document-relative "line N" of a YAML error to
// file lines; it returns the first such line (0 if none) and the message.
func absoluteLines(msg string, start int) (int, string) {
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	first := 0
	msg = yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(yamlLine.FindStringSubmatch(m)[1]) // the pattern matched digits
		n += start - 1
		if first == 0 {
			first = n
		}
		return "line " + strconv.Itoa(n)
	})
	return first, strings.Join(strings.Fields(msg), " ")
}

// indentOf is the number of leading blanks of a 1-based line of data.
func indentOf(data []byte, line int) int {
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 0
	}
	l := lines[line-1]
	return len(l) - len(bytes.TrimLeft(l, " \t"))
}
