package catalog

import (
	"context"
	"fmt"
	"io"

	"github.com/iceflight/iceflight/fileio"
)

var (
	_ fileio.ExclusiveCreator = confinedIO{}
	_ fileio.Remover          = confinedIO{}
	_ fileio.Lister           = confinedIO{}
)

// Create starts a file at location, a location as mapped, if the table may
// have a file there (the rule of its reads: below the warehouse or an
// allowed root, and not in another table's folder the caller may not
// read), with the directory's FileIO.
func (f confinedIO) Create(ctx context.Context, location string) (io.WriteCloser, error) {
	if err := f.c.check(location); err != nil {
		return nil, fmt.Errorf("create %s: %w", location, err)
	}
	return fileio.Create(ctx, f.base, location)
}

// CreateExclusive is Create for a file only where none exists.
func (f confinedIO) CreateExclusive(ctx context.Context, location string) (io.WriteCloser, error) {
	if err := f.c.check(location); err != nil {
		return nil, fmt.Errorf("create %s: %w", location, err)
	}
	return fileio.CreateExclusive(ctx, f.base, location)
}

// Remove deletes the file at location if the table may have a file there.
func (f confinedIO) Remove(ctx context.Context, location string) error {
	if err := f.c.check(location); err != nil {
		return fmt.Errorf("remove %s: %w", location, err)
	}
	return fileio.Remove(ctx, f.base, location)
}

// ReadDir lists the folder dir if the table may have files there.
func (f confinedIO) ReadDir(ctx context.Context, dir string) ([]fileio.Entry, error) {
	if err := f.c.check(dir); err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	return fileio.ReadDir(ctx, f.base, dir)
}
