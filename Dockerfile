# Multi-stage build: a static flightd on a distroless, non-root base.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/flightd ./cmd/flightd

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/flightd /usr/local/bin/flightd
USER nonroot:nonroot
EXPOSE 8815 9090
ENTRYPOINT ["/usr/local/bin/flightd"]
# A port open to the network needs credentials: mount a tokens file (and
# ticket keys shared with the other replicas) or override the command.
CMD ["serve", "--warehouse", "/warehouse", "--listen", "0.0.0.0:8815", "--tokens", "/etc/iceflight/tokens", "--metrics-listen", "0.0.0.0:9090"]
