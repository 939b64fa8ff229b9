package storage

import (
	"context"
	"io"
	"sync"

	"github.com/iceflight/iceflight/fileio"
)

// lazy is a back end's FileIO, built from its profile's properties on
// first use. A build that fails is tried again by the next call, so a
// fault that passes (a credential file written late) does not stick.
type lazy struct {
	backend fileio.Backend
	props   fileio.Properties

	mu  sync.Mutex
	fio fileio.FileIO
}

// get returns the built FileIO, building it if need be.
func (l *lazy) get(ctx context.Context) (fileio.FileIO, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fio != nil {
		return l.fio, nil
	}
	fio, err := l.backend.New(ctx, l.props)
	if err != nil {
		return nil, errBuild(l.backend, err)
	}
	l.fio = fio
	return fio, nil
}

func (l *lazy) Open(ctx context.Context, location string) (fileio.File, error) {
	fio, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return fio.Open(ctx, location)
}

// OpenSized opens with the known size when the back end can.
func (l *lazy) OpenSized(ctx context.Context, location string, size int64) (fileio.File, error) {
	fio, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return fileio.OpenSized(ctx, fio, location, size)
}

// ReadDir lists with the back end, which must be a fileio.Lister.
func (l *lazy) ReadDir(ctx context.Context, dir string) ([]fileio.Entry, error) {
	fio, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return fileio.ReadDir(ctx, fio, dir)
}

// Create writes with the back end, which must be a fileio.Creator.
func (l *lazy) Create(ctx context.Context, location string) (io.WriteCloser, error) {
	fio, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	c, ok := fio.(fileio.Creator)
	if !ok {
		return nil, unsupported(l.backend, "write", location)
	}
	return c.Create(ctx, location)
}

// CreateExclusive writes with the back end, only where no file exists; it
// must be a fileio.ExclusiveCreator.
func (l *lazy) CreateExclusive(ctx context.Context, location string) (io.WriteCloser, error) {
	fio, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	c, ok := fio.(fileio.ExclusiveCreator)
	if !ok {
		return nil, unsupported(l.backend, "write exclusively", location)
	}
	return c.CreateExclusive(ctx, location)
}

// Remove deletes with the back end, which must be a fileio.Remover.
func (l *lazy) Remove(ctx context.Context, location string) error {
	fio, err := l.get(ctx)
	if err != nil {
		return err
	}
	rm, ok := fio.(fileio.Remover)
	if !ok {
		return unsupported(l.backend, "remove", location)
	}
	return rm.Remove(ctx, location)
}
