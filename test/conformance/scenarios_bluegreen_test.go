//go:build conformance

package conformance

import (
	"strings"
	"testing"
)

const bgServices = `apiVersion: v1
kind: Service
metadata: {name: active}
spec: {selector: {app: app}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: preview}
spec: {selector: {app: app}, ports: [{port: 80}]}
---
`

func blueGreenScenarios() []scenario {
	return []scenario{{
		name:    "bluegreen-preview",
		ci:      true,
		pre:     bgServices,
		yaml:    rollout(3, "    blueGreen:\n      activeService: active\n      previewService: preview\n      autoPromotionEnabled: false\n      scaleDownDelaySeconds: 20"),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: bgPaused},
			{name: "promote", do: promote, until: healthy},
			{name: "delay over", until: oldScaledDown},
		},
	}, {
		// Upstream never scales the old ReplicaSet down with a zero delay
		// (and requeues it without pause): see improvements.go.
		name:    "bluegreen-scaledown-0",
		pre:     bgServices,
		yaml:    rollout(3, "    blueGreen:\n      activeService: active\n      autoPromotionEnabled: false\n      scaleDownDelaySeconds: 0"),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: bgPaused},
			{name: "promote", do: promote, until: healthy},
		},
	}}
}

// TestBlueGreenScenariosAreBlueGreen: every scenario of this family runs the
// blue-green strategy with an active Service it creates first.
func TestBlueGreenScenariosAreBlueGreen(t *testing.T) {
	for _, sc := range append(blueGreenScenarios(), moreBlueGreenScenarios()...) {
		if !strings.Contains(sc.yaml, "blueGreen:") || !strings.Contains(sc.pre, "name: active") {
			t.Errorf("%s: not a blue-green Rollout with its active Service", sc.name)
		}
	}
}
