package httpfetch

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	if got := Excerpt("<html>\n  <h1>Bad\tRequest</h1>\n</html>"); got != "<html> <h1>Bad Request</h1> </html>" {
		t.Errorf("one line: %q", got)
	}
	long := strings.Repeat("a", MaxExcerpt-1) + "é" + strings.Repeat("b", 50)
	got := Excerpt(long)
	if !strings.HasSuffix(got, "...") || !utf8.ValidString(got) || len(got) > MaxExcerpt+3 {
		t.Errorf("cut: %q (%d bytes)", got, len(got))
	}
}

// TestExcerptInvalidUTF8: invalid bytes become '?' and the text around
// them is kept, short or cut (a byte-wise trim to valid UTF-8 lost a long
// text whose first byte was invalid, and let a short one through as is).
func TestExcerptInvalidUTF8(t *testing.T) {
	if got := Excerpt("bad \xff key"); got != "bad ? key" {
		t.Errorf("short: %q", got)
	}
	got := Excerpt("\xff" + strings.Repeat("a", 300))
	if got != "?"+strings.Repeat("a", MaxExcerpt-1)+"..." {
		t.Errorf("long: %q", got)
	}
}
