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
// statement of an InfluxQL text; quoted strings and identifiers, regular
// expressions (/.../ after =~, !~, FROM or a comma) and comments (-- to the
// end of the line, /* */) are left out.
func statements(q string) [][]string {
	var (
		all  [][]string
		cur  []string
		word strings.Builder
		last string // the last word (upper case) or punctuation: whether a / opens a regex
	)
	endWord := func() {
		if word.Len() > 0 {
			cur = append(cur, word.String())
			last = strings.ToUpper(word.String())
			word.Reset()
		}
	}
	skipTo := func(i int, end byte) int { // the index of the unescaped end after i
		for i++; i < len(q) && q[i] != end; i++ {
			if q[i] == '\\' {
				i++
			}
		}
		return i
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			endWord()
			i, last = skipTo(i, c), "quoted"
		case c == '/' && !strings.HasPrefix(q[i:], "/*") && (last == "~" || last == "FROM" || last == ","):
			endWord()
			i, last = skipTo(i, '/'), "regex"
		case (c == '=' || c == '!') && strings.HasPrefix(q[i+1:], "~"):
			endWord()
			i, last = i+1, "~"
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
			all, cur, last = append(all, cur), nil, ";"
		case c == '_' || c >= 0x80 || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)):
			word.WriteByte(c)
		default:
			endWord()
			if !unicode.IsSpace(rune(c)) {
				last = string(c)
			}
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
