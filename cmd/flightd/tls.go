package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"google.golang.org/grpc/credentials"
)

// tlsFiles are the PEM files of the TLS flags.
type tlsFiles struct {
	cert, key string // this process's certificate, served and presented to workers
	clientCA  string // require client certificates signed by this CA
	workerCA  string // verify workers with this CA
}

// scheme is the location scheme of a server with these files: grpc+tls
// when it serves TLS.
func (f tlsFiles) scheme() string {
	if f.cert != "" {
		return "grpc+tls"
	}
	return "grpc"
}

// server returns the server's transport credentials, or nil for plaintext.
func (f tlsFiles) server() (credentials.TransportCredentials, error) {
	cfg, err := f.serverConfig()
	if cfg == nil || err != nil {
		return nil, err
	}
	return credentials.NewTLS(cfg), nil
}

// serverConfig is the TLS configuration every listener of the process
// serves (gRPC and the REST catalog), or nil for plaintext.
func (f tlsFiles) serverConfig() (*tls.Config, error) {
	if f.cert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if f.clientCA != "" {
		pool, err := loadPool(f.clientCA)
		if err != nil {
			return nil, fmt.Errorf("--tls-client-ca: %w", err)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// workerClient returns the credentials a coordinator dials its workers
// with, or nil for plaintext. TLS is used when the deployment uses TLS at
// all (--tls-cert) or names a worker CA; the coordinator's own certificate
// doubles as its client certificate for workers that require mutual TLS.
func (f tlsFiles) workerClient() (credentials.TransportCredentials, error) {
	if f.cert == "" && f.workerCA == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.workerCA != "" {
		pool, err := loadPool(f.workerCA)
		if err != nil {
			return nil, fmt.Errorf("--worker-ca: %w", err)
		}
		cfg.RootCAs = pool
	}
	if f.cert != "" {
		cert, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return credentials.NewTLS(cfg), nil
}

func loadPool(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}
