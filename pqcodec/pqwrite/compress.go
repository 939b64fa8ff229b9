package pqwrite

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// compressor compresses data pages with a file's codec and level. Zstd
// encoders are kept in a free list per level, shared by every file: one
// serves a goroutine for a page at a time, its tables reused from page to
// page and file to file, which is what keeps zstd cheap on small pages (a
// sync.Pool would drop them at each garbage collection, and a new encoder
// clears a megabyte of tables). The other codecs are arrow-go's, which
// pool what they need.
type compressor struct {
	codec compress.Compression
	level int
	c     compress.Codec // nil: uncompressed
	zstd  *zstdFree      // for zstd
}

// zstdFree is a free list of zstd encoders of one level.
type zstdFree struct {
	opts []zstd.EOption
	mu   sync.Mutex
	free []*zstd.Encoder
}

// maxFreeEncoders bounds the encoders a free list keeps: as many as
// goroutines compress at once, in practice.
var maxFreeEncoders = 2 * runtime.GOMAXPROCS(0)

// zstdLists holds a free list per zstd.EncoderLevel.
var zstdLists sync.Map

func (z *zstdFree) get() (*zstd.Encoder, error) {
	z.mu.Lock()
	if n := len(z.free); n > 0 {
		enc := z.free[n-1]
		z.free = z.free[:n-1]
		z.mu.Unlock()
		return enc, nil
	}
	z.mu.Unlock()
	return zstd.NewWriter(nil, z.opts...)
}

func (z *zstdFree) put(enc *zstd.Encoder) {
	z.mu.Lock()
	if len(z.free) < maxFreeEncoders {
		z.free = append(z.free, enc)
	}
	z.mu.Unlock()
}

func newCompressor(codec compress.Compression, level int) (*compressor, error) {
	c := &compressor{codec: codec, level: level}
	switch codec {
	case compress.Codecs.Uncompressed:
		return c, nil
	case compress.Codecs.Zstd:
		// arrow-go maps the default level to zstd's default (3) and any
		// other through EncoderLevelFromZstd; the same here.
		zl := zstd.SpeedDefault
		if level != compress.DefaultCompressionLevel {
			zl = zstd.EncoderLevelFromZstd(level)
		}
		opts := []zstd.EOption{zstd.WithEncoderLevel(zl), zstd.WithEncoderConcurrency(1),
			zstd.WithZeroFrames(true), zstd.WithAllLitEntropyCompression(true)}
		list, _ := zstdLists.LoadOrStore(zl, &zstdFree{opts: opts})
		c.zstd = list.(*zstdFree)
		enc, err := c.zstd.get()
		if err != nil {
			return nil, fmt.Errorf("zstd level %d: %w", level, err)
		}
		c.zstd.put(enc)
	}
	codecImpl, err := compress.GetCodec(codec)
	if err != nil {
		return nil, err
	}
	c.c = codecImpl
	return c, nil
}

// compress returns src compressed, in dst's storage when it is large
// enough; uncompressed, it returns src itself.
func (c *compressor) compress(dst, src []byte) ([]byte, error) {
	switch {
	case c.c == nil:
		return src, nil
	case c.zstd != nil:
		enc, err := c.zstd.get()
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		out := enc.EncodeAll(src, dst[:0])
		c.zstd.put(enc)
		return out, nil
	}
	bound := int(c.c.CompressBound(int64(max(len(src), 1))))
	if cap(dst) < bound {
		dst = make([]byte, bound)
	}
	return c.c.EncodeLevel(dst[:bound], src, c.level), nil
}
