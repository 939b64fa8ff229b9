package fileio

import (
	"context"
	"errors"
)

// ErrSizeMismatch marks a file whose length in the store is not the size
// it was opened with (OpenSized): the metadata that recorded the size is
// wrong. Some writers record sizes that do not match the bytes they wrote
// (the conformance corpus has three such tables); a reader that trusted
// the recorded size would look for a Parquet footer or the end of an Avro
// container in the wrong place.
var ErrSizeMismatch = errors.New("file length differs from its recorded size")

// OpenRecorded opens location with its recorded size (OpenSized, no HEAD
// or stat request) and hands the file to start, which begins reading it (a
// footer, a header, the whole of a small file) and returns what it made.
// When the store answers that the file has another length (start's error
// wraps ErrSizeMismatch), the file is opened again asking the store for
// its length (Open) and start runs once more on it. start must have handed
// nothing on before it fails, which holds for the first read of a file:
// a store finds the mismatch on the first request. The caller closes the
// file it gets back.
func OpenRecorded[T any](ctx context.Context, fio FileIO, location string, size int64, start func(File) (T, error)) (File, T, error) {
	var zero T
	f, err := OpenSized(ctx, fio, location, size)
	if err != nil {
		return nil, zero, err
	}
	v, err := startOrClose(f, start)
	if err == nil {
		return f, v, nil
	}
	if !errors.Is(err, ErrSizeMismatch) || size < 0 {
		return nil, zero, err
	}
	if f, err = fio.Open(ctx, location); err != nil {
		return nil, zero, err
	}
	if v, err = startOrClose(f, start); err != nil {
		return nil, zero, err
	}
	return f, v, nil
}

// startOrClose runs start on f and closes f unless start succeeded; a
// panic in start (a decoder bug met by a hostile file) closes it too.
func startOrClose[T any](f File, start func(File) (T, error)) (v T, err error) {
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	v, err = start(f)
	ok = err == nil
	return v, err
}
