package graphite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// series is one element of the render API's JSON answer.
type series struct {
	Target     string      `json:"target"`
	Datapoints []datapoint `json:"datapoints"`
}

// datapoint is a [value, timestamp] pair; value is nil for a null.
type datapoint struct{ value *float64 }

// UnmarshalJSON accepts what upstream accepts: a value that is null, a
// number or a numeric string, and a timestamp that is null, a number or an
// integer string.
func (d *datapoint) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var pair []any
	if err := dec.Decode(&pair); err != nil {
		return err
	}
	if len(pair) != 2 {
		return fmt.Errorf("a datapoint has %d elements, not [value, timestamp]", len(pair))
	}
	switch v := pair[0].(type) {
	case nil:
	case json.Number:
		f, err := parseFloat(string(v))
		if err != nil {
			return err
		}
		d.value = &f
	case string:
		f, err := parseFloat(v)
		if err != nil {
			return err
		}
		d.value = &f
	default:
		return fmt.Errorf("a datapoint value is a %T, not a number", v)
	}
	switch t := pair[1].(type) {
	case nil, json.Number:
	case string:
		if _, err := strconv.ParseInt(t, 10, 64); err != nil {
			return fmt.Errorf("datapoint timestamp %.40q is not an integer", t)
		}
	default:
		return fmt.Errorf("a datapoint timestamp is a %T, not a number", t)
	}
	return nil
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
	var answer []series
	if err := json.Unmarshal(body, &answer); err != nil {
		return provider.Result{}, fmt.Errorf("invalid JSON response: %w", err)
	}
	if len(answer) == 0 || len(answer[0].Datapoints) == 0 {
		return provider.Result{}, errors.New("no values found")
	}
	values := make([]float64, 0, len(answer[0].Datapoints))
	for _, d := range answer[0].Datapoints {
		if d.value != nil {
			values = append(values, *d.value)
		}
	}
	return provider.Result{Value: values, Display: display(values)}, nil
}

// display formats values as upstream stores them: "[1.000000,2.500000]".
func display(values []float64) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = strconv.FormatFloat(v, 'f', 6, 64)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
