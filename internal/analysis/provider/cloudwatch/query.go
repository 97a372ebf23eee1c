package cloudwatch

import (
	"fmt"
	"math"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// convertQueries maps the metric's metricDataQueries onto the SDK's
// MetricDataQuery field by field, as upstream does: id, expression, label,
// returnData and period as given, metricStat with its metric (namespace,
// metricName, dimensions), period, stat and unit. A period that is not a
// whole number of seconds is an error naming the field (upstream sends 0
// and lets CloudWatch refuse it).
func convertQueries(in []rampv1.CloudWatchMetricDataQuery) ([]types.MetricDataQuery, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("metricDataQueries is empty")
	}
	out := make([]types.MetricDataQuery, len(in))
	for i, q := range in {
		field := fmt.Sprintf("metricDataQueries[%d]", i)
		out[i] = types.MetricDataQuery{
			Id:         aws.String(q.ID),
			Expression: q.Expression,
			Label:      q.Label,
			ReturnData: q.ReturnData,
		}
		if q.Period != nil {
			p, err := seconds(*q.Period, field+".period")
			if err != nil {
				return nil, err
			}
			out[i].Period = &p
		}
		if s := q.MetricStat; s != nil {
			p, err := seconds(s.Period, field+".metricStat.period")
			if err != nil {
				return nil, err
			}
			stat := &types.MetricStat{
				Metric: &types.Metric{
					MetricName: aws.String(s.Metric.MetricName),
					Namespace:  s.Metric.Namespace,
				},
				Period: &p,
				Stat:   aws.String(s.Stat),
				Unit:   types.StandardUnit(s.Unit),
			}
			for _, d := range s.Metric.Dimensions {
				stat.Metric.Dimensions = append(stat.Metric.Dimensions, types.Dimension{
					Name:  aws.String(d.Name),
					Value: aws.String(d.Value),
				})
			}
			out[i].MetricStat = stat
		}
	}
	return out, nil
}

// seconds is a period given as a number or a numeric string; a negative
// one is an error either way.
func seconds(v intstr.IntOrString, field string) (int32, error) {
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			return 0, fmt.Errorf("%s %d is not a whole number of seconds", field, v.IntVal)
		}
		return v.IntVal, nil
	}
	if v.StrVal == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v.StrVal, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt32 {
		return 0, fmt.Errorf("%s %q is not a whole number of seconds", field, v.StrVal)
	}
	return int32(n), nil
}
