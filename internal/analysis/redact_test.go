package analysis

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestRedactForms: every form of a secret is masked where Ramp's text can
// carry it, and text around it is kept.
func TestRedactForms(t *testing.T) {
	const echoed = "ZQSENTINEL&8<k>" // issue 24's sentinel
	long := "0123456789abcdefghijKLMNOPQRST"
	for _, tc := range []struct {
		name    string
		secrets []string
		text    string
		want    string
	}{
		{"raw", []string{"tok3n!"}, "a tok3n! b", "a ***** b"},
		{"json.Marshal escapes", []string{echoed}, jsonOf(map[string]string{"h": echoed}), `{"h":"*****"}`},
		{"JSON without HTML escapes", []string{`a"b\c<d`}, `{"v":"a\"b\\c<d"}`, `{"v":"*****"}`},
		{"JSON U+2028", []string{"line\u2028sep"}, jsonOf([]string{"line\u2028sep"}), `["*****"]`},
		{"%q", []string{"tab\there\x00"}, fmt.Sprintf("condition %q failed", "x == 'tab\there\x00'"), `condition "x == '*****'" failed`},
		{"%+q", []string{"naïve-κey"}, fmt.Sprintf("%+q", "naïve-κey"), `"*****"`},
		{"query escape", []string{"a b&c=d/é"}, "GET /?k=" + url.QueryEscape("a b&c=d/é") + "&x=1", "GET /?k=*****&x=1"},
		{"path escape", []string{"a b/c?d"}, "/v1/" + url.PathEscape("a b/c?d") + "/x", "/v1/*****/x"},
		{"lower-case hex", []string{"a b/c?d"}, "/v1/a%20b%2fc%3fd/x", "/v1/*****/x"},
		{"URL-decoded", []string{"p%2Fq%20rstu"}, "GET /p/q rstu/x", "GET /*****/x"},
		{"HTML", []string{`<b>&'"x`}, "<p>" + html.EscapeString(`<b>&'"x`) + "</p>", "<p>*****</p>"},
		{"base64", []string{"user:pa55"}, "Basic " + base64.StdEncoding.EncodeToString([]byte("user:pa55")), "Basic *****"},
		{"base64url unpadded", []string{"k?>~k?>~"}, "t=" + base64.RawURLEncoding.EncodeToString([]byte("k?>~k?>~")), "t=*****"},
		{"%q of JSON", []string{"a<bc"}, strconv.Quote(jsonOf("a<bc")), `"\"*****\""`},
		{"prefix at a %.20q cut", []string{long}, fmt.Sprintf("method %.20q", "GET-"+long), `method "GET-*****"`},
		{"prefix at the end of a cut body", []string{long}, "body: {\"token\":" + long[:12], "body: {\"token\":*****"},
		{"suffix at the start", []string{long}, long[12:] + " and more", "***** and more"},
		{"window between quotes", []string{long}, `"` + long[5:17] + `"`, `"*****"`},
		{"prefix before an ellipsis", []string{long}, "value " + long[:10] + "…", "value *****…"},
		{"piece in ordinary text stays", []string{long}, "xx" + long[:12] + "yy", "xx" + long[:12] + "yy"},
		{"piece too short stays", []string{long}, long[:9], long[:9]},
		{"overlap", []string{"abcd1234", "1234wxyz"}, "=abcd1234wxyz=", "=*****="},
		{"one inside another", []string{"token-abc", "my-token-abc-2"}, "my-token-abc-2 token-abc", "***** *****"},
		{"short secret: raw only", []string{"<>"}, `<> \u003c\u003e`, `***** \u003c\u003e`},
		{"empty secret", []string{""}, "unchanged", "unchanged"},
		{"all stars: indistinguishable from the mask", []string{"****"}, "a****b", "a****b"},
		{"a form joining a mask", []string{"abcd", "k***"}, "-kabcd-", "-*****-"},
		{"a chain of forms joining masks: bounded", []string{"abcd", "k***"}, strings.Repeat("k", 100) + "abcd", "*****"},
		{"a starred piece next to a mask", []string{"abcd*****", "xyzw"}, `"xyzw"`, `"*****"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewRedactor(tc.secrets).Redact(tc.text); got != tc.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
		})
	}
}

// TestArgsRedact: only secretKeyRef arguments are redacted, and the result
// does not depend on the order of the secrets.
func TestArgsRedact(t *testing.T) {
	a := Args{Values: map[string]string{"token": "s3cr3t&x", "svc": "checkout", "other": "x-s3cr3t&x-y"},
		Secrets: map[string]bool{"token": true, "other": true}}
	if got := a.Redact(jsonOf("checkout x-s3cr3t&x-y s3cr3t&x")); got != `"checkout ***** *****"` {
		t.Errorf("got %s", got)
	}
	if m := a.RedactMap(map[string]string{"q": "up{t=\"s3cr3t\\u0026x\"}"}); m["q"] != `up{t="*****"}` {
		t.Errorf("RedactMap: %v", m)
	}
	if (Args{}).Redact("s3cr3t") != "s3cr3t" {
		t.Error("no secrets, yet redacted")
	}
}

var lowerHex = regexp.MustCompile(`%[0-9A-F]{2}`)

// encodings is every form issue 24 lists, computed here independently of
// formsOf: what must never survive Redact.
func encodings(s string) []string {
	if len(s) < minForm {
		return []string{s}
	}
	j := jsonOf(s)
	j = j[1 : len(j)-1]
	q := url.QueryEscape(s)
	p := url.PathEscape(s)
	out := []string{s, j, strconv.Quote(s)[1 : len(strconv.Quote(s))-1], q, p,
		lowerHex.ReplaceAllStringFunc(q, strings.ToLower), lowerHex.ReplaceAllStringFunc(p, strings.ToLower),
		html.EscapeString(s), base64.StdEncoding.EncodeToString([]byte(s)), base64.URLEncoding.EncodeToString([]byte(s)),
		base64.RawStdEncoding.EncodeToString([]byte(s)), base64.RawURLEncoding.EncodeToString([]byte(s)),
		strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(j)}
	if d, err := url.QueryUnescape(s); err == nil {
		out = append(out, d)
	}
	if d, err := url.PathUnescape(s); err == nil {
		out = append(out, d)
	}
	var kept []string
	for _, e := range out {
		if len(e) >= minForm || e == s {
			kept = append(kept, e)
		}
	}
	return kept
}

// FuzzRedact: whatever the secrets and the text around them, and whichever
// form of the first secret the text carries, no form of any secret remains
// after Redact (a form made only of '*' aside: it is the mask's own text).
func FuzzRedact(f *testing.F) {
	f.Add("ZQSENTINEL&8<k>", "other", "prefix ", " suffix", uint8(1))
	f.Add("a b/c?d%2F", "b/c", "/v1/", "", uint8(4))
	f.Add("line\u2028sep\"\\", "sep", `{"v":"`, `"}`, uint8(2))
	f.Add("user:pa55", "pa55word", "Basic ", "", uint8(8))
	f.Add("abcd", "k***", "-k", "-", uint8(0))
	f.Add("xyzw", "abcd*****", `"`, `"`, uint8(0))
	f.Fuzz(func(t *testing.T, a, b, prefix, suffix string, which uint8) {
		forms := encodings(a)
		text := prefix + forms[int(which)%len(forms)] + suffix + b
		out := NewRedactor([]string{a, b}).Redact(text)
		for _, s := range []string{a, b} {
			for _, e := range encodings(s) {
				if e != "" && strings.Trim(e, "*") != "" && strings.Contains(out, e) {
					t.Fatalf("secret %q: form %q remains in %q (from %q)", s, e, out, text)
				}
			}
		}
	})
}

// BenchmarkRedact: three secrets over a 64 KiB JSON text that carries none
// (the common case) and one that carries each in two forms.
func BenchmarkRedact(b *testing.B) {
	secrets := []string{"ZQSENTINEL&8<k>", "p%2Fq%20rstu-0123456789", "short"}
	clean := strings.Repeat(`{"name":"checkout","value":0.99,"labels":["a","b"]},`, 1300)
	dirty := clean + jsonOf(secrets[0]) + url.QueryEscape(secrets[1]) + strconv.Quote(secrets[0]) + secrets[2]
	r := NewRedactor(secrets)
	for _, tc := range []struct{ name, text string }{{"clean", clean}, {"dirty", dirty}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			for b.Loop() {
				_ = r.Redact(tc.text)
			}
		})
	}
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			_ = NewRedactor(secrets)
		}
	})
}
