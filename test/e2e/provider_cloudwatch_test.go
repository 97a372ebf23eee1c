//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/cloudwatch/cloudwatchtest"
)

// The AWS identity the CloudWatch test's controller runs with.
const (
	cwKeyID  = "AKIDRAMPE2E000001"
	cwSecret = "cw-SeCrEt/e2e+value=Zq"
	cwRegion = "ap-southeast-2"
)

// cloudWatchRunYAML is upstream's documented cloudWatch example
// (docs/analysis/cloudwatch.md) as an AnalysisRun of instance id, with the
// expression query named rateID, one measurement and no failure allowed.
func cloudWatchRunYAML(id, name, rateID string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: %s, labels: {%s: %s}}
spec:
  metrics:
  - name: success-rate
    count: 1
    failureLimit: 0
    consecutiveErrorLimit: 0
    successCondition: "len(result[0].Values) >= 5 and all(result[0].Values, {# <= 0.01})"
    provider:
      cloudWatch:
        interval: 30m
        metricDataQueries:
        - {id: %s, expression: "errors / requests"}
        - id: errors
          metricStat:
            metric: {namespace: app, metricName: errors}
            period: 300
            stat: Sum
            unit: Count
          returnData: false
        - id: requests
          metricStat:
            metric: {namespace: app, metricName: requests}
            period: 300
            stat: Sum
            unit: Count
          returnData: false
`, name, instanceLabel, id, rateID)
}

// TestProviderCloudWatch: a controller whose environment holds AWS keys,
// a region and AWS_ENDPOINT_URL_CLOUDWATCH runs upstream's example against
// a GetMetricData endpoint speaking the SDK's protocol (checked request by
// request): Successful for low error rates, Failed for high ones, Error
// naming InvalidClientTokenId for a key the endpoint refuses and
// AccessDenied for a denial whose text echoes the secret key; the secret
// key is in no run, Event or line of the controller's log.
func TestProviderCloudWatch(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "cw")
	srv := cloudwatchtest.NewServer(cwKeyID, cwRegion)
	t.Cleanup(srv.Close)
	srv.SetValues("rate", 0.001, 0.002, 0.004, 0.003, 0.002)
	srv.SetValues("hot", 0.001, 0.2, 0.3, 0.25, 0.4)
	ctrl, err := startControllerEnv([]string{
		"AWS_ACCESS_KEY_ID=" + cwKeyID, "AWS_SECRET_ACCESS_KEY=" + cwSecret, "AWS_REGION=" + cwRegion,
		"AWS_ENDPOINT_URL_CLOUDWATCH=" + srv.URL, "AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent", "AWS_MAX_ATTEMPTS=1",
	}, "--leader-election-namespace", ns, "--instance-id", ns, "--leader-elect=false", "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.stop)
	eventually(t, 60*time.Second, "cloudWatch controller ready", ctrl.ready)

	apply(t, ns, cloudWatchRunYAML(ns, "pass", "rate"))
	apply(t, ns, cloudWatchRunYAML(ns, "fail", "hot"))
	ar := waitRun(t, ns, "pass", 60*time.Second, rampv1.AnalysisPhaseSuccessful)
	if v := ar.Status.MetricResults[0].Measurements[0].Value; v != "[[0.001 0.002 0.004 0.003 0.002]]" {
		t.Errorf("pass: value %q", v)
	}
	waitRun(t, ns, "fail", 60*time.Second, rampv1.AnalysisPhaseFailed)

	srv.SetKeyID("AKIDSOMEONEELSE")
	apply(t, ns, cloudWatchRunYAML(ns, "badkey", "rate"))
	wantError(t, ns, "badkey", "InvalidClientTokenId")
	srv.SetKeyID(cwKeyID)
	denied := cloudwatchtest.AccessDenied
	denied.Message = "User with key " + cwSecret + " is not authorized to perform: cloudwatch:GetMetricData"
	srv.SetFault(&denied)
	apply(t, ns, cloudWatchRunYAML(ns, "denied", "rate"))
	wantError(t, ns, "denied", "AccessDenied")
	if p := srv.Problems(); len(p) > 0 {
		t.Errorf("the endpoint refused malformed requests: %v", p)
	}
	noSecretAnywhere(t, ns, ctrl.logPath, cwSecret, 200)
}

// wantError waits for run name to end in Error with a measurement message
// containing want.
func wantError(t *testing.T, ns, name, want string) {
	t.Helper()
	ar := waitRun(t, ns, name, 60*time.Second, rampv1.AnalysisPhaseError)
	ms := ar.Status.MetricResults[0].Measurements
	if len(ms) == 0 || !strings.Contains(ms[len(ms)-1].Message, want) {
		t.Errorf("%s: measurements %+v, want a message naming %s", name, ms, want)
	}
}

// noSecretAnywhere: no form of secret is in the namespace's AnalysisRuns
// and Events, nor in the controller log at logPath, having looked at
// least at atLeast strings (fewer: the runs, Events or log are missing).
func noSecretAnywhere(t *testing.T, ns, logPath, secret string, atLeast int) {
	t.Helper()
	forms := secretForms(secret)
	checked := 0
	check := func(where string, doc any) {
		walkStrings(doc, func(s string) {
			checked++
			for _, f := range forms {
				if strings.Contains(s, f.text) {
					t.Errorf("%s holds the secret as %s: %.300q", where, f.name, s)
				}
			}
		})
	}
	for _, list := range []client.ObjectList{&rampv1.AnalysisRunList{}, &corev1.EventList{}} {
		if err := env.client.List(context.Background(), list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("%T", list), asJSONValue(t, list))
	}
	eachLogLine(t, logPath, check)
	if checked < atLeast {
		t.Errorf("only %d strings checked: the runs, Events or log are missing", checked)
	}
}
