# Ramp: the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
CONTROLLER_GEN := go tool controller-gen

.PHONY: all build generate verify-generated run up down test test-unit fuzz lint conformance chaos bench cluster-binaries clean

all: build

## build: the dashboard's web page (hack/web.sh: npm ci, tsc, esbuild), then the controller and the CLI (also installed as the kubectl plugin kubectl-ramp) into bin/
build:
	hack/web.sh
	go build -o bin/ramp-controller ./cmd/ramp-controller
	go build -o bin/ramp ./cmd/ramp
	ln -sf ramp bin/kubectl-ramp

## generate: deepcopy, CRDs and RBAC from the kubebuilder markers (never hand-edit config/)
generate:
	$(CONTROLLER_GEN) object paths=./api/...
	$(CONTROLLER_GEN) crd:generateEmbeddedObjectMeta=true,maxDescLen=0 paths=./api/... output:crd:dir=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=ramp-controller paths="./internal/...;./cmd/..." output:rbac:dir=config/rbac

## verify-generated: fail if config/ differs from what the markers generate
verify-generated:
	hack/verify-generated.sh

## cluster-binaries: build (once per machine) the local control plane from Go modules
cluster-binaries:
	hack/build-cluster.sh

## up: start the local control plane, install the CRDs and start the controller (idempotent)
up:
	hack/up.sh

## down: stop everything `make up` started (by pid)
down:
	@if [ -x bin/ramp-cluster ]; then bin/ramp-cluster down --state .ramp-dev/cluster; fi

## run: make up, apply the demo Rollout, then follow the controller log until Ctrl-C
run: up build
	hack/run.sh

## test: linters, unit tests and the end-to-end suite on the local control plane
test:
	hack/test.sh

test-unit:
	go test ./...

## fuzz: a short run of each fuzz target (RAMP_FUZZ_TIME per target, default 5s); part of make test
fuzz:
	hack/fuzz.sh

## lint: go vet, staticcheck and golangci-lint (.golangci.yml), versions pinned in hack/tools/go.mod
lint:
	hack/lint.sh

## bench: every benchmark at full size (300-Rollout fleet, then the 1,000 and 3,000 curve) on a control plane of its own; prints figures (docs/performance.md)
bench:
	hack/bench.sh

## chaos: rollouts through SIGKILLs of the controller and an API-server freeze; prints figures (docs/operations.md)
chaos:
	hack/chaos.sh

## conformance: every scenario under Ramp and under upstream Argo Rollouts v1.9.1 (the oracle), diffed (docs/conformance.md)
conformance: build
	hack/conformance.sh

clean: down
	rm -rf bin .ramp-dev .ramp-test
