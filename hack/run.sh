#!/usr/bin/env bash
# make run: after make up, apply the demo Rollout, say what to try next and
# follow the controller log until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
k=".ramp-dev/bin/kubectl --kubeconfig .ramp-dev/kubeconfig"
$k apply --server-side -f examples/demo/rollout.yaml
cat <<TXT

Ramp is running on the local control plane. In another terminal:

  export PATH=\$PWD/.ramp-dev/bin:\$PWD/bin:\$PATH KUBECONFIG=\$PWD/.ramp-dev/kubeconfig
  kubectl get rollouts                     # printer columns: desired, current, phase, step, weight
  kubectl get --raw /apis/argoproj.io/v1alpha1/namespaces/default/rollouts/rollouts-demo/scale
  kubectl apply --server-side -f test/e2e/testdata/seeds/003-rollout-canary.yaml   # a seed manifest
  make down                                # stop everything make up started

Following the controller log (Ctrl-C stops following; the controller keeps running):
TXT
exec tail -n 20 -F .ramp-dev/cluster/logs/ramp-controller.log
