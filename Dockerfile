# The ramp-controller image: a static binary on distroless, run as a non-root
# user, for a read-only root filesystem (the Deployment sets it).
#   docker buildx build --build-arg VERSION=v0.1.0 --build-arg COMMIT=$(git rev-parse HEAD) \
#     -t <registry>/ramp-controller:v0.1.0 --push .
# docs/operations.md ("Build and push the image"); TestDockerfile checks this file.
FROM golang:1.26 AS build
ARG VERSION=unknown
ARG COMMIT=unknown
ARG TARGETOS=linux
ARG TARGETARCH=amd64
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY internal/ internal/
ENV CGO_ENABLED=0
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath \
    -ldflags "-s -w -X github.com/ramp-rollouts/ramp/internal/buildinfo.version=${VERSION} -X github.com/ramp-rollouts/ramp/internal/buildinfo.commit=${COMMIT}" \
    -o /out/ramp-controller ./cmd/ramp-controller

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ramp-controller /ramp-controller
USER 65532:65532
ENTRYPOINT ["/ramp-controller"]
