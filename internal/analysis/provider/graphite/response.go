package graphite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// series is one element of the render API's JSON answer.
type series struct {
	Target     string `json:"target"`
	Datapoints points `json:"datapoints"`
}

// points are a series' datapoints: their non-null values, in order, and
// how many datapoints there were. Decoding stops with an error past
// provider.MaxValues datapoints.
type points struct {
	values []float64
	n      int
}

func (p *points) UnmarshalJSON(b []byte) error {
	*p = points{} // a repeated key replaces, as for a slice
	if string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b)) // b is one JSON value: the outer decoder checked it
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return errors.New("datapoints are not an array")
	}
	for dec.More() {
		if p.n == provider.MaxValues {
			return errTooMany
		}
		var d datapoint
		if err := dec.Decode(&d); err != nil {
			return err
		}
		p.n++
		if d.value != nil {
			p.values = append(p.values, *d.value)
		}
	}
	return nil
}

// errTooMany is the error of a first series of more than
// provider.MaxValues datapoints.
var errTooMany = fmt.Errorf("the first series has more than %d datapoints: consolidate them in the query (summarize, consolidateBy) or shorten from=", provider.MaxValues)

// datapoint is a [value, timestamp] pair; value is nil for a null.
type datapoint struct{ value *float64 }

// UnmarshalJSON accepts what upstream accepts: a value that is null, a
// number or a numeric string, and a timestamp that is null, a number or an
// integer string.
func (d *datapoint) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return errors.New("a datapoint is not an array [value, timestamp]")
	}
	if len(pair) != 2 {
		return fmt.Errorf("a datapoint has %d elements, not [value, timestamp]", len(pair))
	}
	switch v := pair[0]; kind(v) {
	case "null":
	case "number":
		f, err := parseFloat(string(v))
		if err != nil {
			return err
		}
		d.value = &f
	case "string":
		var s string
		_ = json.Unmarshal(v, &s) // a valid JSON string
		f, err := parseFloat(s)
		if err != nil {
			return err
		}
		d.value = &f
	default:
		return fmt.Errorf("a datapoint value is a %s, not a number", kind(v))
	}
	switch t := pair[1]; kind(t) {
	case "null", "number":
	case "string":
		var s string
		_ = json.Unmarshal(t, &s)
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return fmt.Errorf("datapoint timestamp %.40q is not an integer", s)
		}
	default:
		return fmt.Errorf("a datapoint timestamp is a %s, not a number", kind(t))
	}
	return nil
}

// kind names the JSON type of a valid JSON value by its first byte.
func kind(v json.RawMessage) string {
	switch v[0] {
	case 'n':
		return "null"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "number"
}

// parseFloat parses a datapoint value; one out of float64's range (as
// Graphite writes infinity, 1e9999) is ±Inf, not an error.
func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	var ne *strconv.NumError
	if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
		return f, nil
	}
	if err != nil {
		return 0, fmt.Errorf("datapoint value %.40q is not a number", s)
	}
	return f, nil
}

// parse turns a render API answer into a result, or an error: Graphite's
// own error text for a status of 400 or more (as upstream: "error
// response: ..."), invalid JSON, or no values.
func parse(status int, body []byte) (provider.Result, error) {
	if status >= 400 {
		return provider.Result{}, fmt.Errorf("error response (HTTP %d): %s", status, httpfetch.Excerpt(string(body)))
	}
	first, err := firstSeries(body)
	if errors.Is(err, errTooMany) {
		return provider.Result{}, err
	}
	if err != nil {
		return provider.Result{}, fmt.Errorf("invalid JSON response: %w", err)
	}
	if first.n == 0 {
		return provider.Result{}, errors.New("no values found")
	}
	values := first.values
	if values == nil {
		values = []float64{} // every datapoint null: an empty list, as upstream
	}
	return provider.Result{Value: values, Display: display(values)}, nil
}

// firstSeries decodes the datapoints of the first series of a render
// answer (a JSON array of series, or null); the later ones are checked to
// be JSON, not decoded (upstream uses the first only).
func firstSeries(body []byte) (points, error) {
	var first series
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	switch {
	case err != nil:
		return points{}, err
	case tok == nil: // null: no series
	case tok != json.Delim('['):
		return points{}, errors.New("not an array of series")
	default:
		for i := 0; dec.More(); i++ {
			var err error
			if i == 0 {
				err = dec.Decode(&first)
			} else {
				err = dec.Decode(new(skipped))
			}
			if err != nil {
				return points{}, err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing ]
			return points{}, err
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return points{}, errors.New("data after the answer")
	}
	return first.Datapoints, nil
}

// skipped is a JSON value read (its syntax checked) and not decoded.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// display formats values as upstream stores them: "[1.000000,2.500000]".
func display(values []float64) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = strconv.FormatFloat(v, 'f', 6, 64)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
