#!/usr/bin/env bash
# Prints the CRD files of the traffic routers' own projects, taken as data
# from their pinned Go modules (downloaded through the module proxy, checked
# against the checksum database): Gateway API (standard channel) and Istio
# (networking.istio.io); with "smi", the SMI TrafficSplit CRD, which the SMI
# project publishes only as apiextensions.k8s.io/v1beta1 (convert it with
# hack/crdv1).
set -euo pipefail
dir() { go mod download -json "$1" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'; }
gw=$(dir sigs.k8s.io/gateway-api@v1.4.1)
istio=$(dir istio.io/api@v1.31.1)
smi=$(dir github.com/servicemeshinterface/smi-sdk-go@v0.5.0)
if [ "${1:-}" = smi ]; then echo "$smi/crds/split.yaml"; exit 0; fi
echo "$gw/config/crd/standard/gateway.networking.k8s.io_httproutes.yaml"
echo "$gw/config/crd/standard/gateway.networking.k8s.io_gateways.yaml"
echo "$gw/config/crd/standard/gateway.networking.k8s.io_gatewayclasses.yaml"
echo "$istio/kubernetes/customresourcedefinitions.gen.yaml"
