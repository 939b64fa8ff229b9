//go:build !linux

package cluster

import (
	"errors"
	"os"
	"syscall"
)

// sysProcAttr: process groups and parent-death signals are Linux-only here.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// peakRSS needs Linux's /proc.
func peakRSS(int) (int64, error) { return 0, errors.ErrUnsupported }

// signalGroup signals only p: it leads no group of its own here.
func signalGroup(p *os.Process, sig syscall.Signal) { _ = p.Signal(sig) }
