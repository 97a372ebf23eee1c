package influxdb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// influxQLRequest is GET <address>/query?q=<query>[&db=<database>], the
// InfluxDB 1.x query API (also served by 2.x for compatibility), with the
// method 1.x documents for SELECT and SHOW (1.6 still runs other
// statements sent with GET, with a warning). The profile Secret must
// hold address; database, authToken (sent as `Authorization: Token`, which
// 1.8+ and 2.x accept) and username/password (basic authentication, which
// every 1.x accepts) are optional.
func influxQLRequest(m *rampv1.InfluxdbMetric, creds provider.Credentials) (*http.Request, error) {
	if err := readOnly(m.Query); err != nil {
		return nil, err
	}
	v, err := creds.Require("address")
	if err != nil {
		return nil, err
	}
	u, err := endpoint(v[0], "query")
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("q", m.Query)
	if db := creds.Get("database"); db != "" {
		q.Set("db", db)
	}
	u.RawQuery = q.Encode()
	r, err := http.NewRequest(http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	r.Header.Set("Accept", "application/json")
	switch token, user := creds.Get("authToken"), creds.Get("username"); {
	case token != "":
		r.Header.Set("Authorization", "Token "+token)
	case user != "":
		r.SetBasicAuth(user, creds.Get("password"))
	}
	return r, nil
}

// influxQLAnswer is the JSON of a 1.x /query answer.
type influxQLAnswer struct {
	Results []struct {
		StatementID int    `json:"statement_id"`
		Error       string `json:"error"`
		Series      []struct {
			Columns []string        `json:"columns"`
			Values  json.RawMessage `json:"values"` // decoded row by row, up to provider.MaxValues
		} `json:"series"`
	} `json:"results"`
	Error string `json:"error"`
}

// decodeInfluxQL returns the values of every row of every series of every
// statement, in order: the row's first column after time (the selected
// field or aggregate, as `SELECT mean("value")` returns it), numbers as
// float64. A statement's error is an error.
func decodeInfluxQL(body []byte) ([]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var a influxQLAnswer
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("invalid JSON response: %w", err)
	}
	if a.Error != "" {
		return nil, fmt.Errorf("%s", httpfetch.Excerpt(a.Error))
	}
	var values []any
	for _, res := range a.Results {
		if res.Error != "" {
			return nil, fmt.Errorf("statement %d: %s", res.StatementID, httpfetch.Excerpt(res.Error))
		}
		for _, s := range res.Series {
			col := 0
			if len(s.Columns) > 1 && s.Columns[0] == "time" {
				col = 1
			}
			var err error
			if values, err = appendRows(values, s.Values, col, len(s.Columns)); err != nil {
				return nil, err
			}
		}
	}
	return values, nil
}

// appendRows appends column col of each row of a series' values (a JSON
// array of rows, or null) to values, stopping with an error past
// provider.MaxValues values: only the rows kept are decoded.
func appendRows(values []any, raw json.RawMessage, col, columns int) ([]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return values, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, errors.New("a series' values are not an array of rows")
	}
	for dec.More() {
		if len(values) == provider.MaxValues {
			return nil, tooMany()
		}
		var row []any
		if err := dec.Decode(&row); err != nil {
			return nil, fmt.Errorf("invalid JSON response: %w", err)
		}
		if col >= len(row) {
			return nil, fmt.Errorf("a row has %d columns, not %d", len(row), columns)
		}
		v, err := scalar(row[col])
		if err != nil {
			return nil, err
		}
		values = append(values, v)
	}
	return values, nil
}

// scalar is a JSON cell: a number as float64, a string, a bool, or nil.
func scalar(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("value %.40q is not a number", x)
		}
		return f, nil
	case string, bool, nil:
		return x, nil
	default:
		return nil, fmt.Errorf("a value is a %T, not a number, string or bool", v)
	}
}
