package v1alpha1

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
)

// JudgeMetric is a Ramp extension (upstream has no such provider): it
// compares a canary with its baseline statistically. Each of its metrics is
// a PromQL query run over the lookback window once for the baseline and
// once for the canary; the samples are compared with a two-sided
// Mann-Whitney U test and an effect-size bound, and the per-metric verdicts
// are weighed into a score from 0 to 100 that the threshold turns into the
// measurement's phase (Kayenta's judge model, computed in-process).
type JudgeMetric struct {
	// Address of the Prometheus server, e.g. http://prometheus:9090.
	// +optional
	Address string `json:"address,omitempty"`
	// Baseline is substituted for {{group}} in every query to select the
	// baseline's series, normally a pod-template hash.
	Baseline string `json:"baseline"`
	// Canary is substituted for {{group}} to select the canary's series.
	Canary string `json:"canary"`
	// Lookback is the window of samples, ending at the measurement. Default 5m.
	// +optional
	Lookback DurationString `json:"lookback,omitempty"`
	// Step is the resolution of the range queries. Default 15s.
	// +optional
	Step DurationString `json:"step,omitempty"`
	// Confidence of the test, in (0, 1): a change is significant when its
	// two-sided p-value is below 1 - confidence. Default 0.95.
	// +optional
	Confidence Decimal `json:"confidence,omitempty"`
	// Threshold turns the score into the phase: at least pass is
	// Successful, at least marginal Inconclusive, below it Failed.
	Threshold KayentaThreshold `json:"threshold"`
	// Metrics are the queries compared.
	// +kubebuilder:validation:MinItems=1
	Metrics []JudgeQuery `json:"metrics"`
	// Timeout of each query in seconds. Default 30.
	// +optional
	Timeout *int64 `json:"timeout,omitempty"`
	// Insecure skips TLS verification of the server certificate.
	// +optional
	Insecure bool `json:"insecure,omitempty"`
	// Headers are added to every query request.
	// +optional
	Headers []WebMetricHeader `json:"headers,omitempty"`
}

// JudgeQuery is one metric of a judgement.
type JudgeQuery struct {
	// Name of the metric, unique within the judgement.
	Name string `json:"name"`
	// Query is a PromQL query holding {{group}} where the baseline or canary
	// selector goes, e.g. latency_seconds{pod_template_hash="{{group}}"}.
	Query string `json:"query"`
	// Direction is the change that is bad: increase, decrease or either
	// (default).
	// +kubebuilder:validation:Enum=increase;decrease;either
	// +optional
	Direction string `json:"direction,omitempty"`
	// EffectSize is the smallest relative change that matters: the
	// Hodges-Lehmann shift of the canary over the baseline's median (0.1 is
	// 10%). A significant change below it passes. Default 0.
	// +optional
	EffectSize Decimal `json:"effectSize,omitempty"`
	// Weight of the metric in the score. Default 1.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Weight *int64 `json:"weight,omitempty"`
	// Critical: a bad change of this metric fails the whole judgement.
	// +optional
	Critical bool `json:"critical,omitempty"`
}

// Decimal is a number kept as its decimal text, so that a fraction such as
// 0.95 round-trips exactly without a floating-point field in the API. It is
// a JSON number (a JSON string holding one is also read).
// +kubebuilder:validation:Type=number
type Decimal string

// decimalRE is the text of a finite decimal number: no NaN, Inf, hex or
// digit separators, which strconv.ParseFloat would also accept.
var decimalRE = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// Float parses the number; an empty Decimal, a text that is not a finite
// decimal number ("NaN", "Inf", "0x1p-2") and one out of float64's range
// ("1e400") are errors.
func (d Decimal) Float() (float64, error) {
	if d == "" {
		return 0, errors.New("not set")
	}
	if !decimalRE.MatchString(string(d)) {
		return 0, errors.New("not a decimal number: " + strconv.Quote(string(d)))
	}
	f, err := strconv.ParseFloat(string(d), 64)
	if err != nil {
		return 0, errors.New("out of range: " + strconv.Quote(string(d)))
	}
	return f, nil
}

// MarshalJSON writes the number (a string when the text is not one).
func (d Decimal) MarshalJSON() ([]byte, error) {
	if json.Valid([]byte(d)) {
		var f float64
		if json.Unmarshal([]byte(d), &f) == nil {
			return []byte(d), nil
		}
	}
	return json.Marshal(string(d))
}

// UnmarshalJSON reads a number or a string.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*d = Decimal(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("a decimal must be a number")
	}
	*d = Decimal(n.String())
	return nil
}
