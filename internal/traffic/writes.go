package traffic

import (
	"context"
	"fmt"
)

// A Write is a change a router made to one of its objects, told as the
// Event upstream's router records for it: reason and message.
type Write struct{ Reason, Message string }

// Wrote formats a Write.
func Wrote(reason, format string, args ...any) Write {
	return Write{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

type writesKey struct{}

// WithWrites returns a context in which routers append what they write to
// *log (the caller owns log and reads it once Sync returns). Reporting is
// optional: a router that reports nothing still routes.
func WithWrites(ctx context.Context, log *[]Write) context.Context {
	return context.WithValue(ctx, writesKey{}, log)
}

// Report appends w to the context's write log; a zero Write or a context
// without one (WithWrites) records nothing. Routers call it only after the
// API server accepted the write, never when the object already held want.
func Report(ctx context.Context, w Write) {
	if log, ok := ctx.Value(writesKey{}).(*[]Write); ok && log != nil && w.Reason != "" {
		*log = append(*log, w)
	}
}
