package reader

import (
	"bytes"
	"io"
)

// Page skipping (reader/parquet's Pruner.ExcludedRows): the rows of pages
// the residual filter rules out are stepped over in every column of a row
// group whose every projected column pqcodec reads.

// allPaged reports whether pqcodec reads every column of the open row
// group that the projection reads from the file.
func (s *parquetSource) allPaged() bool {
	for _, p := range s.proj.fields {
		if p.src != nil && s.pages[p] == nil {
			return false
		}
	}
	return true
}

// indexReader returns where the page index is read from: the file's
// bytes when they are in memory, else the file.
func (s *parquetSource) indexReader() io.ReaderAt {
	if s.whole != nil {
		return bytes.NewReader(s.whole.Bytes())
	}
	return s.file
}

// skipPages steps over the open row group's next rows when the page index
// rules them out, reporting true; otherwise it cuts the batch of *n rows
// short of the next range ruled out, so that range starts a batch.
func (s *parquetSource) skipPages(n *int64) (bool, error) {
	at := s.groupRows - s.left
	for len(s.skipRows) > 0 && s.skipRows[0].End <= at {
		s.skipRows = s.skipRows[1:]
	}
	if len(s.skipRows) == 0 {
		return false, nil
	}
	r := s.skipRows[0]
	if at < r.Start {
		*n = min(*n, r.Start-at)
		return false, nil
	}
	k := min(r.End, s.groupRows) - at
	for _, p := range s.proj.fields {
		if cr := s.pages[p]; cr != nil {
			if err := cr.Skip(int(k)); err != nil {
				return false, corruptFile(wrapColumn(s.cfg.path, p, err))
			}
		}
	}
	s.pos += k
	s.left -= k
	s.skipRows = s.skipRows[1:]
	s.count(func(c *counters) { c.rowsSkippedPages.Add(k) })
	return true, nil
}
