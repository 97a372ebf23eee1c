// Package cloudwatchtest is a CloudWatch GetMetricData endpoint for tests
// (the provider's unit tests and the e2e suite): it speaks the protocol the
// AWS SDK for Go v2 uses for CloudWatch today, Smithy RPC v2 CBOR in AWS
// query-compatible mode (POST /service/GraniteServiceVersion20100801/
// operation/GetMetricData, Smithy-Protocol: rpc-v2-cbor, X-Amzn-Query-Mode:
// true, a SigV4 Authorization header scoped to the region and service
// "monitoring"), checks each request as AWS documents it, and answers in
// the documented shapes, errors included (the CBOR body's __type and
// message, the X-Amzn-Query-Error header carrying the query-protocol code
// such as "AccessDenied;Sender" or "Throttling;Sender").
//
// Only tests import it; it is not linked into the controller.
package cloudwatchtest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/fxamacker/cbor/v2"
)

// Path is where the SDK sends GetMetricData.
const Path = "/service/GraniteServiceVersion20100801/operation/GetMetricData"

// Input is a decoded GetMetricData request (the fields the API documents).
type Input struct {
	StartTime         time.Time
	EndTime           time.Time
	MetricDataQueries []Query
	NextToken         *string
	ScanBy            string
	MaxDatapoints     *int32
}

// Query is one MetricDataQuery of a request.
type Query struct {
	Id         string //nolint:revive // the API's name
	Expression *string
	Label      *string
	MetricStat *MetricStat
	Period     *int32
	ReturnData *bool
	AccountId  *string //nolint:revive // the API's name
}

// MetricStat is a query's metric, period, statistic and unit.
type MetricStat struct {
	Metric struct {
		Namespace  *string
		MetricName *string
		Dimensions []struct{ Name, Value string }
	}
	Period *int32
	Stat   *string
	Unit   string
}

// Fault is a documented error the server answers with.
type Fault struct {
	Status    int    // HTTP status
	Type      string // the CBOR body's __type
	QueryCode string // X-Amzn-Query-Error, e.g. "Throttling;Sender"
	Message   string
}

// Documented errors of GetMetricData (and the common errors of every AWS
// API) as CloudWatch's RPC v2 CBOR endpoint returns them.
var (
	AccessDenied         = Fault{403, "AccessDeniedException", "AccessDenied;Sender", "User is not authorized to perform: cloudwatch:GetMetricData"}
	Throttling           = Fault{400, "ThrottlingException", "Throttling;Sender", "Rate exceeded"}
	InvalidClientTokenID = Fault{403, "InvalidClientTokenId", "InvalidClientTokenId;Sender", "The security token included in the request is invalid."}
	InternalFailure      = Fault{500, "InternalServiceFault", "InternalServiceError;Receiver", "Internal service error"}
)

// Server is a GetMetricData endpoint. Set its fields before requests
// arrive; read what it saw with Requests and Problems.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	keyID    string // a request signed with another gets InvalidClientTokenId
	region   string
	values   map[string][]float64
	fault    *Fault
	raw      []byte
	messages []Message
	requests []Input
	problems []string
}

// NewServer starts a server on 127.0.0.1 expecting requests signed with
// keyID for region.
func NewServer(keyID, region string) *Server {
	s := &Server{keyID: keyID, region: region, values: map[string][]float64{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetKeyID changes the key id requests must be signed with.
func (s *Server) SetKeyID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keyID = id
}

// SetValues makes the result of query id carry values (timestamps one
// minute apart, newest first as CloudWatch orders them by default).
func (s *Server) SetValues(id string, values ...float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values[id] = values
}

// Message is a MessageData CloudWatch returns with results.
type Message struct{ Code, Value string }

// SetMessages makes the answers carry messages.
func (s *Server) SetMessages(msgs ...Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = msgs
}

// SetFault makes every request fail with f (nil: answer normally).
func (s *Server) SetFault(f *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// SetRawBody makes every request get status 200 with body b (nil: answer
// normally), for malformed responses.
func (s *Server) SetRawBody(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw = b
}

// Requests are the well-formed requests received, in order.
func (s *Server) Requests() []Input {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Input(nil), s.requests...)
}

// Problems are what was wrong with the requests refused as malformed.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

// authRE is a SigV4 Authorization header: key id, date, region, service.
var authRE = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	keyID, region := s.keyID, s.region
	s.mu.Unlock()
	in, problem, signedBy := check(r, region)
	s.mu.Lock()
	defer s.mu.Unlock()
	badKey := signedBy != keyID
	switch {
	case problem != "":
		s.problems = append(s.problems, problem)
		s.writeFault(w, Fault{400, "ValidationError", "ValidationError;Sender", problem})
		return
	case badKey:
		s.writeFault(w, InvalidClientTokenID)
		return
	}
	s.requests = append(s.requests, in)
	switch {
	case s.fault != nil:
		s.writeFault(w, *s.fault)
	case s.raw != nil:
		w.Header().Set("Content-Type", "application/cbor")
		w.Header().Set("Smithy-Protocol", "rpc-v2-cbor")
		_, _ = w.Write(s.raw)
	default:
		s.writeResults(w, in)
	}
}

// check returns the decoded request, or what is wrong with it, and the key
// id it was signed with.
func check(r *http.Request, region string) (Input, string, string) {
	var in Input
	switch {
	case r.Method != http.MethodPost:
		return in, "method " + r.Method + ", want POST", ""
	case r.URL.Path != Path:
		return in, "path " + r.URL.Path + ", want " + Path, ""
	case r.Header.Get("Smithy-Protocol") != "rpc-v2-cbor":
		return in, "Smithy-Protocol header " + r.Header.Get("Smithy-Protocol") + ", want rpc-v2-cbor", ""
	case r.Header.Get("Content-Type") != "application/cbor":
		return in, "Content-Type " + r.Header.Get("Content-Type") + ", want application/cbor", ""
	case r.Header.Get("X-Amzn-Query-Mode") != "true":
		return in, "no X-Amzn-Query-Mode: true header", ""
	case r.Header.Get("X-Amz-Date") == "":
		return in, "no X-Amz-Date header", ""
	}
	m := authRE.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil {
		return in, "Authorization is not a SigV4 header", ""
	}
	if m[3] != region || m[4] != "monitoring" {
		return in, fmt.Sprintf("credential scope %s/%s, want %s/monitoring", m[3], m[4], region), ""
	}
	if !strings.Contains(";"+m[5]+";", ";host;") || !strings.Contains(";"+m[5]+";", ";x-amz-date;") {
		return in, "SignedHeaders " + m[5] + " lack host or x-amz-date", ""
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return in, "reading the body: " + err.Error(), ""
	}
	if err := cbor.Unmarshal(body, &in); err != nil {
		return in, "body is not a CBOR GetMetricData input: " + err.Error(), ""
	}
	if p := validate(in); p != "" {
		return in, p, ""
	}
	return in, "", m[1]
}

// validate checks what GetMetricData requires of its input.
func validate(in Input) string {
	if in.StartTime.IsZero() || in.EndTime.IsZero() || !in.EndTime.After(in.StartTime) {
		return "StartTime and EndTime are required, EndTime after StartTime"
	}
	if len(in.MetricDataQueries) == 0 {
		return "MetricDataQueries is required"
	}
	for i, q := range in.MetricDataQueries {
		if q.Id == "" {
			return fmt.Sprintf("MetricDataQueries[%d].Id is required", i)
		}
		if (q.Expression == nil) == (q.MetricStat == nil) {
			return fmt.Sprintf("MetricDataQueries[%d]: exactly one of Expression and MetricStat", i)
		}
		if ms := q.MetricStat; ms != nil && (ms.Metric.MetricName == nil || ms.Stat == nil || ms.Period == nil) {
			return fmt.Sprintf("MetricDataQueries[%d].MetricStat needs MetricName, Stat and Period", i)
		}
	}
	return ""
}

// writeResults answers with one MetricDataResult per query that returns
// data (ReturnData unset or true), in query order.
func (s *Server) writeResults(w http.ResponseWriter, in Input) {
	type result struct {
		Id         string      //nolint:revive // the API's name
		Label      string      `cbor:",omitempty"`
		Timestamps []time.Time `cbor:",omitempty"`
		Values     []float64   `cbor:",omitempty"`
		StatusCode string
	}
	out := struct {
		MetricDataResults []result
		Messages          []Message `cbor:",omitempty"`
	}{MetricDataResults: []result{}, Messages: s.messages}
	for _, q := range in.MetricDataQueries {
		if q.ReturnData != nil && !*q.ReturnData {
			continue
		}
		res := result{Id: q.Id, Label: q.Id, StatusCode: "Complete", Values: s.values[q.Id]}
		if q.Label != nil {
			res.Label = *q.Label
		}
		for i := range res.Values {
			res.Timestamps = append(res.Timestamps, in.EndTime.Truncate(time.Minute).Add(-time.Duration(i)*time.Minute))
		}
		out.MetricDataResults = append(out.MetricDataResults, res)
	}
	s.write(w, http.StatusOK, out)
}

func (s *Server) writeFault(w http.ResponseWriter, f Fault) {
	w.Header().Set("X-Amzn-Query-Error", f.QueryCode)
	s.write(w, f.Status, map[string]string{"__type": f.Type, "message": f.Message})
}

// encMode writes timestamps as CBOR tag 1 (epoch seconds), as AWS does.
var encMode, _ = cbor.EncOptions{Time: cbor.TimeUnixDynamic, TimeTag: cbor.EncTagRequired}.EncMode()

func (s *Server) write(w http.ResponseWriter, status int, v any) {
	b, err := encMode.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, nil
	}
	w.Header().Set("Content-Type", "application/cbor")
	w.Header().Set("Smithy-Protocol", "rpc-v2-cbor")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
