// Package skywalkingtest is an Apache SkyWalking OAP GraphQL endpoint for
// tests (the skywalking provider's unit tests and the e2e suite): POST
// /graphql with a JSON body, as GraphQL over HTTP and SkyWalking's query
// protocol document it. It checks the request (method, path, content
// type, a query declaring $duration, a MINUTE-step Duration variable whose
// start is not after its end) and answers {"data": ...} or {"errors":
// [{"message": ...}]}. It imports only the standard library.
package skywalkingtest

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// Duration is the `duration` variable as received.
type Duration struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Step  string `json:"step"`
}

// Server answers GraphQL queries with Answer.
type Server struct {
	// Answer returns the data of the answer to query, or an error message
	// (SkyWalking's GraphQL errors come back with HTTP 200).
	Answer func(query string, d Duration) (data any, errMessage string)

	mu   sync.Mutex
	seen []Duration
}

// Durations are the duration variables the server answered, in order.
func (s *Server) Durations() []Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Duration(nil), s.seen...)
}

// minute is SkyWalking's time format for step MINUTE: yyyy-MM-dd HHmm.
var minute = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{4}$`)

func write(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func errors(msg string) map[string]any {
	return map[string]any{"data": nil, "errors": []map[string]string{{"message": msg}}}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/graphql" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		write(w, http.StatusUnsupportedMediaType, errors("unsupported content type "+mt))
		return
	}
	var body struct {
		Query     string `json:"query"`
		Variables struct {
			Duration *Duration `json:"duration"`
		} `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		write(w, http.StatusBadRequest, errors("invalid request body: "+err.Error()))
		return
	}
	if err := check(body.Query, body.Variables.Duration); err != nil {
		write(w, http.StatusOK, errors(err.Error()))
		return
	}
	s.mu.Lock()
	s.seen = append(s.seen, *body.Variables.Duration)
	s.mu.Unlock()
	data, msg := s.Answer(body.Query, *body.Variables.Duration)
	if msg != "" {
		write(w, http.StatusOK, errors(msg))
		return
	}
	write(w, http.StatusOK, map[string]any{"data": data})
}

// check refuses what the OAP refuses: a query that does not declare the
// $duration it uses, and a duration that is missing, not at MINUTE step, or
// ends before it starts.
func check(query string, d *Duration) error {
	switch {
	case !strings.Contains(query, "$duration: Duration!"):
		return fmt.Errorf("the query does not declare $duration: Duration")
	case d == nil:
		return fmt.Errorf("variable 'duration' has coerced Null value for NonNull type 'Duration!'")
	case d.Step != "MINUTE":
		return fmt.Errorf("step %q, the provider sends MINUTE", d.Step)
	case !minute.MatchString(d.Start) || !minute.MatchString(d.End):
		return fmt.Errorf("duration %q..%q is not yyyy-MM-dd HHmm", d.Start, d.End)
	case d.Start > d.End:
		return fmt.Errorf("duration start %q is after its end %q", d.Start, d.End)
	}
	return nil
}

// Apdex is the data SkyWalking answers upstream's documented apdex query
// with: service_apdex's values, one per minute.
func Apdex(values ...int) map[string]any {
	vs := make([]map[string]any, len(values))
	for i, v := range values {
		vs[i] = map[string]any{"value": v}
	}
	return map[string]any{"service_apdex": map[string]any{"label": nil, "values": map[string]any{"values": vs}}}
}
