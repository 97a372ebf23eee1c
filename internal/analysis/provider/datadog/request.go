package datadog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// DefaultAggregator reduces a v2 query's series to one value when the
// metric names no aggregator (upstream's default).
const DefaultAggregator = "last"

// singleQueryName is the name a v2 request gives the metric's `query`.
const singleQueryName = "query"

// query is one Datadog request to make: the window, and what to ask.
type query struct {
	v2       bool
	from, to time.Time
	query    string            // v1
	queries  map[string]string // v2: name -> query
	formula  string            // v2
	agg      string            // v2
}

// newQuery checks the metric as upstream does and builds its request for
// the window ending at now.
func newQuery(m *rampv1.DatadogMetric, now time.Time) (query, error) {
	interval, err := m.EffectiveInterval().Duration()
	if err != nil {
		return query{}, fmt.Errorf("interval: %w", err)
	}
	if interval <= 0 {
		return query{}, fmt.Errorf("interval must be positive (got %q)", m.Interval)
	}
	to := now.Truncate(time.Second)
	q := query{from: to.Add(-interval.Truncate(time.Second)), to: to, query: m.Query, formula: m.Formula, agg: m.Aggregator}
	switch v := m.EffectiveAPIVersion(); v {
	case "v1":
	case "v2":
		q.v2 = true
	default:
		return query{}, fmt.Errorf("apiVersion must be v1 or v2 (got %q)", v)
	}
	if err := check(m, q.v2); err != nil {
		return query{}, err
	}
	if q.v2 {
		q.queries = m.Queries
		if m.Query != "" {
			q.queries = map[string]string{singleQueryName: m.Query}
		}
		if q.agg == "" {
			q.agg = DefaultAggregator
		}
	}
	return q, nil
}

// check refuses the field combinations upstream refuses, naming the fields.
func check(m *rampv1.DatadogMetric, v2 bool) error {
	switch {
	case m.Query == "" && len(m.Queries) == 0:
		return errors.New("one of query or queries is required")
	case m.Query != "" && len(m.Queries) > 0:
		return errors.New("query and queries are exclusive: set one")
	case !v2 && m.Query == "":
		return errors.New("apiVersion v1 takes query only (queries and formula need apiVersion v2)")
	case !v2 && m.Formula != "":
		return errors.New("apiVersion v1 takes no formula (it needs apiVersion v2)")
	case !v2 && m.Aggregator != "":
		return errors.New("apiVersion v1 takes no aggregator (it needs apiVersion v2)")
	case m.Formula != "" && len(m.Queries) == 0:
		return errors.New("formula needs queries")
	case m.Formula == "" && len(m.Queries) > 1:
		return errors.New("several queries need a formula combining them")
	}
	return nil
}

// v1Path and v2Path are the Datadog endpoints the provider calls.
const (
	v1Path = "/api/v1/query"
	v2Path = "/api/v2/query/scalar"
)

// request is q as an HTTP request to the API at address, without
// credentials.
func (q query) request(ctx context.Context, address string) (*http.Request, error) {
	u, err := url.Parse(address)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("the Secret's address is not an http(s) URL")
	}
	var r *http.Request
	if !q.v2 {
		u = u.JoinPath(v1Path)
		u.RawQuery = url.Values{
			"from":  {strconv.FormatInt(q.from.Unix(), 10)},
			"to":    {strconv.FormatInt(q.to.Unix(), 10)},
			"query": {q.query},
		}.Encode()
		r, err = http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	} else {
		body, merr := json.Marshal(q.body())
		if merr != nil {
			return nil, merr
		}
		r, err = http.NewRequestWithContext(ctx, http.MethodPost, u.JoinPath(v2Path).String(), bytes.NewReader(body))
	}
	if err != nil {
		return nil, errors.New("building the request failed")
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json")
	return r, nil
}

// scalarRequest is the body of POST /api/v2/query/scalar
// (ScalarFormulaQueryRequest in Datadog's API reference).
type scalarRequest struct {
	Data struct {
		Type       string `json:"type"`
		Attributes struct {
			From     int64          `json:"from"`
			To       int64          `json:"to"`
			Queries  []scalarQuery  `json:"queries"`
			Formulas []queryFormula `json:"formulas,omitempty"`
		} `json:"attributes"`
	} `json:"data"`
}

type scalarQuery struct {
	DataSource string `json:"data_source"`
	Name       string `json:"name"`
	Query      string `json:"query"`
	Aggregator string `json:"aggregator"`
}

type queryFormula struct {
	Formula string `json:"formula"`
}

// body is q's v2 request body, its queries sorted by name; times in
// milliseconds.
func (q query) body() scalarRequest {
	var b scalarRequest
	b.Data.Type = "scalar_request"
	b.Data.Attributes.From = q.from.UnixMilli()
	b.Data.Attributes.To = q.to.UnixMilli()
	names := make([]string, 0, len(q.queries))
	for n := range q.queries {
		names = append(names, n)
	}
	sort.Strings(names)
	b.Data.Attributes.Queries = []scalarQuery{}
	for _, n := range names {
		b.Data.Attributes.Queries = append(b.Data.Attributes.Queries, scalarQuery{DataSource: "metrics", Name: n, Query: q.queries[n], Aggregator: q.agg})
	}
	if q.formula != "" {
		b.Data.Attributes.Formulas = []queryFormula{{Formula: q.formula}}
	}
	return b
}
