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
