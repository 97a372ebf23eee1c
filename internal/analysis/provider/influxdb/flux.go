package influxdb

import (
	"bytes"
	"encoding/json"
	"net/http"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// fluxQuery is the body of POST /api/v2/query: the query, its type and
// the annotated CSV dialect asked for (the one InfluxDB's Go client asks
// for: a header row and the datatype, group and default annotations).
type fluxQuery struct {
	Query   string      `json:"query"`
	Type    string      `json:"type"`
	Dialect fluxDialect `json:"dialect"`
}

type fluxDialect struct {
	Header         bool     `json:"header"`
	Delimiter      string   `json:"delimiter"`
	Annotations    []string `json:"annotations"`
	CommentPrefix  string   `json:"commentPrefix"`
	DateTimeFormat string   `json:"dateTimeFormat"`
}

// fluxRequest is POST <address>/api/v2/query?org=<org> with
// `Authorization: Token <authToken>`, as upstream sends it: the profile
// Secret must hold address, authToken and org.
func fluxRequest(m *rampv1.InfluxdbMetric, creds provider.Credentials) (*http.Request, error) {
	v, err := creds.Require("address", "authToken", "org")
	if err != nil {
		return nil, err
	}
	address, token, org := v[0], v[1], v[2]
	u, err := endpoint(address, "api/v2/query")
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("org", org)
	u.RawQuery = q.Encode()
	body, err := json.Marshal(fluxQuery{Query: m.Query, Type: "flux", Dialect: fluxDialect{
		Header: true, Delimiter: ",", Annotations: []string{"datatype", "group", "default"},
		CommentPrefix: "#", DateTimeFormat: "RFC3339",
	}})
	if err != nil {
		return nil, err
	}
	r, err := http.NewRequest(http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Authorization", "Token "+token)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/csv")
	return r, nil
}
