package httpfetch

import (
	"strings"
	"unicode/utf8"
)

// MaxExcerpt bounds the server text (an error page, a vendor's message, a
// warning) a provider quotes in an error or metadata.
const MaxExcerpt = 200

// Excerpt is server text on one line (runs of blanks made one space,
// invalid UTF-8 made '?'), cut at MaxExcerpt bytes on a character
// boundary, "..." marking a cut. Callers still redact it: servers echo
// what they were sent.
func Excerpt(text string) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(text, "?")), " ")
	if len(s) <= MaxExcerpt {
		return s
	}
	cut := MaxExcerpt
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
