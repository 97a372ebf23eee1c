package influxdb

import (
	"fmt"
	"strings"
	"unicode"
)

// readOnly checks that an InfluxQL query only reads: each of its
// statements (split at semicolons outside quotes and comments) is a SHOW,
// or a SELECT without INTO. The profile Secret's credentials are the
// controller's, often an administrator's, and 1.x runs any statement sent
// with GET; without this check whoever may create an AnalysisRun, or set
// an argument a template quotes, could DROP a database or CREATE a user
// with them.
func readOnly(query string) error {
	for i, words := range statements(query) {
		if len(words) == 0 {
			continue
		}
		switch first := strings.ToUpper(words[0]); {
		case first == "SHOW":
		case first == "SELECT" && !containsFold(words, "INTO"):
		case first == "SELECT":
			return fmt.Errorf("influxql statement %d is a SELECT ... INTO, which writes: only SELECT and SHOW statements that read are run", i+1)
		default:
			return fmt.Errorf("influxql statement %d is %.20q: only SELECT and SHOW statements that read are run", i+1, first)
		}
	}
	return nil
}

// statements are the bare words (keywords, unquoted names, numbers) of each
// statement of an InfluxQL text; quoted strings and identifiers and
// comments (-- to the end of the line, /* */) are left out.
func statements(q string) [][]string {
	var (
		all  [][]string
		cur  []string
		word strings.Builder
	)
	endWord := func() {
		if word.Len() > 0 {
			cur = append(cur, word.String())
			word.Reset()
		}
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			endWord()
			for i++; i < len(q) && q[i] != c; i++ {
				if q[i] == '\\' {
					i++
				}
			}
		case strings.HasPrefix(q[i:], "--"):
			endWord()
			if n := strings.IndexByte(q[i:], '\n'); n >= 0 {
				i += n
			} else {
				i = len(q)
			}
		case strings.HasPrefix(q[i:], "/*"):
			endWord()
			if n := strings.Index(q[i+2:], "*/"); n >= 0 {
				i += n + 3
			} else {
				i = len(q)
			}
		case c == ';':
			endWord()
			all, cur = append(all, cur), nil
		case c == '_' || c >= 0x80 || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)):
			word.WriteByte(c)
		default:
			endWord()
		}
	}
	endWord()
	return append(all, cur)
}

// containsFold reports whether words holds w, ignoring case.
func containsFold(words []string, w string) bool {
	for _, x := range words {
		if strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}
