// Package influxdbtest is an InfluxDB 2.x query endpoint for tests (the
// influxdb provider's unit tests and the e2e suite): POST /api/v2/query as
// InfluxData documents it, checking the request (method, path, org,
// `Authorization: Token`, JSON body) and answering in annotated CSV, or
// with the documented error JSON {"code","message"}. It imports only the
// standard library.
package influxdbtest

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Server serves /api/v2/query for one org and token.
type Server struct {
	Token, Org string
	// Answer returns the annotated CSV answer to a Flux query, or ok
	// false for a query InfluxDB would not compile (400 invalid).
	Answer func(query string) (csv string, ok bool)
	// RetryAfter, when set, makes every request a 429 with that
	// Retry-After header (the documented rate-limit answer).
	RetryAfter string

	mu      sync.Mutex
	queries []string
}

// Request is the JSON body of POST /api/v2/query.
type Request struct {
	Query   string `json:"query"`
	Type    string `json:"type"`
	Dialect *struct {
		Header         *bool    `json:"header"`
		Delimiter      string   `json:"delimiter"`
		Annotations    []string `json:"annotations"`
		CommentPrefix  string   `json:"commentPrefix"`
		DateTimeFormat string   `json:"dateTimeFormat"`
	} `json:"dialect"`
}

// Queries are the Flux queries the server answered, in order.
func (s *Server) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queries)
}

func fail(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"code": code, "message": message})
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/api/v2/query") {
		fail(w, http.StatusNotFound, "not found", "path not found")
		return
	}
	if r.Method != http.MethodPost {
		fail(w, http.StatusMethodNotAllowed, "method not allowed", "allow: POST")
		return
	}
	if s.RetryAfter != "" {
		w.Header().Set("Retry-After", s.RetryAfter)
		fail(w, http.StatusTooManyRequests, "too many requests", "org "+s.Org+" has exceeded its query quota")
		return
	}
	if r.Header.Get("Authorization") != "Token "+s.Token {
		fail(w, http.StatusUnauthorized, "unauthorized", "unauthorized access")
		return
	}
	if org := r.URL.Query().Get("org"); org != s.Org {
		fail(w, http.StatusNotFound, "not found", fmt.Sprintf("organization name %q not found", org))
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		fail(w, http.StatusUnsupportedMediaType, "invalid", "unsupported media type "+strconv.Quote(mt))
		return
	}
	var q Request
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		fail(w, http.StatusBadRequest, "invalid", "failed to decode request body: "+err.Error())
		return
	}
	if err := q.check(); err != nil {
		fail(w, http.StatusBadRequest, "invalid", err.Error())
		return
	}
	s.mu.Lock()
	s.queries = append(s.queries, q.Query)
	s.mu.Unlock()
	answer, ok := s.Answer(q.Query)
	if !ok {
		fail(w, http.StatusBadRequest, "invalid", "compilation failed: error at @1:1-1:5: undefined identifier bogus")
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	_, _ = w.Write([]byte(answer))
}

// check refuses what InfluxDB refuses, and what the provider must not send
// (it asks for a header row and the datatype annotation it decodes by).
func (q Request) check() error {
	switch {
	case strings.TrimSpace(q.Query) == "":
		return fmt.Errorf("query is empty")
	case q.Type != "flux":
		return fmt.Errorf("unsupported query type %q", q.Type)
	case q.Dialect == nil || q.Dialect.Header == nil || !*q.Dialect.Header:
		return fmt.Errorf("the provider must ask for a header row")
	case q.Dialect.Delimiter != ",":
		return fmt.Errorf("delimiter %q", q.Dialect.Delimiter)
	case q.Dialect.DateTimeFormat != "" && q.Dialect.DateTimeFormat != "RFC3339" && q.Dialect.DateTimeFormat != "RFC3339Nano":
		return fmt.Errorf("dateTimeFormat %q", q.Dialect.DateTimeFormat)
	case !slices.Contains(q.Dialect.Annotations, "datatype"):
		return fmt.Errorf("the provider must ask for the datatype annotation")
	}
	for _, a := range q.Dialect.Annotations {
		if a != "datatype" && a != "group" && a != "default" {
			return fmt.Errorf("unknown annotation %q", a)
		}
	}
	return nil
}

// Table is an annotated CSV answer with one table whose _value column is
// of datatype typ ("double", "long", ...) and holds values, as InfluxDB
// writes it (CRLF line ends, a blank line at the end).
func Table(typ string, values ...string) string {
	var b strings.Builder
	b.WriteString("#datatype,string,long,dateTime:RFC3339,dateTime:RFC3339,dateTime:RFC3339," + typ + ",string,string\r\n")
	b.WriteString("#group,false,false,true,true,false,false,true,true\r\n")
	b.WriteString("#default,_result,,,,,,,\r\n")
	b.WriteString(",result,table,_start,_stop,_time,_value,_field,_measurement\r\n")
	for i, v := range values {
		fmt.Fprintf(&b, ",,0,2026-01-01T00:00:00Z,2026-01-01T00:15:00Z,2026-01-01T00:%02d:00Z,%s,rate,errors\r\n", i, v)
	}
	b.WriteString("\r\n")
	return b.String()
}
