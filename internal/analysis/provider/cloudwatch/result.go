package cloudwatch

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"

	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// MessagesMetadataKey is the measurement metadata key of the messages
// CloudWatch returned with the results (upstream's key).
const MessagesMetadataKey = "messages"

// result is what conditions and the run's status see of out: the
// MetricDataResults themselves (upstream evaluates them as they are) and
// their Values, result after result, as Display.
func result(out *cloudwatch.GetMetricDataOutput, r *analysis.Redactor) provider.Result {
	values := make([][]float64, len(out.MetricDataResults))
	for i, res := range out.MetricDataResults {
		values[i] = res.Values
		if values[i] == nil {
			values[i] = []float64{}
		}
	}
	res := provider.Result{
		Value:   out.MetricDataResults,
		Display: fmt.Sprintf("%v", values),
	}
	if len(out.Messages) > 0 {
		msgs := make([]string, len(out.Messages))
		for i, m := range out.Messages {
			msgs[i] = fmt.Sprintf("{Code:%s Value:%s}", aws.ToString(m.Code), aws.ToString(m.Value))
		}
		joined := r.Redact("[" + strings.Join(msgs, " ") + "]")
		res.Metadata = map[string]string{MessagesMetadataKey: joined}
		res.Message = "CloudWatch returned messages: " + joined
	}
	return res
}
