package writer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
)

// The directory catalog over a local warehouse: the real commit path
// (exclusive vN.metadata.json, version hint).
func init() {
	backends = append(backends, backend{"directory", newDirectoryFixture})
}

func newDirectoryFixture(t *testing.T, v int, partitioned bool, props map[string]string, opts ...Option) *fixture {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.NewDirectory(dir)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	f := &fixture{t: t, mem: mem, id: catalog.Identifier{"db", "t"}}
	f.load = func() *catalog.Table {
		cat.Refresh(f.id)
		tb, err := cat.LoadTable(t.Context(), f.id)
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	f.files = func() []string {
		root := norm(f.load().Location)
		var out []string
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			out = append(out, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	f.newWriter = func(wrap func(Catalog) Catalog) *Writer {
		var c Catalog = cat
		if wrap != nil {
			c = wrap(c)
		}
		return New(c, WithAllocator(mem))
	}
	f.w = New(cat, append([]Option{WithAllocator(mem)}, opts...)...)
	f.create(v, partitioned, props)
	return f
}
