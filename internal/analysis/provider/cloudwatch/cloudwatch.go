// Package cloudwatch measures a metric with AWS CloudWatch GetMetricData,
// through the AWS SDK for Go v2 as Argo Rollouts does. The controller's own
// AWS configuration decides where and as whom: credentials from the SDK's
// standard chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, shared files,
// web identity, IMDS), the region from AWS_REGION or the shared config, and
// the endpoint from AWS_ENDPOINT_URL_CLOUDWATCH or AWS_ENDPOINT_URL. A
// template chooses only the queries and the window, never the endpoint, so
// the HTTP policy of the web and prometheus providers does not apply.
//
// Conditions see upstream's result: the []types.MetricDataResult the SDK
// returns (result[0].Values, result[0].Timestamps, result[0].Id, ...). It
// never logs, and scrubs the credentials it signs with from its errors.
package cloudwatch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"

	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// DefaultInterval is the query window of a metric that sets no interval
// (upstream's default).
const DefaultInterval = 5 * time.Minute

// Timeout bounds one measurement, the SDK's retries included (the metric
// has no timeout field upstream).
const Timeout = 30 * time.Second

// Provider takes measurements with GetMetricData. It loads the AWS
// configuration on first use and keeps the client (and its credential
// cache); safe for concurrent use. Create it with New.
type Provider struct {
	now  func() time.Time
	opts []func(*cloudwatch.Options)

	mu     sync.Mutex
	client *cloudwatch.Client
	creds  aws.CredentialsProvider
}

var _ provider.Provider = (*Provider)(nil)

// Option configures a Provider.
type Option func(*Provider)

// WithClock sets where the Provider reads the end of the query window;
// time.Now by default.
func WithClock(now func() time.Time) Option { return func(p *Provider) { p.now = now } }

// WithClientOptions adds options to the CloudWatch client (tests give it
// an HTTP client); the standard configuration is loaded first.
func WithClientOptions(opts ...func(*cloudwatch.Options)) Option {
	return func(p *Provider) { p.opts = append(p.opts, opts...) }
}

// New returns a Provider.
func New(opts ...Option) *Provider {
	p := &Provider{now: time.Now}
	for _, opt := range opts {
		opt(p)
	}
	return p
}

// Measure runs the metric's queries once over [now-interval, now] and
// returns the MetricDataResults as the value conditions see; Display is
// every result's Values ("[[0.1 0.2] [3]]", upstream's format) and the
// messages CloudWatch returned go to metadata "messages". Like upstream it
// reads one page (no NextToken). The measurement is never left Running.
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.CloudWatch
	if m == nil {
		return provider.Result{}, errors.New("cloudWatch: the metric has no cloudWatch provider")
	}
	interval := DefaultInterval
	if m.Interval != "" {
		d, err := m.Interval.Duration()
		if err != nil || d <= 0 {
			return provider.Result{}, fmt.Errorf("cloudWatch: interval %q is not a positive duration", m.Interval)
		}
		interval = d
	}
	queries, err := convertQueries(m.MetricDataQueries)
	if err != nil {
		return provider.Result{}, fmt.Errorf("cloudWatch: %w", err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, Timeout, fmt.Errorf("timed out after %s", Timeout))
	defer cancel()
	client, creds, err := p.load(ctx)
	if err != nil {
		return provider.Result{}, fmt.Errorf("cloudWatch: %w", err)
	}
	r := analysis.NewRedactor(secretsOf(ctx, creds))
	end := p.now()
	start := end.Add(-interval)
	out, err := client.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{
		StartTime:         &start,
		EndTime:           &end,
		MetricDataQueries: queries,
	})
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			err = cause
		}
		return provider.Result{}, fmt.Errorf("cloudWatch GetMetricData failed: %s", r.Redact(err.Error()))
	}
	return result(out, r), nil
}

// load returns the client, loading the standard AWS configuration on the
// first call that succeeds.
func (p *Provider) load(ctx context.Context) (*cloudwatch.Client, aws.CredentialsProvider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != nil {
		return p.client, p.creds, nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, nil, errors.New("no AWS region: set AWS_REGION (or a region in the AWS config file) for the controller")
	}
	p.client = cloudwatch.NewFromConfig(cfg, p.opts...)
	p.creds = cfg.Credentials
	return p.client, p.creds, nil
}

// secretsOf are the values of the credentials the client signs with (from
// its cache: no extra call), for the redactor; none when they cannot be had
// (the call then fails before anything is signed).
func secretsOf(ctx context.Context, creds aws.CredentialsProvider) []string {
	if creds == nil {
		return nil
	}
	c, err := creds.Retrieve(ctx)
	if err != nil {
		return nil
	}
	return []string{c.AccessKeyID, c.SecretAccessKey, c.SessionToken}
}
