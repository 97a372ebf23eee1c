package wavefront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// chartPath is Wavefront's query endpoint.
const chartPath = "/api/v2/chart/api"

// query asks the chart API for the query at one instant (start = end =
// at, one point a series at second granularity, series whose only points
// are outside the window included: upstream's parameters).
func (p *Provider) query(ctx context.Context, address, token, q string, at time.Time) (provider.Result, error) {
	ms := strconv.FormatInt(at.Unix()*1000, 10)
	u := url.URL{Scheme: "https", Host: address, Path: chartPath, RawQuery: url.Values{
		"q": {q}, "s": {ms}, "e": {ms}, "g": {"s"}, "p": {"1"}, "i": {"true"},
	}.Encode()}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return provider.Result{}, errors.New("building the request failed")
	}
	r.Header.Set("Authorization", "Bearer "+token)
	r.Header.Set("Accept", "application/json")
	body, err := httpfetch.SendOK(ctx, p.clients.For(false), r, errorMessage)
	if err != nil {
		return provider.Result{}, err
	}
	return decode(body, at)
}

// chartResponse is the part of the chart API's answer the provider reads:
// each series' points are [epoch seconds, value].
type chartResponse struct {
	Warnings   string `json:"warnings"`
	TimeSeries []struct {
		Data [][]*float64 `json:"data"` // a null decodes to nil, not 0
	} `json:"timeseries"`
}

// decode picks, in each series, the point closest to at (upstream's
// choice), and records their times and their drift from at in metadata.
// No series is an error, as upstream; so is a series without points
// (upstream takes 0 for it, see docs/conformance.md).
func decode(body []byte, at time.Time) (provider.Result, error) {
	var r chartResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return provider.Result{}, fmt.Errorf("malformed response: %w", err)
	}
	if len(r.TimeSeries) == 0 {
		return provider.Result{}, errors.New("no time series found in the response")
	}
	values := make([]float64, len(r.TimeSeries))
	shown, times, drifts := make([]string, len(values)), make([]string, len(values)), make([]string, len(values))
	for i, s := range r.TimeSeries {
		v, t, err := closest(s.Data, float64(at.Unix()))
		if err != nil {
			return provider.Result{}, fmt.Errorf("series %d: %w", i, err)
		}
		values[i] = v
		shown[i] = fmt.Sprintf("%.2f", v)
		times[i] = strconv.FormatInt(int64(t), 10)
		drifts[i] = strconv.FormatInt(int64(t)-at.Unix(), 10)
	}
	meta := map[string]string{}
	if r.Warnings != "" {
		meta[rampv1.WavefrontWarningsMetadataKey] = httpfetch.Excerpt(r.Warnings)
	}
	if len(values) == 1 {
		meta[rampv1.WavefrontTimestampsMetadataKey], meta[rampv1.WavefrontDriftMetadataKey] = times[0], drifts[0]
		return provider.Result{Value: values[0], Display: shown[0], Metadata: meta}, nil
	}
	list := func(s []string) string { return "[" + strings.Join(s, ",") + "]" }
	meta[rampv1.WavefrontTimestampsMetadataKey], meta[rampv1.WavefrontDriftMetadataKey] = list(times), list(drifts)
	return provider.Result{Value: values, Display: list(shown), Metadata: meta}, nil
}

// maxEpoch bounds a point's time (epoch seconds; ±1e15 is some 30
// million years): the stored timestamps and drifts are its int64.
const maxEpoch = 1e15

// closest is the value and time of the point nearest to at (the first of
// equals). A point whose value is null is a gap, passed over: decoded as
// a number it would be 0, which a `result < x` condition passes (see
// docs/conformance.md); a null time is malformed.
func closest(points [][]*float64, at float64) (float64, float64, error) {
	best := -1
	for i, pt := range points {
		switch {
		case len(pt) != 2:
			return 0, 0, fmt.Errorf("malformed response: a point has %d values, not [time, value]", len(pt))
		case pt[0] == nil:
			return 0, 0, errors.New("malformed response: a point has a null time")
		case math.Abs(*pt[0]) > maxEpoch: // int64 of it would be any number
			return 0, 0, fmt.Errorf("malformed response: point time %g is not epoch seconds", *pt[0])
		case pt[1] == nil:
			continue
		}
		if best < 0 || math.Abs(*pt[0]-at) < math.Abs(*points[best][0]-at) {
			best = i
		}
	}
	if best < 0 {
		return 0, 0, errors.New("no data points")
	}
	return *points[best][1], *points[best][0], nil
}

// errorMessage is Wavefront's message in an error body
// ({"status": {"result": "ERROR", "message": ..., "code": ...}}), else the
// body itself.
func errorMessage(body []byte) string {
	var e struct {
		Status struct {
			Message string `json:"message"`
		} `json:"status"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil {
		if e.Status.Message != "" {
			return e.Status.Message
		}
		if e.Message != "" {
			return e.Message
		}
	}
	return string(body)
}
