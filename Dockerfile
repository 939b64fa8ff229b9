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
EXPOSE 8815
ENTRYPOINT ["/usr/local/bin/flightd"]
CMD ["serve", "--warehouse", "/warehouse", "--listen", "0.0.0.0:8815"]
