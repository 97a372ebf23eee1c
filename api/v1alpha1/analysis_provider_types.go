package v1alpha1

import (
	batchv1 "k8s.io/api/batch/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// MetricProvider says where a metric's measurements come from. Exactly one
// field must be set.
type MetricProvider struct {
	// Prometheus runs a PromQL query.
	// +optional
	Prometheus *PrometheusMetric `json:"prometheus,omitempty"`
	// Kayenta runs a Kayenta canary judgement.
	// +optional
	Kayenta *KayentaMetric `json:"kayenta,omitempty"`
	// Web calls an HTTP endpoint and reads a JSON value from the response.
	// +optional
	Web *WebMetric `json:"web,omitempty"`
	// Datadog runs a Datadog metrics query.
	// +optional
	Datadog *DatadogMetric `json:"datadog,omitempty"`
	// Wavefront runs a Wavefront query.
	// +optional
	Wavefront *WavefrontMetric `json:"wavefront,omitempty"`
	// NewRelic runs an NRQL query.
	// +optional
	NewRelic *NewRelicMetric `json:"newRelic,omitempty"`
	// Job runs a Kubernetes Job; exit code 0 is success.
	// +optional
	Job *JobMetric `json:"job,omitempty"`
	// CloudWatch runs AWS CloudWatch GetMetricData queries.
	// +optional
	CloudWatch *CloudWatchMetric `json:"cloudWatch,omitempty"`
	// Graphite runs a Graphite query.
	// +optional
	Graphite *GraphiteMetric `json:"graphite,omitempty"`
	// Influxdb runs an InfluxDB Flux query.
	// +optional
	Influxdb *InfluxdbMetric `json:"influxdb,omitempty"`
	// SkyWalking runs an Apache SkyWalking GraphQL query.
	// +optional
	SkyWalking *SkyWalkingMetric `json:"skywalking,omitempty"`
	// Judge compares a canary with its baseline statistically (a Ramp
	// extension: upstream has no such provider).
	// +optional
	Judge *JudgeMetric `json:"judge,omitempty"`
	// Plugin configures a metric provider plugin: the key is the plugin name
	// (as registered with the controller), the value its configuration.
	// +optional
	Plugin map[string]apiextensionsv1.JSON `json:"plugin,omitempty"`
}

// PrometheusMetric queries a Prometheus-compatible server.
type PrometheusMetric struct {
	// Address of the Prometheus server, e.g. http://prometheus:9090.
	// +optional
	Address string `json:"address,omitempty"`
	// Query is the PromQL query.
	// +optional
	Query string `json:"query,omitempty"`
	// Authentication configures SigV4 (Amazon Managed Prometheus) or OAuth2.
	// +optional
	Authentication MetricAuthentication `json:"authentication,omitzero"`
	// Timeout of the query in seconds.
	// +optional
	Timeout *int64 `json:"timeout,omitempty"`
	// Insecure skips TLS verification of the server certificate.
	// +optional
	Insecure bool `json:"insecure,omitempty"`
	// Headers are added to the query request.
	// +optional
	Headers []WebMetricHeader `json:"headers,omitempty"`
	// RangeQuery turns the query into a range query over [start, end].
	// +optional
	RangeQuery *PrometheusRangeQueryArgs `json:"rangeQuery,omitempty"`
}

// PrometheusRangeQueryArgs are the bounds and resolution of a range query.
// Start and end are expressions such as "now() - duration('5m')" or RFC 3339
// timestamps; step is a duration such as "1m".
type PrometheusRangeQueryArgs struct {
	// Start of the range.
	// +optional
	Start string `json:"start,omitempty"`
	// End of the range.
	// +optional
	End string `json:"end,omitempty"`
	// Step is the query resolution.
	// +optional
	Step string `json:"step,omitempty"`
}

// MetricAuthentication is how a metric provider authenticates to its server.
type MetricAuthentication struct {
	// Sigv4 signs requests with AWS Signature Version 4.
	// +optional
	Sigv4 Sigv4Config `json:"sigv4,omitzero"`
	// OAuth2 obtains a token with the client-credentials flow.
	// +optional
	OAuth2 OAuth2Config `json:"oauth2,omitzero"`
}

// Sigv4Config is the AWS SigV4 signing configuration.
type Sigv4Config struct {
	// Region is the AWS region.
	// +optional
	Region string `json:"region,omitempty"`
	// Profile is the AWS credentials profile.
	// +optional
	Profile string `json:"profile,omitempty"`
	// RoleArn is the ARN of the role to assume.
	// +optional
	RoleArn string `json:"roleArn,omitempty"`
}

// OAuth2Config is an OAuth2 client-credentials configuration.
type OAuth2Config struct {
	// TokenURL is the token endpoint.
	// +optional
	TokenURL string `json:"tokenUrl,omitempty"`
	// ClientID is the OAuth2 client id.
	// +optional
	ClientID string `json:"clientId,omitempty"`
	// ClientSecret is the OAuth2 client secret.
	// +optional
	ClientSecret string `json:"clientSecret,omitempty"`
	// Scopes requested with the token.
	// +optional
	Scopes []string `json:"scopes,omitempty"`
}

// WebMetricHeader is an HTTP header sent with a request.
type WebMetricHeader struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// WebMetricMethod is the HTTP method of a web metric: GET, POST or PUT.
// Not enum-validated in the schema, as in Argo Rollouts.
type WebMetricMethod string

// Web metric HTTP methods.
const (
	WebMetricMethodGet  WebMetricMethod = "GET"
	WebMetricMethodPost WebMetricMethod = "POST"
	WebMetricMethodPut  WebMetricMethod = "PUT"
)

// WebMetric calls an HTTP endpoint and evaluates a JSON value of the
// response.
type WebMetric struct {
	// Method is the HTTP method. Default GET.
	// +optional
	Method WebMetricMethod `json:"method,omitempty"`
	// URL to call.
	URL string `json:"url"`
	// Headers sent with the request.
	// +optional
	Headers []WebMetricHeader `json:"headers,omitempty"`
	// Body is the request body as a string (POST and PUT only).
	// +optional
	Body string `json:"body,omitempty"`
	// TimeoutSeconds is the request timeout. Default 10 seconds.
	// +optional
	TimeoutSeconds int64 `json:"timeoutSeconds,omitempty"`
	// JSONPath selects the value of the JSON response that becomes the
	// measurement result. Default "{$}" (the whole document).
	// +optional
	JSONPath string `json:"jsonPath,omitempty"`
	// Insecure skips TLS verification.
	// +optional
	Insecure bool `json:"insecure,omitempty"`
	// JSONBody is the request body as structured JSON (POST and PUT only);
	// it may not be combined with body.
	// +kubebuilder:validation:Type=object
	// +optional
	JSONBody *apiextensionsv1.JSON `json:"jsonBody,omitempty"`
	// Authentication configures SigV4 or OAuth2 for the request.
	// +optional
	Authentication MetricAuthentication `json:"authentication,omitzero"`
}

// DatadogMetric queries Datadog.
type DatadogMetric struct {
	// Interval is the window of the query, looking back from now. Default 5m.
	// +optional
	Interval DurationString `json:"interval,omitempty"`
	// Query is a single metrics query (v1 or v2 API).
	// +optional
	Query string `json:"query,omitempty"`
	// Queries are named queries combined by formula (v2 API only).
	// +optional
	Queries map[string]string `json:"queries,omitempty"`
	// Formula combines the named queries (v2 API only).
	// +optional
	Formula string `json:"formula,omitempty"`
	// APIVersion of the Datadog API, v1 or v2. Default v1.
	// +kubebuilder:validation:Enum=v1;v2
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// Aggregator reduces the returned series to one value (v2 API only).
	// +kubebuilder:validation:Enum=avg;min;max;sum;last;percentile;mean;l2norm;area
	// +optional
	Aggregator string `json:"aggregator,omitempty"`
	// SecretRef names the Secret holding the Datadog address and keys.
	// Default: the "datadog" Secret in the controller's namespace.
	// +optional
	SecretRef DatadogSecretRef `json:"secretRef,omitzero"`
}

// DatadogSecretRef selects the Secret holding Datadog credentials.
type DatadogSecretRef struct {
	// Name of the Secret.
	// +optional
	Name string `json:"name,omitempty"`
	// Namespaced reads the Secret from the AnalysisRun's namespace instead
	// of the controller's namespace.
	// +optional
	Namespaced bool `json:"namespaced,omitempty"`
}

// WavefrontMetric queries Wavefront.
type WavefrontMetric struct {
	// Address of the Wavefront server.
	// +optional
	Address string `json:"address,omitempty"`
	// Query is the Wavefront query.
	// +optional
	Query string `json:"query,omitempty"`
}

// NewRelicMetric runs an NRQL query.
type NewRelicMetric struct {
	// Profile is the name of the Secret (in the controller's namespace)
	// holding the New Relic credentials. Default "newrelic".
	// +optional
	Profile string `json:"profile,omitempty"`
	// Query is the NRQL query.
	Query string `json:"query"`
	// Timeout of the query in seconds. Default 5.
	// +optional
	Timeout *int64 `json:"timeout,omitempty"`
}

// JobMetric runs a Kubernetes Job per measurement.
type JobMetric struct {
	// Metadata holds labels and annotations copied to the created Job.
	// +optional
	Metadata JobMetricMetadata `json:"metadata,omitzero"`
	// Spec of the Job to create.
	Spec batchv1.JobSpec `json:"spec"`
}

// JobMetricMetadata holds the labels and annotations of a metric Job.
type JobMetricMetadata struct {
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// KayentaMetric runs a Kayenta canary analysis.
type KayentaMetric struct {
	Address                  string           `json:"address"`
	Application              string           `json:"application"`
	CanaryConfigName         string           `json:"canaryConfigName"`
	MetricsAccountName       string           `json:"metricsAccountName"`
	ConfigurationAccountName string           `json:"configurationAccountName"`
	StorageAccountName       string           `json:"storageAccountName"`
	Threshold                KayentaThreshold `json:"threshold"`
	Scopes                   []KayentaScope   `json:"scopes"`
}

// KayentaThreshold are the pass and marginal scores of a Kayenta judgement.
type KayentaThreshold struct {
	Pass     int64 `json:"pass"`
	Marginal int64 `json:"marginal"`
}

// KayentaScope is a pair of control and experiment scopes.
type KayentaScope struct {
	Name            string      `json:"name"`
	ControlScope    ScopeDetail `json:"controlScope"`
	ExperimentScope ScopeDetail `json:"experimentScope"`
}

// ScopeDetail is one Kayenta scope.
type ScopeDetail struct {
	Scope  string `json:"scope"`
	Region string `json:"region"`
	Step   int64  `json:"step"`
	Start  string `json:"start"`
	End    string `json:"end"`
}

// CloudWatchMetric runs AWS CloudWatch GetMetricData queries.
type CloudWatchMetric struct {
	// Interval is the window of the query, looking back from now. Default 5m.
	// +optional
	Interval DurationString `json:"interval,omitempty"`
	// MetricDataQueries are the GetMetricData queries.
	MetricDataQueries []CloudWatchMetricDataQuery `json:"metricDataQueries"`
}

// CloudWatchMetricDataQuery is one GetMetricData query.
type CloudWatchMetricDataQuery struct {
	// +optional
	ID string `json:"id,omitempty"`
	// +optional
	Expression *string `json:"expression,omitempty"`
	// +optional
	Label *string `json:"label,omitempty"`
	// +optional
	MetricStat *CloudWatchMetricStat `json:"metricStat,omitempty"`
	// +optional
	Period *intstr.IntOrString `json:"period,omitempty"`
	// +optional
	ReturnData *bool `json:"returnData,omitempty"`
}

// CloudWatchMetricStat is the metric, statistic and period of a query.
type CloudWatchMetricStat struct {
	// +optional
	Metric CloudWatchMetricStatMetric `json:"metric,omitzero"`
	// +optional
	Period intstr.IntOrString `json:"period,omitzero"`
	// +optional
	Stat string `json:"stat,omitempty"`
	// +optional
	Unit string `json:"unit,omitempty"`
}

// CloudWatchMetricStatMetric identifies a CloudWatch metric.
type CloudWatchMetricStatMetric struct {
	// +optional
	Dimensions []CloudWatchMetricStatMetricDimension `json:"dimensions,omitempty"`
	// +optional
	MetricName string `json:"metricName,omitempty"`
	// +optional
	Namespace *string `json:"namespace,omitempty"`
}

// CloudWatchMetricStatMetricDimension is a dimension of a CloudWatch metric.
type CloudWatchMetricStatMetricDimension struct {
	// +optional
	Name string `json:"name,omitempty"`
	// +optional
	Value string `json:"value,omitempty"`
}

// GraphiteMetric queries Graphite.
type GraphiteMetric struct {
	// Address of the Graphite server.
	// +optional
	Address string `json:"address,omitempty"`
	// Query is the Graphite target expression.
	// +optional
	Query string `json:"query,omitempty"`
}

// InfluxdbMetric runs an InfluxDB Flux query (or, a Ramp extension, an
// InfluxQL query for InfluxDB 1.x).
type InfluxdbMetric struct {
	// Profile is the name of the Secret (in the controller's namespace)
	// holding the InfluxDB address and token. Default "influxdb".
	// +optional
	Profile string `json:"profile,omitempty"`
	// Query is the Flux query (the InfluxQL query with queryLanguage
	// influxql).
	// +optional
	Query string `json:"query,omitempty"`
	// QueryLanguage is the language of query: "flux" (the default, as
	// upstream) or "influxql", sent to InfluxDB 1.x's /query endpoint (or
	// 2.x's compatibility API). A Ramp extension: upstream has no such field.
	// +kubebuilder:validation:Enum=flux;influxql
	// +optional
	QueryLanguage string `json:"queryLanguage,omitempty"`
}

// SkyWalkingMetric runs an Apache SkyWalking GraphQL query.
type SkyWalkingMetric struct {
	// Address of the SkyWalking OAP server.
	// +optional
	Address string `json:"address,omitempty"`
	// Query is the GraphQL query.
	// +optional
	Query string `json:"query,omitempty"`
	// Interval is the window of the query, looking back from now.
	// +optional
	Interval DurationString `json:"interval,omitempty"`
}
