//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// secretForm is one way a secret can be written.
type secretForm struct{ name, text string }

// secretForms are the forms of each secret that must never be stored: raw,
// JSON-escaped (with and without HTML escaping), Go-quoted, URL-encoded
// (query and path, either hex case), HTML-escaped, base64 (four alphabets)
// and hex, plus every piece of the raw value at least half its length.
func secretForms(secrets ...string) []secretForm {
	var out []secretForm
	seen := map[string]bool{}
	add := func(name, text string) {
		if text != "" && !seen[text] {
			seen[text] = true
			out = append(out, secretForm{name, text})
		}
	}
	for i, s := range secrets {
		p := "secret" + strconv.Itoa(i+1) + " "
		add(p+"raw", s)
		j, _ := json.Marshal(s)
		add(p+"json", string(j[1:len(j)-1]))
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		nohtml := strings.TrimSpace(b.String())
		add(p+"json (no HTML escaping)", nohtml[1:len(nohtml)-1])
		add(p+"%q", strings.Trim(strconv.Quote(s), `"`))
		add(p+"%+q", strings.Trim(strconv.QuoteToASCII(s), `"`))
		add(p+"query-escaped", url.QueryEscape(s))
		add(p+"path-escaped", url.PathEscape(s))
		add(p+"query-escaped lower-case", lowerHex(url.QueryEscape(s)))
		add(p+"path-escaped lower-case", lowerHex(url.PathEscape(s)))
		add(p+"html-escaped", html.EscapeString(s))
		add(p+"base64", base64.StdEncoding.EncodeToString([]byte(s)))
		add(p+"base64url", base64.URLEncoding.EncodeToString([]byte(s)))
		add(p+"base64 raw", base64.RawStdEncoding.EncodeToString([]byte(s)))
		add(p+"base64url raw", base64.RawURLEncoding.EncodeToString([]byte(s)))
		add(p+"hex", hex.EncodeToString([]byte(s)))
		for n, at := (len(s)+1)/2, 0; at+n <= len(s); at++ {
			add(p+"piece "+strconv.Itoa(at)+":"+strconv.Itoa(at+n), s[at:at+n])
		}
	}
	return out
}

var percentHex = regexp.MustCompile(`%[0-9A-F]{2}`)

func lowerHex(s string) string { return percentHex.ReplaceAllStringFunc(s, strings.ToLower) }

func encodeB64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// asJSONValue is obj as a generic JSON value (maps, slices, strings...).
func asJSONValue(t *testing.T, obj any) any {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// walkStrings calls f with every string in v: map keys and values, slice
// elements, and v itself.
func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case map[string]any:
		for k, e := range x {
			f(k)
			walkStrings(e, f)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	}
}

// eachLogLine calls f with every line of the controller log at path,
// decoded when it is JSON, named "controller log line <n>".
func eachLogLine(t *testing.T, path string, f func(where string, line any)) {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = file.Close() }()
	lines := bufio.NewScanner(file)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; lines.Scan(); n++ {
		var line any
		if json.Unmarshal(lines.Bytes(), &line) != nil {
			line = lines.Text()
		}
		f(fmt.Sprintf("controller log line %d", n), line)
	}
	if err := lines.Err(); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
}
