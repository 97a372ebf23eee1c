// Command stephashes writes the table of canary step lists and the
// status.currentStepHash Argo Rollouts v1.9.1 computes for each (its own
// utils/conditions.ComputeStepHash). A controller taking over a Rollout
// compares the recorded hash with its own: a different hash restarts the
// steps. Ramp's internal/plan tests load the table and must produce the same
// hashes.
//
// Regenerate it from the repository root with:
//
//	cd test/upstream && go run ./cmd/stephashes > ../../internal/plan/testdata/upstream-step-hashes.json
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	"github.com/argoproj/argo-rollouts/utils/conditions"
)

// stepLists are written as JSON, read into upstream's types, and hashed.
var stepLists = []string{
	`null`,
	`[]`,
	`[{"setWeight":20}]`,
	`[{"setWeight":25},{"pause":{}},{"setWeight":75},{"pause":{}}]`,
	`[{"setWeight":50},{"pause":{"duration":"10s"}},{"pause":{"duration":30}}]`,
	`[{"setWeight":25},{"experiment":{"duration":"10s","templates":[{"name":"canary","specRef":"canary","replicas":1},{"name":"baseline","specRef":"stable","replicas":1,"weight":5,"selector":{"matchLabels":{"a":"b"}},"metadata":{"labels":{"x":"y"}},"service":{"name":"svc"}}],"analyses":[{"name":"a","templateName":"t","args":[{"name":"n","value":"v"}],"requiredForCompletion":true}],"dryRun":[{"metricName":"m"}]}},{"pause":{}}]`,
	`[{"analysis":{"templates":[{"templateName":"web","clusterScope":true}],"args":[{"name":"svc","valueFrom":{"podTemplateHashValue":"Latest"}},{"name":"f","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],"dryRun":[{"metricName":".*"}],"measurementRetention":[{"metricName":"m","limit":3}],"analysisRunMetadata":{"labels":{"l":"v"},"annotations":{"a":"v"}}}}]`,
	`[{"setCanaryScale":{"replicas":2}},{"setCanaryScale":{"weight":30}},{"setCanaryScale":{"matchTrafficWeight":true}}]`,
	`[{"setHeaderRoute":{"name":"h","match":[{"headerName":"x","headerValue":{"exact":"1"}},{"headerName":"y","headerValue":{"prefix":"p"}},{"headerName":"z","headerValue":{"regex":"r.*"}}]}},{"setMirrorRoute":{"name":"m","percentage":50,"match":[{"method":{"exact":"GET"},"path":{"prefix":"/"},"headers":{"h":{"exact":"v"}}}]}},{"setHeaderRoute":{"name":"h"}}]`,
	`[{"plugin":{"name":"p","config":{"k":"v"}}}]`,
	`[{"setWeight":10},{"experiment":{"templates":[{"name":"c","specRef":"canary"}]}},{"analysis":{"templates":[{"templateName":"t"}]}}]`,
	`[{"experiment":{"templates":[{"name":"c","specRef":"canary"}],"analyses":[{"name":"a","templateName":"t","clusterScope":false}]}},{"analysis":{"templates":[{"templateName":"t","clusterScope":false}]}}]`,
	`[{"setWeight":0},{"pause":{"duration":"1h"}},{"setWeight":100}]`,
}

type row struct {
	Steps json.RawMessage `json:"steps"`
	Hash  string          `json:"hash"`
}

func main() {
	var rows []row
	for _, s := range stepLists {
		var steps []v1alpha1.CanaryStep
		if err := json.Unmarshal([]byte(s), &steps); err != nil {
			fmt.Fprintln(os.Stderr, s, err)
			os.Exit(1)
		}
		ro := &v1alpha1.Rollout{Spec: v1alpha1.RolloutSpec{Strategy: v1alpha1.RolloutStrategy{Canary: &v1alpha1.CanaryStrategy{Steps: steps}}}}
		rows = append(rows, row{Steps: json.RawMessage(s), Hash: conditions.ComputeStepHash(ro)})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
