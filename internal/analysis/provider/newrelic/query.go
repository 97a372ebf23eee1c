package newrelic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// nrqlQuery is the NerdGraph operation: NRQL in an account, synchronous,
// with a timeout in seconds; only the result rows are asked for.
const nrqlQuery = `query($accountId: Int!, $query: Nrql!, $timeout: Seconds) { actor { account(id: $accountId) { nrql(query: $query, timeout: $timeout) { results } } } }`

// graphQLRequest is the body of a NerdGraph request.
type graphQLRequest struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables"`
}

// graphQLResponse is NerdGraph's answer: the data, and errors (each with
// New Relic's errorClass, e.g. UNAUTHORIZED, TOO_MANY_REQUESTS).
type graphQLResponse struct {
	Data struct {
		Actor struct {
			Account struct {
				NRQL *struct {
					Results []map[string]any `json:"results"`
				} `json:"nrql"`
			} `json:"account"`
		} `json:"actor"`
	} `json:"data"`
	Errors []struct {
		Message    string `json:"message"`
		Extensions struct {
			ErrorClass string `json:"errorClass"`
		} `json:"extensions"`
	} `json:"errors"`
}

// query posts the NRQL to NerdGraph and decodes the rows.
func (p *Provider) query(ctx context.Context, prof profile, nrql string, timeout time.Duration) (provider.Result, error) {
	u, err := url.Parse(prof.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return provider.Result{}, fmt.Errorf("the profile's %s is not an http(s) URL", rampv1.NewRelicNerdGraphURLKey)
	}
	body, err := json.Marshal(graphQLRequest{Query: nrqlQuery, Variables: map[string]any{
		"accountId": prof.account, "query": nrql, "timeout": int64(timeout / time.Second),
	}})
	if err != nil {
		return provider.Result{}, err
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return provider.Result{}, errors.New("building the request failed")
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json")
	r.Header.Set("API-Key", prof.apiKey)
	answer, err := httpfetch.SendOK(ctx, p.clients.For(false), r, errorMessage)
	if err != nil {
		return provider.Result{}, err
	}
	return decode(answer)
}

// errorMessage is NerdGraph's first error message in an error body, else
// the body.
func errorMessage(body []byte) string {
	var g graphQLResponse
	if json.Unmarshal(body, &g) == nil && len(g.Errors) > 0 {
		return g.Errors[0].Message
	}
	return string(body)
}

// decode is the result of a NerdGraph answer: upstream's one row as a map,
// several as a list; no row (or one empty row) is an error, as upstream.
// GraphQL errors are errors naming their class.
func decode(body []byte) (provider.Result, error) {
	var g graphQLResponse
	if err := json.Unmarshal(body, &g); err != nil {
		return provider.Result{}, fmt.Errorf("malformed response: %w", err)
	}
	if len(g.Errors) > 0 {
		var msgs []string
		for _, e := range g.Errors {
			msgs = append(msgs, strings.TrimSpace(classOf(e.Extensions.ErrorClass)+" "+e.Message))
		}
		return provider.Result{}, fmt.Errorf("NerdGraph: %s", httpfetch.Excerpt(strings.Join(msgs, "; ")))
	}
	nrql := g.Data.Actor.Account.NRQL
	if nrql == nil {
		return provider.Result{}, errors.New("malformed response: no data.actor.account.nrql")
	}
	rows := nrql.Results
	var value any
	switch {
	case len(rows) == 0 || (len(rows) == 1 && len(rows[0]) == 0):
		return provider.Result{}, errors.New("no results returned from NRQL query")
	case len(rows) == 1:
		value = rows[0]
	default:
		list := make([]any, len(rows))
		for i, r := range rows {
			list[i] = r
		}
		value = list
	}
	text, err := json.Marshal(value)
	if err != nil { // rows decoded from JSON always encode again
		return provider.Result{}, fmt.Errorf("malformed response: %w", err)
	}
	return provider.Result{Value: value, Display: string(text)}, nil
}

// classOf names what a NerdGraph errorClass means for the measurement.
func classOf(class string) string {
	switch class {
	case "":
		return ""
	case "UNAUTHORIZED", "FORBIDDEN", "UNAUTHENTICATED":
		return class + " (credentials refused):"
	case "TOO_MANY_REQUESTS":
		return class + " (rate limited):"
	}
	return class + ":"
}
