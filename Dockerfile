# Multi-stage build: a static flightd on a distroless, non-root base.
#
# Both bases are pinned by digest so a rebuild gets the same bytes; bump the
# tag and its digest together (`crane digest IMAGE:TAG`, or `docker buildx
# imagetools inspect`). The digests were taken from published Dockerfiles
# that pin these tags; no registry is reachable from the machine they were
# written on, so they were not checked against one there.
FROM golang:1.26.8-bookworm@sha256:a688600ca24f8a4d3ca77f95b0dd40704a9fc787c826660eb7ba0b641b8b175d AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
# .dockerignore keeps .git, .venv, bin and the benchmark data out of this copy.
COPY . .
# What flightd --version reports: docker build --build-arg VERSION=$(git describe --tags --always --dirty) .
ARG VERSION=devel
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w -X main.version=${VERSION}" -o /out/flightd ./cmd/flightd

FROM gcr.io/distroless/static-debian12:nonroot@sha256:afa5c872c891853ca7fcf1f12c3edb23f7eeef36189728842dd51042ff57f7ab
COPY --from=build /out/flightd /usr/local/bin/flightd
# nonroot of the distroless image, by number so a runtime can check it.
USER 65532:65532
# 8815: Arrow Flight; 9090: Prometheus /metrics and /healthz.
EXPOSE 8815 9090
ENTRYPOINT ["/usr/local/bin/flightd"]
# A port open to the network needs credentials: mount a tokens file (and
# ticket keys shared with the other replicas) or override the command.
CMD ["serve", "--warehouse", "/warehouse", "--listen", "0.0.0.0:8815", "--tokens", "/etc/iceflight/tokens", "--metrics-listen", "0.0.0.0:9090"]
