package kayenta

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// canaryConfig is one entry of GET /canaryConfig.
type canaryConfig struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// executionRequest is the body of POST /canary/{configId}
// (CanaryExecutionRequest): scopes by name, and the thresholds.
type executionRequest struct {
	Scopes     map[string]scopePair `json:"scopes"`
	Thresholds struct {
		Pass     int64 `json:"pass"`
		Marginal int64 `json:"marginal"`
	} `json:"thresholds"`
}

type scopePair struct {
	ControlScope    rampv1.ScopeDetail `json:"controlScope"`
	ExperimentScope rampv1.ScopeDetail `json:"experimentScope"`
}

// start looks the canary config up and starts an execution; the
// measurement stays Running until the execution completes.
func (p *Provider) start(ctx context.Context, base *url.URL, m *rampv1.KayentaMetric) (provider.Result, error) {
	lookup := base.JoinPath("canaryConfig")
	lookup.RawQuery = url.Values{"application": {m.Application}, "configurationAccountName": {m.ConfigurationAccountName}}.Encode()
	var configs []canaryConfig
	if err := p.call(ctx, http.MethodGet, lookup, nil, &configs); err != nil {
		return provider.Result{}, fmt.Errorf("kayenta: canary config lookup: %w", err)
	}
	id := ""
	for _, c := range configs {
		if c.Name == m.CanaryConfigName {
			id = c.ID
			break
		}
	}
	if id == "" {
		return provider.Result{}, fmt.Errorf("kayenta: no canary config named %q for application %q", m.CanaryConfigName, m.Application)
	}
	var body executionRequest
	body.Scopes = map[string]scopePair{}
	for _, s := range m.Scopes {
		body.Scopes[s.Name] = scopePair{ControlScope: s.ControlScope, ExperimentScope: s.ExperimentScope}
	}
	body.Thresholds.Pass, body.Thresholds.Marginal = m.Threshold.Pass, m.Threshold.Marginal
	run, err := segmentURL(base, "canary", id)
	if err != nil {
		return provider.Result{}, fmt.Errorf("kayenta: canary config %q: %w", m.CanaryConfigName, err)
	}
	run.RawQuery = url.Values{
		"application":              {m.Application},
		"metricsAccountName":       {m.MetricsAccountName},
		"configurationAccountName": {m.ConfigurationAccountName},
		"storageAccountName":       {m.StorageAccountName},
	}.Encode()
	var started struct {
		CanaryExecutionID string `json:"canaryExecutionId"`
	}
	if err := p.call(ctx, http.MethodPost, run, body, &started); err != nil {
		return provider.Result{}, fmt.Errorf("kayenta: starting the canary execution: %w", err)
	}
	if !validID(started.CanaryExecutionID) {
		return provider.Result{}, fmt.Errorf("kayenta: starting the canary execution: canaryExecutionId %.64q is not an execution id", started.CanaryExecutionID)
	}
	return provider.Result{
		Phase:    rampv1.AnalysisPhaseRunning,
		Metadata: map[string]string{rampv1.KayentaExecutionIDMetadataKey: started.CanaryExecutionID},
		ResumeAt: p.now().Add(ResumeDelay),
	}, nil
}

// segmentURL is base with each of segs appended as one escaped path
// segment: a '/', '?', '#' or '%' in a segment (an id from Kayenta's
// answer) stays inside it; "." and ".." are refused (they would climb the
// path: JoinPath cleans them).
func segmentURL(base *url.URL, segs ...string) (*url.URL, error) {
	escaped := make([]string, len(segs))
	for i, s := range segs {
		if s == "." || s == ".." {
			return nil, fmt.Errorf("id %q is not a path segment", s)
		}
		escaped[i] = url.PathEscape(s) // JoinPath takes escaped elements
	}
	return base.JoinPath(escaped...), nil
}

// execution is the part of GET /canary/{executionId} the provider reads
// (CanaryExecutionStatusResponse).
type execution struct {
	Complete *bool `json:"complete"`
	Result   *struct {
		JudgeResult *struct {
			Score *struct {
				Score *float64 `json:"score"`
			} `json:"score"`
		} `json:"judgeResult"`
	} `json:"result"`
}

// poll reads the execution: Running while incomplete, else the verdict of
// its score.
func (p *Provider) poll(ctx context.Context, base *url.URL, id string, t rampv1.KayentaThreshold) (provider.Result, error) {
	var e execution
	if err := p.call(ctx, http.MethodGet, base.JoinPath("canary", id), nil, &e); err != nil {
		return provider.Result{}, err
	}
	return judge(e, t)
}

// judge is the result of an execution status, as upstream reads it.
func judge(e execution, t rampv1.KayentaThreshold) (provider.Result, error) {
	switch {
	case e.Complete == nil:
		return provider.Result{}, errors.New("malformed response: no complete status")
	case !*e.Complete:
		return provider.Result{Phase: rampv1.AnalysisPhaseRunning}, nil
	case e.Result == nil || e.Result.JudgeResult == nil || e.Result.JudgeResult.Score == nil || e.Result.JudgeResult.Score.Score == nil:
		return provider.Result{}, errors.New("complete, but the answer has no result.judgeResult.score.score")
	}
	f := *e.Result.JudgeResult.Score.Score
	if math.IsNaN(f) || math.IsInf(f, 0) || f < -1e15 || f > 1e15 {
		return provider.Result{}, fmt.Errorf("malformed response: score %v", f)
	}
	score := int64(f) // upstream truncates the score to an integer
	return provider.Result{Value: float64(score), Display: scoreDisplay(score), Phase: verdict(score, t)}, nil
}

// call sends a request (a JSON body when in is not nil) and decodes a 200
// answer into out; any other status is an error naming it.
func (p *Provider) call(ctx context.Context, method string, u *url.URL, in, out any) error {
	var body *bytes.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	var r *http.Request
	var err error
	if body != nil {
		r, err = http.NewRequestWithContext(ctx, method, u.String(), body)
	} else {
		r, err = http.NewRequestWithContext(ctx, method, u.String(), nil)
	}
	if err != nil {
		return errors.New("building the request failed")
	}
	r.Header.Set("Accept", "application/json")
	if in != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	answer, err := httpfetch.SendOK(ctx, p.clients.For(false), r, errorMessage)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("malformed response: %w", err)
	}
	return nil
}

// errorMessage is Kayenta's (Spring's) message in an error body
// ({"error": ..., "message": ...}), else the body.
func errorMessage(body []byte) string {
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && (e.Message != "" || e.Error != "") {
		if e.Message == "" {
			return e.Error
		}
		return e.Message
	}
	return string(body)
}
