package prometheus

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// envelope is the JSON every HTTP API response is wrapped in.
type envelope struct {
	Status    string   `json:"status"`
	ErrorType string   `json:"errorType"`
	Error     string   `json:"error"`
	Warnings  []string `json:"warnings"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// series is one element of a vector (value) or matrix (values) result.
type series struct {
	Value      *sample         `json:"value"`
	Values     []sample        `json:"values"`
	Histogram  json.RawMessage `json:"histogram"`
	Histograms json.RawMessage `json:"histograms"`
}

// sample is a [<unix time>, "<value>"] pair; only the value is kept.
type sample struct{ value string }

func (s *sample) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return err
	}
	if len(pair) != 2 {
		return fmt.Errorf("a sample has %d elements, not [time, value]", len(pair))
	}
	return json.Unmarshal(pair[1], &s.value)
}

// parse turns an HTTP API response (its status code and body) into a
// result, or into an error naming what went wrong: Prometheus's own error
// ("bad_data: parse error ..."), the status code, or the invalid JSON.
func parse(status int, body []byte) (provider.Result, error) {
	var env envelope
	jsonErr := json.Unmarshal(body, &env)
	switch {
	case jsonErr == nil && env.Status == "error":
		if env.ErrorType == "" {
			return provider.Result{}, errors.New(env.Error)
		}
		return provider.Result{}, fmt.Errorf("%s: %s", env.ErrorType, env.Error)
	case status < 200 || status > 299:
		return provider.Result{}, fmt.Errorf("received non 2xx response code: %d", status)
	case jsonErr != nil:
		return provider.Result{}, fmt.Errorf("invalid JSON response: %w", jsonErr)
	case env.Status != "success":
		return provider.Result{}, fmt.Errorf("unexpected response status %.40q", env.Status)
	}
	res, err := mapResult(env.Data.ResultType, env.Data.Result)
	if err != nil {
		return provider.Result{}, fmt.Errorf("decoding the %.20q result: %w", env.Data.ResultType, err)
	}
	if len(env.Warnings) > 0 {
		w := strings.Join(env.Warnings, "; ")
		res.Message = "prometheus warnings: " + w
		res.Metadata = map[string]string{rampv1.PrometheusWarningsMetadataKey: w}
	}
	return res, nil
}

// mapResult maps a result by its type: scalar -> float64, vector and
// matrix -> []float64 (never nil), string -> string. Display is the value
// as Prometheus formats numbers ("0.5", "NaN", "+Inf"), a list as "[0.99,1]".
func mapResult(resultType string, raw json.RawMessage) (provider.Result, error) {
	switch resultType {
	case "scalar":
		var s sample
		if err := json.Unmarshal(raw, &s); err != nil {
			return provider.Result{}, err
		}
		f, err := parseValue(s.value)
		if err != nil {
			return provider.Result{}, err
		}
		return provider.Result{Value: f, Display: formatValue(f)}, nil
	case "string":
		var s sample
		if err := json.Unmarshal(raw, &s); err != nil {
			return provider.Result{}, err
		}
		return provider.Result{Value: s.value, Display: s.value}, nil
	case "vector", "matrix":
		var all []series
		if err := json.Unmarshal(raw, &all); err != nil {
			return provider.Result{}, err
		}
		values := []float64{}
		for _, s := range all {
			if present(s.Histogram) || present(s.Histograms) {
				return provider.Result{}, errors.New("native histogram samples are not supported")
			}
			samples := s.Values
			if resultType == "vector" {
				if s.Value == nil {
					return provider.Result{}, errors.New("a vector element has no value")
				}
				samples = []sample{*s.Value}
			}
			for _, v := range samples {
				f, err := parseValue(v.value)
				if err != nil {
					return provider.Result{}, err
				}
				values = append(values, f)
			}
		}
		return provider.Result{Value: values, Display: formatList(values)}, nil
	}
	return provider.Result{}, errors.New("unsupported result type")
}

// present reports whether an optional field was given a value.
func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// parseValue parses a sample value; Prometheus writes NaN and infinities
// as "NaN", "+Inf" and "-Inf", which ParseFloat accepts.
func parseValue(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid sample value %.40q", s)
	}
	return f, nil
}

func formatValue(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func formatList(values []float64) string {
	parts := make([]string, len(values))
	for i, f := range values {
		parts[i] = formatValue(f)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
