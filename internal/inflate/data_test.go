package inflate

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
)

// Deterministic inputs for the round-trip tests and the benchmarks.

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15)) }

// randomBytes is incompressible: encoders fall back to stored or
// literal-only blocks.
func randomBytes(seed uint64, n int) []byte {
	r := newRand(seed)
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// textLike is prose-like: words from a small vocabulary with spaces,
// punctuation and line breaks, so both literals and matches abound.
func textLike(seed uint64, n int) []byte {
	r := newRand(seed)
	words := make([]string, 400)
	for i := range words {
		w := make([]byte, 2+r.IntN(9))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		words[i] = string(w)
	}
	var b bytes.Buffer
	for b.Len() < n {
		// Zipf-like: low-numbered words are much more frequent.
		b.WriteString(words[int(float64(len(words))*r.Float64()*r.Float64())])
		switch r.IntN(20) {
		case 0:
			b.WriteString(".\n")
		case 1, 2:
			b.WriteString(", ")
		default:
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// repetitive has runs and short patterns repeated far past their length,
// so encoders emit overlapping copies with distances 1 to 4 and length 258.
func repetitive(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		pattern := []byte("abcd")[:1+i%4]
		b.Write(bytes.Repeat(pattern, 1000/len(pattern)))
		b.WriteString(fmt.Sprint(i))
	}
	return b.Bytes()[:n]
}

// farRepeat repeats 40 KiB of random data, so matches lie a whole window
// (32 KiB) behind.
func farRepeat() []byte {
	r := randomBytes(7, 40<<10)
	return append(append([]byte{}, r...), r...)
}

// manifestLike imitates the Avro binary data of an Iceberg manifest with
// about n bytes: manifest entries (spec: "Manifests") with a status,
// snapshot id and data file (path, format, partition tuple, counts, column
// metrics maps, bounds in single-value serialization, split offsets) for a
// table of events (ts, user_id, amount, category, country, device). Its
// metrics follow what writers record: value counts equal to the row count,
// null counts mostly zero, bounds sharing their high bytes. It deflates
// about 2.35 times, near the manifests of bench/'s warehouse (2.6).
func manifestLike(seed uint64, n int) []byte {
	r := newRand(seed)
	var b []byte
	long := func(v int64) { b = binary.AppendVarint(b, v) } // Avro zigzag varint
	str := func(s string) { long(int64(len(s))); b = append(b, s...) }
	u64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	categories := []string{"books", "electronics", "garden", "sports", "toys", "travel", "music", "grocery"}
	countries := []string{"DE", "FR", "GB", "IN", "JP", "NL", "US", "BR"}
	devices := []string{"android", "ios", "web", "tv"}
	pick := func(vs []string) []byte { return []byte(vs[r.IntN(len(vs))]) }
	snapshot, seq := r.Int64(), int64(1+r.IntN(500))
	for len(b) < n {
		long(1)        // status ADDED
		long(1)        // union branch: snapshot_id present
		long(snapshot) //
		long(1)        // union branch: sequence_number present
		long(seq)
		long(1) // file_sequence_number
		long(seq)
		long(0) // content DATA
		day := 1 + r.IntN(28)
		bucket := r.IntN(16)
		u := r.Uint64()
		str(fmt.Sprintf("s3://bucket/warehouse/db/tbl/data/ts_day=2025-03-%02d/user_id_bucket=%d/%05d-%d-%08x-%04x-%04x-%04x-%012x-%05d.parquet",
			day, bucket, r.IntN(1000), r.IntN(40), uint32(u), uint16(u>>32), uint16(u>>48), r.IntN(1<<16), r.Int64N(1<<48), 1))
		str("PARQUET")
		long(1) // union branch: ts_day present
		long(int64(20148 + day))
		long(1) // union branch: user_id_bucket present
		long(int64(bucket))
		rows := 1000 + r.Int64N(1_000_000)
		long(rows)
		long(rows*24 + r.Int64N(1<<20)) // file_size_in_bytes
		const cols = 6
		// column_sizes, value_counts, null_value_counts: map<int, long>,
		// one Avro array block of key/value records each.
		long(cols)
		for col := 1; col <= cols; col++ {
			long(int64(col))
			long(rows*int64(1+col%4) + r.Int64N(rows))
		}
		long(0)
		long(cols)
		for col := 1; col <= cols; col++ {
			long(int64(col))
			long(rows)
		}
		long(0)
		long(cols)
		for col := 1; col <= cols; col++ {
			long(int64(col))
			if col <= 2 {
				long(0) // required columns
			} else {
				long(r.Int64N(rows / 50))
			}
		}
		long(0)
		// lower_bounds, upper_bounds: map<int, bytes>, single-value
		// serialization (spec: "Binary single-value serialization").
		dayStart := uint64(1740787200+86400*(day-1)) * 1_000_000 // micros
		lower := [][]byte{
			u64(dayStart + uint64(r.Int64N(3_600_000_000))),
			u64(uint64(r.Int64N(1000))),
			u64(math.Float64bits(float64(r.IntN(100)) / 4)),
			pick(categories), pick(countries), pick(devices),
		}
		upper := [][]byte{
			u64(dayStart + 86_400_000_000 - uint64(r.Int64N(3_600_000_000))),
			u64(uint64(999_000 + r.Int64N(1000))),
			u64(math.Float64bits(float64(900+r.IntN(100)) / 4)),
			pick(categories), pick(countries), pick(devices),
		}
		for _, bounds := range [][][]byte{lower, upper} {
			long(cols)
			for col, v := range bounds {
				long(int64(col + 1))
				long(int64(len(v)))
				b = append(b, v...)
			}
			long(0)
		}
		long(0) // key_metadata null
		long(1) // split_offsets: one offset
		long(1)
		long(4)
		long(0)
		long(0) // equality_ids null
		long(1) // sort_order_id present
		long(0)
	}
	return b
}
