package conformance

import (
	"regexp"
	"slices"
	"strings"
)

// improvement is a difference from upstream Argo Rollouts v1.9.1 that Ramp
// makes on purpose. Each has a row in docs/conformance.md with the same id
// (TestImprovementsDocumented checks), saying why.
type improvement struct {
	id       string
	scenario *regexp.Regexp // nil: every scenario
	step     *regexp.Regexp // the steps it covers (nil: every step)
	key      *regexp.Regexp // observation keys it covers
	// match, when set, must also accept the two values ("" when absent).
	match func(upstream, ramp string) bool
}

// improvements explain differences; anything else the harness finds fails.
var improvements = []improvement{
	{
		// Upstream records this Event for every Rollout each time its
		// informer (re)starts: 10,000 Events per controller restart for
		// 10,000 Rollouts, telling users nothing about their release.
		// Upstream also counts it in rollout_events_total.
		id:  "no-informer-events",
		key: regexp.MustCompile(`^(events \(reasons said\)|metric rollout_events_total \(counted\))$`),
		match: func(upstream, ramp string) bool {
			return strings.Join(slices.DeleteFunc(strings.Fields(upstream), func(r string) bool {
				return r == "RolloutAddedToInformer" || r == "Normal/RolloutAddedToInformer"
			}), " ") == ramp
		},
	},
	{
		// Ramp reads every route back after writing it and says so in
		// status.canary.weights.verified; upstream sets verified only when
		// it checks ALB target groups (--aws-verify-target-group).
		id:  "weights-verified-by-read-back",
		key: regexp.MustCompile(`^rollout/app status\.canary\.weights$`),
		match: func(upstream, ramp string) bool {
			return strings.Replace(ramp, `,"verified":true`, "", 1) == upstream
		},
	},
	{
		// Ramp writes Istio objects through networking.istio.io/v1, the
		// stable API (Istio 1.22 and later); upstream defaults to the
		// deprecated v1alpha3. The objects are the same.
		id:  "istio-stable-api",
		key: regexp.MustCompile(`^(virtualservice|destinationrule)/[^ ]+ written as$`),
		match: func(upstream, ramp string) bool {
			return upstream == "networking.istio.io/v1alpha3" && ramp == "networking.istio.io/v1"
		},
	},
	{
		// With scaleDownDelaySeconds: 0 upstream never scales the old
		// blue-green ReplicaSet down (its zero-delay path adds no deadline
		// and requeues at once, in a hot loop); Ramp scales it down at once.
		id:       "bluegreen-zero-scale-down-delay",
		scenario: regexp.MustCompile(`^bluegreen-scaledown-0$`),
		key: regexp.MustCompile(`^(replicaset/app-H1 (replicas spec/ready/available|pods' labels)|rollout/app status\.replicas|` +
			`metric rollout_info_replicas_unavailable\{name=app\}|plugin (get rollout app|list rollouts))$`),
	},
	{
		// Retrying an aborted blue-green update within
		// abortScaleDownDelaySeconds, upstream takes the aborted
		// ReplicaSet's scale-down deadline for a rollback within the delay
		// and skips the pause: the update goes live with no promotion
		// although autoPromotionEnabled is false (after the delay it
		// pauses). Ramp pauses for promotion either way. The promote that
		// follows in the scenario makes the two agree again, but the old
		// ReplicaSet's delay then started at different times.
		id:       "bluegreen-retry-keeps-pause",
		scenario: regexp.MustCompile(`^bluegreen-abort-retry$`),
		step:     regexp.MustCompile(`^(retry|promote)$`),
		key: regexp.MustCompile(`^(rollout/app (condition (Completed|Healthy|Paused|Progressing)|status\.(blueGreen\.activeSelector|controllerPause|message|pauseConditions|phase|selector|stableRS|replicas))|` +
			`service/active selector|replicaset/app-H1 (annotation scale-down-deadline|pods' labels|replicas spec/ready/available)|` +
			`metric (rollout_info|rollout_phase|rollout_info_replicas_[a-z]+)\{[^}]*\}|plugin (get rollout app|list rollouts))$`),
	},
	{
		// Upstream records an Experiment's analysis phase (empty at
		// first) only when the Experiment itself is reconciled (a template's or its own change),
		// not when the run changes: status.analysisRuns can say Pending
		// for a run that has been Running since its first measurement,
		// until the Experiment ends. Ramp records the run's phase as it
		// changes.
		id:  "experiment-current-analysis-status",
		key: regexp.MustCompile(`^experiment/[^ ]+ analysis [^ ]+$`),
		match: func(upstream, ramp string) bool {
			// "<run> <phase> <message>"; upstream's phase may be empty
			u, r := strings.SplitN(upstream, " ", 3), strings.SplitN(ramp, " ", 3)
			return len(u) == 3 && len(r) == 3 && u[0] == r[0] && (u[1] == "Pending" || u[1] == "" || u[1] == "<nil>") && r[1] == "Running"
		},
	},
	{
		// Once an Experiment has ended, upstream stops reconciling its
		// analyses: status.analysisRuns keeps saying Running for a run it
		// terminated and that is itself Successful. Ramp records the run's
		// final phase.
		id:  "experiment-final-analysis-status",
		key: regexp.MustCompile(`^experiment/[^ ]+ analysis [^ ]+$`),
		match: func(upstream, ramp string) bool {
			u, r := strings.Fields(upstream), strings.Fields(ramp)
			return len(u) >= 2 && len(r) >= 2 && u[0] == r[0] && u[1] == "Running" && r[1] != "Running"
		},
	},
	{
		// Ramp takes measurements outside its reconcile workers (one hanging
		// endpoint must not stall every run: docs/security.md, section 6),
		// so a run's first status, written before its first measurements
		// come back, says Running, and the Rollout records
		// AnalysisRunRunning; upstream measures inside its first pass and
		// can go straight to the verdict.
		id:  "async-first-measurement",
		key: regexp.MustCompile(`^(events \(reasons said\)|metric rollout_events_total \(counted\))$`),
		match: func(upstream, ramp string) bool {
			drop := func(s, r string) string {
				return strings.Join(slices.DeleteFunc(strings.Fields(s), func(f string) bool { return f == r || f == "Normal/"+r }), " ")
			}
			return !strings.Contains(upstream, "AnalysisRunRunning") && strings.Contains(ramp, "AnalysisRunRunning") &&
				drop(upstream, "RolloutAddedToInformer") == drop(ramp, "AnalysisRunRunning")
		},
	},
	{
		// Ramp marks each AnalysisRun it creates with the hash of its spec
		// and takes up an existing run of the expected name only when the
		// hash and its owner match (docs/security.md, run reuse): upstream
		// adopts any run of the name, so whoever may create AnalysisRuns
		// can pre-create one that always succeeds.
		id:  "run-spec-hash",
		key: regexp.MustCompile(`^analysisrun/[^ ]+ annotation rollout\.ramp\.dev/spec-hash$`),
		match: func(upstream, ramp string) bool {
			return upstream == "" && len(ramp) == 64
		},
	},
}

// explain returns the id of the improvement that covers a difference, or "".
func explain(scenario, step, key, upstream string, uok bool, ramp string, rok bool) string {
	for _, imp := range improvements {
		if imp.scenario != nil && !imp.scenario.MatchString(scenario) {
			continue
		}
		if imp.step != nil && !imp.step.MatchString(step) {
			continue
		}
		if imp.key.MatchString(key) && (imp.match == nil || imp.match(upstream, ramp)) {
			return imp.id
		}
	}
	return ""
}
