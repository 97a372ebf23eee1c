package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// printer writes a verb's lines and keeps the first write error, so the
// lines need no check each and a failed output (a closed pipe, a full
// disk) is reported once, at the end (err).
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) println(args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, args...)
	}
}

// table is a printer into a tabwriter over p, flushed by endTable.
func (p *printer) table() (*printer, *tabwriter.Writer) {
	tw := tabwriter.NewWriter(p.w, 0, 0, 2, ' ', 0)
	return &printer{w: tw}, tw
}

// endTable flushes the table and takes its first error.
func (p *printer) endTable(t *printer, tw *tabwriter.Writer) {
	if err := tw.Flush(); p.err == nil {
		p.err = err
	}
	if p.err == nil {
		p.err = t.err
	}
}

// printed is the error of an fmt.Fprint call, for `return printed(...)`.
func printed(_ int, err error) error { return err }
