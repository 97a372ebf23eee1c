package analysis

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Mask is what a secret, in any of its forms, is replaced by.
const Mask = "*****"

// minForm is the shortest secret redacted in more than its raw form, and
// the shortest form or piece redacted: below it an encoded form or a piece
// would match ordinary text everywhere (upstream replaces every secret raw
// only, however short; so does Ramp for the short ones).
const minForm = 4

// cutMarkers are what a truncation leaves next to the text it cut: the
// closing or opening quote of a %.Nq, and an ellipsis.
var cutMarkers = []string{`"`, "…", "..."}

// cutStarts are the first characters of the cutMarkers.
const cutStarts = "\"…."

// Redactor removes secret values from text Ramp writes (measurement values,
// messages, metadata, errors). It is built once per set of secrets (see
// Args.Redactor) and is safe for concurrent use.
//
// What it removes, for each secret of at least minForm bytes:
//   - every form of the value (formsOf): raw; JSON-escaped as json.Marshal
//     writes it (\u003c \u003e \u0026, U+2028/2029) and without the HTML
//     escapes (only \" \\ and control characters); %q's inner form
//     (strconv.Quote, and QuoteToASCII for %+q); URL-encoded by
//     url.QueryEscape and url.PathEscape, with upper- or lower-case hex;
//     URL-decoded; HTML-escaped; each of the URL forms JSON-escaped, quoted
//     and HTML-escaped; %q of the JSON form and JSON of the %q form; base64
//     (standard and URL alphabets, padded or not) of the value alone, and
//     the part of its encoding that does not depend on its neighbours when
//     it is encoded at any offset inside a longer text;
//   - pieces at a cut: a substring of a form, at least a third of the form
//     (and minForm bytes) long and shorter than the whole form, whose every
//     end is either the form's own end or a cut: the start or end of the
//     text, or next to a quote or an ellipsis (what %.20q, a body cut at N
//     bytes or a truncated message leaves). A piece inside ordinary text,
//     with neither a cut nor the rest of the secret next to it, stays.
//
// A secret shorter than minForm bytes is replaced raw only; an empty one
// is ignored. Every occurrence of every form is found (overlapping ones
// too, across secrets) and each maximal covered run of text becomes one
// Mask, so overlapping secrets leave nothing of either, whatever their
// order; the text is rescanned until no form remains (a form that joins
// a Mask, as "x**" does), at most maxPasses times, after which the whole
// text is one Mask. A secret made only of '*' is not redacted: it cannot be
// told from the Mask.
type Redactor struct {
	forms  []string    // every form, longest first, then in byte order
	pieces []pieceForm // forms long enough to have pieces
	grams  gramFilter  // the minForm-byte substrings of those forms
}

type pieceForm struct {
	form string
	min  int // shortest piece
}

// gramFilter is a Bloom filter of minForm-byte strings: a cut is looked at
// closely only when the bytes next to it may begin or end a piece.
type gramFilter [1 << 16 / 64]uint64

func gramHash(g string) uint32 {
	return (uint32(g[0]) | uint32(g[1])<<8 | uint32(g[2])<<16 | uint32(g[3])<<24) * 2654435761 >> 16
}

func (f *gramFilter) add(g string) { h := gramHash(g); f[h/64] |= 1 << (h % 64) }

func (f *gramFilter) has(g string) bool { h := gramHash(g); return f[h/64]&(1<<(h%64)) != 0 }

// Redactor returns the Redactor of the run's secret arguments.
func (a Args) Redactor() *Redactor {
	var values []string
	for name := range a.Secrets {
		if v, ok := a.Values[name]; ok {
			values = append(values, v)
		}
	}
	return NewRedactor(values)
}

// NewRedactor returns a Redactor for the secret values given (in any
// order: the result does not depend on it).
func NewRedactor(secrets []string) *Redactor {
	set := map[string]bool{}
	for _, v := range secrets {
		for _, f := range formsOf(v) {
			if unmasked(f) {
				set[f] = true
			}
		}
	}
	r := &Redactor{}
	for f := range set {
		r.forms = append(r.forms, f)
	}
	sort.Slice(r.forms, func(i, j int) bool {
		a, b := r.forms[i], r.forms[j]
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return a < b
	})
	for _, f := range r.forms {
		m := max(minForm, (len(f)+2)/3)
		if len(f) <= m {
			continue
		}
		r.pieces = append(r.pieces, pieceForm{f, m})
		for i := 0; i+minForm <= len(f); i++ {
			r.grams.add(f[i : i+minForm])
		}
	}
	return r
}

// Redact returns s with every form and piece of every secret replaced by
// Mask.
func (r *Redactor) Redact(s string) string {
	if r == nil || len(r.forms) == 0 {
		return s
	}
	for range maxPasses {
		spans := r.cover(s)
		if len(spans) == 0 {
			return s
		}
		s = mask(s, spans)
	}
	return Mask // still a form after maxPasses (a secret with '*' chained to masks): nothing is kept
}

// maxPasses bounds the rescans of a text: each masks at least one byte
// more, so a text built to join forms to masks one byte a pass would
// otherwise cost a pass per byte.
const maxPasses = 8

// span is a half-open range [from, to) of text to mask.
type span struct{ from, to int }

// cover finds every occurrence of a form and every piece at a cut in s.
func (r *Redactor) cover(s string) []span {
	var spans []span
	for _, f := range r.forms {
		for at := 0; ; {
			i := strings.Index(s[at:], f)
			if i < 0 {
				break
			}
			spans = append(spans, span{at + i, at + i + len(f)})
			at += i + 1
		}
	}
	if len(r.pieces) > 0 {
		spans = append(spans, r.piecesAtCuts(s)...)
	}
	return spans
}

// piecesAtCuts finds the pieces of forms that touch a cut of s. A piece
// ending at a cut is a prefix of its form or also starts at a cut; one
// starting at a cut is a suffix of its form or also ends at a cut.
func (r *Redactor) piecesAtCuts(s string) []span {
	var spans []span
	look := func(c int, lead, trail bool) {
		if trail && c >= minForm && r.grams.has(s[c-minForm:c]) {
			spans = append(spans, r.endingAt(s, c)...)
		}
		if lead && c+minForm <= len(s) && r.grams.has(s[c:c+minForm]) {
			spans = append(spans, r.startingAt(s, c)...)
		}
	}
	look(0, true, false)
	look(len(s), false, true)
	for at := 0; at < len(s); {
		i := strings.IndexAny(s[at:], cutStarts)
		if i < 0 {
			break
		}
		at += i
		for _, m := range cutMarkers {
			if strings.HasPrefix(s[at:], m) {
				look(at, false, true)
				look(at+len(m), true, false)
			}
		}
		at++
	}
	return spans
}

// endingAt is the longest piece that ends at the cut c.
func (r *Redactor) endingAt(s string, c int) []span {
	best := 0
	for _, p := range r.pieces {
		for k := min(c, len(p.form)-1); k > max(best, p.min-1); k-- {
			piece := s[c-k : c]
			if unmasked(piece) && (strings.HasPrefix(p.form, piece) || leadingCut(s, c-k) && strings.Contains(p.form, piece)) {
				best = k
			}
		}
	}
	if best == 0 {
		return nil
	}
	return []span{{c - best, c}}
}

// startingAt is the longest piece that starts at the cut c.
func (r *Redactor) startingAt(s string, c int) []span {
	best := 0
	for _, p := range r.pieces {
		for k := min(len(s)-c, len(p.form)-1); k > max(best, p.min-1); k-- {
			piece := s[c : c+k]
			if unmasked(piece) && (strings.HasSuffix(p.form, piece) || trailingCut(s, c+k) && strings.Contains(p.form, piece)) {
				best = k
			}
		}
	}
	if best == 0 {
		return nil
	}
	return []span{{c, c + best}}
}

// unmasked reports whether t has a byte other than '*': only such text is
// masked, so that every rescan masks fewer bytes and Redact ends.
func unmasked(t string) bool { return strings.Trim(t, "*") != "" }

// leadingCut reports whether text may have been cut just before s[c:]:
// at the start, or after a quote or an ellipsis.
func leadingCut(s string, c int) bool {
	if c == 0 {
		return true
	}
	for _, m := range cutMarkers {
		if strings.HasSuffix(s[:c], m) {
			return true
		}
	}
	return false
}

// trailingCut reports whether text may have been cut just after s[:c]: at
// the end, or before a quote or an ellipsis.
func trailingCut(s string, c int) bool {
	if c == len(s) {
		return true
	}
	for _, m := range cutMarkers {
		if strings.HasPrefix(s[c:], m) {
			return true
		}
	}
	return false
}

// mask replaces each maximal run of text covered by spans, with the '*'
// around it, by one Mask.
func mask(s string, spans []span) string {
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var out strings.Builder
	out.Grow(len(s))
	at := 0
	for i := 0; i < len(spans); {
		from, to := spans[i].from, spans[i].to
		for i++; i < len(spans) && spans[i].from <= to; i++ {
			to = max(to, spans[i].to)
		}
		for from > at && s[from-1] == '*' { // a mask next to the run joins it
			from--
		}
		for to < len(s) && s[to] == '*' {
			to++
		}
		for i < len(spans) && spans[i].from <= to {
			to = max(to, spans[i].to)
			i++
		}
		out.WriteString(s[at:from])
		out.WriteString(Mask)
		at = to
	}
	out.WriteString(s[at:])
	return out.String()
}

// hexEscape matches a percent-encoded byte.
var hexEscape = regexp.MustCompile(`%[0-9A-F]{2}`)

// formsOf is every form in which text Ramp writes may carry v (see
// Redactor): v itself always, the others only when v and they are at least
// minForm bytes long.
func formsOf(v string) []string {
	if v == "" {
		return nil
	}
	if len(v) < minForm {
		return []string{v}
	}
	bases := []string{v, url.QueryEscape(v), url.PathEscape(v)}
	for _, e := range bases[1:] {
		bases = append(bases, hexEscape.ReplaceAllStringFunc(e, strings.ToLower))
	}
	if d, err := url.QueryUnescape(v); err == nil {
		bases = append(bases, d)
	}
	if d, err := url.PathUnescape(v); err == nil {
		bases = append(bases, d)
	}
	var forms []string
	for _, b := range bases {
		forms = append(forms, b, jsonInner(b, true), jsonInner(b, false), quoteInner(strconv.Quote(b)),
			quoteInner(strconv.QuoteToASCII(b)), html.EscapeString(b))
	}
	forms = append(forms, quoteInner(strconv.Quote(jsonInner(v, true))), jsonInner(quoteInner(strconv.Quote(v)), true))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		full := enc.EncodeToString([]byte(v))
		forms = append(forms, full, strings.TrimRight(full, "="))
		for k := 1; k <= 2; k++ {
			forms = append(forms, base64Inner(enc, v, k))
		}
	}
	out := []string{v}
	for _, f := range forms {
		if len(f) >= minForm && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// jsonInner is v as a JSON string without its quotes, with or without the
// HTML escapes json.Marshal adds.
func jsonInner(v string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(v) // a string always encodes
	return quoteInner(strings.TrimSuffix(b.String(), "\n"))
}

// quoteInner drops the quotes around a quoted string.
func quoteInner(q string) string { return q[1 : len(q)-1] }

// base64Inner is the part of the base64 encoding of v, preceded by k other
// bytes, made only of v's bits: the characters that are the same whatever
// bytes surround v.
func base64Inner(enc *base64.Encoding, v string, k int) string {
	full := enc.EncodeToString(append(make([]byte, k), v...))
	from := (8*k + 5) / 6      // the first character whose bits all come from v
	to := 8 * (k + len(v)) / 6 // past the last
	if from >= to {
		return ""
	}
	return full[from:to]
}
