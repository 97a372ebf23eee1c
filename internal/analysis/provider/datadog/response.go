package datadog

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// emptyDisplay is the stored value of an empty result: upstream stores the
// JSON of the empty series.
const emptyDisplay = "[]"

// v1Response is the part of GET /api/v1/query's answer the provider reads.
type v1Response struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Series []struct {
		Pointlist [][]*float64 `json:"pointlist"`
	} `json:"series"`
}

// decodeV1 is the last point of the first series, as upstream reads it.
// An empty result (no series, or no points) is a nil value, as upstream;
// a null last point is nil too (upstream decodes it as 0, see
// docs/conformance.md).
func decodeV1(body []byte) (provider.Result, error) {
	var r v1Response
	if err := json.Unmarshal(body, &r); err != nil {
		return provider.Result{}, fmt.Errorf("malformed response: %w", err)
	}
	if r.Status == "error" || r.Error != "" {
		return provider.Result{}, fmt.Errorf("the query was refused: %s", httpfetch.Excerpt(r.Error))
	}
	if len(r.Series) == 0 || len(r.Series[0].Pointlist) == 0 {
		return provider.Result{Display: emptyDisplay}, nil
	}
	points := r.Series[0].Pointlist
	last := points[len(points)-1]
	if len(last) != 2 {
		return provider.Result{}, fmt.Errorf("malformed response: a point has %d values, not [time, value]", len(last))
	}
	return scalar(last[1]), nil
}

// v2Response is the part of POST /api/v2/query/scalar's answer the provider
// reads (ScalarFormulaQueryResponse).
type v2Response struct {
	Data struct {
		Attributes struct {
			Columns []v2Column `json:"columns"`
		} `json:"attributes"`
		Errors string `json:"errors"`
	} `json:"data"`
	Errors string `json:"errors"`
}

// v2Column is a "number" column (values: numbers or nulls) or a "group"
// column (values: the tag values of each row).
type v2Column struct {
	Name   string          `json:"name"`
	Type   string          `json:"type"`
	Values json.RawMessage `json:"values"`
}

// decodeV2 is the value of the scalar response: the first value of the
// first number column, or, when the query is grouped (`by {tag}`: a group
// column is present), every row's value as a []float64 (null rows NaN).
// No rows is a nil value, as upstream; so is a null value.
func decodeV2(body []byte) (provider.Result, error) {
	var r v2Response
	if err := json.Unmarshal(body, &r); err != nil {
		return provider.Result{}, fmt.Errorf("malformed response: %w", err)
	}
	if msg := r.Errors + r.Data.Errors; msg != "" {
		return provider.Result{}, fmt.Errorf("the query was refused: %s", httpfetch.Excerpt(msg))
	}
	var numbers []*float64
	found, grouped := false, false
	for _, c := range r.Data.Attributes.Columns {
		switch c.Type {
		case "group":
			grouped = true
		case "number":
			if found {
				continue
			}
			found = true
			if err := json.Unmarshal(c.Values, &numbers); err != nil {
				return provider.Result{}, fmt.Errorf("malformed response: column %q: %w", c.Name, err)
			}
		}
	}
	switch {
	case !found && len(r.Data.Attributes.Columns) > 0:
		return provider.Result{}, errors.New("malformed response: no number column")
	case len(numbers) == 0:
		return provider.Result{Display: emptyDisplay}, nil
	case grouped:
		return series(numbers), nil
	}
	return scalar(numbers[0]), nil
}

// scalar is the result of one value; nil when Datadog sent null.
func scalar(v *float64) provider.Result {
	if v == nil {
		return provider.Result{Display: "null"}
	}
	return provider.Result{Value: *v, Display: strconv.FormatFloat(*v, 'f', -1, 64)}
}

// series is the result of a grouped query: one value a group, nulls NaN.
func series(vs []*float64) provider.Result {
	out := make([]float64, len(vs))
	text := make([]string, len(vs))
	for i, v := range vs {
		out[i] = math.NaN()
		if v != nil {
			out[i] = *v
		}
		text[i] = strconv.FormatFloat(out[i], 'f', -1, 64)
	}
	return provider.Result{Value: out, Display: "[" + strings.Join(text, ",") + "]"}
}

// errorMessage is Datadog's message in an error body ({"errors": [...]}),
// else the body itself.
func errorMessage(body []byte) string {
	var e struct {
		Errors []string `json:"errors"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Errors) > 0 {
		return strings.Join(e.Errors, "; ")
	}
	return string(body)
}
