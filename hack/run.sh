#!/usr/bin/env bash
# make run: after make up, apply the demo Rollout, start the dashboard on
# 127.0.0.1:${RAMP_DASHBOARD_PORT:-3100} (actions enabled: on loopback it acts
# with this kubeconfig's identity), say what to try next and follow the
# controller log until Ctrl-C. make down stops the dashboard too.
set -euo pipefail
cd "$(dirname "$0")/.."
k=".ramp-dev/bin/kubectl --kubeconfig .ramp-dev/kubeconfig"
$k apply --server-side -f examples/demo/rollout.yaml
dash=127.0.0.1:${RAMP_DASHBOARD_PORT:-3100}
bin/ramp-cluster stop --state .ramp-dev/cluster --name ramp-dashboard
bin/ramp-cluster start --state .ramp-dev/cluster --name ramp-dashboard -- \
  "$PWD/bin/ramp" dashboard --kubeconfig "$PWD/.ramp-dev/kubeconfig" --address "$dash" --enable-actions
bin/ramp-cluster wait-http --url "http://$dash/" --timeout 60s || {
  echo "the dashboard is not answering; log: .ramp-dev/cluster/logs/ramp-dashboard.log" >&2; exit 1; }
cat <<TXT

Ramp is running on the local control plane. The dashboard: http://$dash/
(the demo Rollout live; promote, abort and the other actions behind a confirmation).
In another terminal:

  export PATH=\$PWD/.ramp-dev/bin:\$PWD/bin:\$PATH KUBECONFIG=\$PWD/.ramp-dev/kubeconfig
  kubectl get rollouts                     # printer columns: desired, current, phase, step, weight
  kubectl get --raw /apis/argoproj.io/v1alpha1/namespaces/default/rollouts/rollouts-demo/scale
  kubectl apply --server-side -f test/e2e/testdata/seeds/003-rollout-canary.yaml   # a seed manifest
  make down                                # stop everything make up started

Following the controller log (Ctrl-C stops following; the controller keeps running):
TXT
exec tail -n 20 -F .ramp-dev/cluster/logs/ramp-controller.log
