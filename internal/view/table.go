package view

import (
	"io"
	"strings"
	"unicode/utf8"
)

// cell is table text and the ANSI colour of its first word (its symbol),
// empty for none. Colour codes take no width in the layout.
type cell struct {
	text, color string
}

// ANSI colours, one per symbol.
var iconColors = map[string]string{
	IconOK:          "\033[32m",
	IconBad:         "\033[31m",
	IconProgressing: "\033[33m",
	IconWarning:     "\033[33m",
	IconUnknown:     "\033[33m",
	IconPaused:      "\033[90m",
	IconScaledDown:  "\033[90m",
}

const colorReset = "\033[0m"

func statusCell(s Status) cell { return cell{text: s.String(), color: iconColors[s.Icon]} }

// paint colours the first word of text.
func paint(text, color string, on bool) string {
	if !on || color == "" {
		return text
	}
	if word, rest, ok := strings.Cut(text, " "); ok {
		return color + word + colorReset + " " + rest
	}
	return color + text + colorReset
}

// writeTable lays rows out in columns two spaces apart, without trailing
// spaces, measuring text in runes.
func writeTable(w io.Writer, rows [][]cell, color bool) error {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c.text))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			line.WriteString(paint(c.text, c.color, color))
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c.text)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
