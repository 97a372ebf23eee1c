package prometheus

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/expr-lang/expr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// bounds resolves the start and end of a range query at now. Each is an
// RFC 3339 timestamp or an expr expression giving a time, such as
// `now() - duration("5m")` (expr's date functions, with now() read from the
// Provider's clock). An unset end is now; an unset start is an error.
func bounds(r *rampv1.PrometheusRangeQueryArgs, now time.Time) (start, end time.Time, err error) {
	if r.Start == "" {
		return start, end, errors.New("rangeQuery.start is not set")
	}
	if start, err = instant(r.Start, now); err != nil {
		return start, end, fmt.Errorf("rangeQuery.start: %w", err)
	}
	end = now
	if r.End != "" {
		if end, err = instant(r.End, now); err != nil {
			return start, end, fmt.Errorf("rangeQuery.end: %w", err)
		}
	}
	if end.Before(start) {
		return start, end, fmt.Errorf("rangeQuery.end %s is before its start %s", formatTime(end), formatTime(start))
	}
	return start, end, nil
}

// instant evaluates one bound.
func instant(bound string, now time.Time) (t time.Time, err error) {
	if t, err := time.Parse(time.RFC3339, bound); err == nil {
		return t, nil
	}
	defer func() { // a compiler panic on odd input is an error, not a crash
		if r := recover(); r != nil {
			t, err = time.Time{}, fmt.Errorf("invalid expression %q: %v", bound, r)
		}
	}()
	program, err := expr.Compile(bound,
		expr.DisableBuiltin("now"),
		expr.Function("now", func(...any) (any, error) { return now, nil }, new(func() time.Time)),
	)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid expression %q: %s", bound, firstLine(err))
	}
	out, err := expr.Run(program, nil)
	if err != nil {
		return time.Time{}, fmt.Errorf("evaluating %q: %s", bound, firstLine(err))
	}
	t, ok := out.(time.Time)
	if !ok {
		return time.Time{}, fmt.Errorf("%q gives a %T, not a time", bound, out)
	}
	return t, nil
}

// firstLine is the first line of err's message (expr's errors go on with a
// source excerpt).
func firstLine(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}
