#!/usr/bin/env bash
# A short run of each fuzz target (make test runs it after the unit tests;
# make fuzz alone). RAMP_FUZZ_TIME sets the time per target (default 5s; 0
# skips). A crash is written to the package's testdata/fuzz/<target>/ and
# fails the run: commit it with the fix, so the corpus grows with every
# crash found. The seeds of every target (and of those not listed here,
# such as the reconcilers' fuzzing) also run as unit tests in `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
time_per=${RAMP_FUZZ_TIME:-5s}
if [ "$time_per" = 0 ]; then exit 0; fi
targets=(
  "./api/v1alpha1 FuzzParseDuration"                  # duration parsing and saturation
  "./internal/plan FuzzBudget"                        # maxSurge / maxUnavailable: ints and percentages
  "./internal/plan FuzzCanaryStatus"                  # step / status normalisation
  "./internal/analysis FuzzEvaluateJSON"              # condition evaluation: random expressions and results
  "./internal/analysis FuzzRedact"                    # redaction: no form of a secret survives
  "./internal/analysis/provider/web FuzzFind"         # web metric: JSON paths over any body
  "./internal/analysis/stats FuzzMannWhitney"         # judge: U and p-values over any samples
  "./internal/analysis/provider/prometheus FuzzParse" # Prometheus vectors, matrices, scalars
  "./internal/analysis/provider/cloudwatch FuzzResponse" # CloudWatch GetMetricData bodies through the SDK
  "./internal/analysis/provider/graphite FuzzParse"   # Graphite render API datapoints
  "./internal/analysis/provider/influxdb FuzzDecodeCSV"      # InfluxDB 2.x annotated CSV
  "./internal/analysis/provider/influxdb FuzzDecodeInfluxQL" # InfluxDB 1.x JSON
  "./internal/analysis/provider/influxdb FuzzReadOnly"       # InfluxQL: only statements that read are sent
  "./internal/analysis/provider/skywalking FuzzParse" # SkyWalking GraphQL answers
  "./internal/lint FuzzParse"                         # lint's YAML decoding
  "./internal/analysis/provider/datadog FuzzDecode"   # Datadog v1 series and v2 scalar answers
  "./internal/analysis/provider/newrelic FuzzDecode"  # NerdGraph NRQL answers
  "./internal/analysis/provider/wavefront FuzzDecode" # Wavefront chart API answers
  "./internal/analysis/provider/kayenta FuzzJudge"    # Kayenta execution status and score
)
start=$SECONDS
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  dir=$pkg/testdata/fuzz/$name
  before=$(ls "$dir" 2>/dev/null || true)
  if ! out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$time_per" "$pkg" 2>&1); then
    # Go's fuzzer can report "context deadline exceeded" for the input a
    # worker was running when the time ran out (a known flake of the
    # fuzzing engine, not of the target): such an input is replayed, and
    # only one that fails again is a crash.
    fresh=$(comm -13 <(echo "$before") <(ls "$dir" 2>/dev/null || true) | grep . || true)
    if grep -q 'context deadline exceeded' <<<"$out" && [ -z "$fresh" ] &&
      out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$time_per" "$pkg" 2>&1); then
      # The same flake with no input left behind (the engine's own
      # deadline, seen on a loaded machine): a second run that passes is
      # the target's verdict.
      echo "fuzz: $name ($pkg): the run ended on the engine's deadline with no input; a second run passed" >&2
      continue
    fi
    if grep -q 'context deadline exceeded' <<<"$out" && [ -n "$fresh" ] &&
      go test -count=1 -run "^${name}\$/^($(paste -sd'|' <<<"$fresh"))\$" "$pkg" >/dev/null 2>&1; then
      echo "fuzz: $name ($pkg): the run ended on a deadline, and its last input passes when replayed: not a crash" >&2
      (cd "$dir" && rm -f $fresh)
      continue
    fi
    echo "$out" >&2
    echo "fuzz: $name ($pkg) failed; its input is in $dir/" >&2
    exit 1
  fi
  execs=$(grep -o 'execs: [0-9]*' <<<"$out" | tail -1 | cut -d' ' -f2 || true)
  echo "fuzz: $name ($pkg): ${execs:-no new} execs beyond the corpus, passed" >&2
done
echo "fuzz: ${#targets[@]} targets, ${time_per} each, in $((SECONDS - start))s" >&2
