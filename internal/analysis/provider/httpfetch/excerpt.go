package httpfetch

import (
	"strings"
	"unicode/utf8"
)

// MaxExcerpt bounds the server text (an error page, an error message) a
// provider quotes in an error.
const MaxExcerpt = 200

// Excerpt is server text on one line (runs of blanks made one space), cut
// at MaxExcerpt bytes on a character boundary, "..." marking a cut. Callers
// still redact it: servers echo what they were sent.
func Excerpt(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	if len(s) <= MaxExcerpt {
		return s
	}
	s = s[:MaxExcerpt]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "..."
}
