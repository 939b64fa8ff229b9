package pqcodec

import (
	"encoding/binary"
	"fmt"
)

// BYTE_STREAM_SPLIT (Parquet encodings, Byte Stream Split) stores N values
// of K bytes as K streams of N bytes: byte j of value i is byte i of
// stream j. It covers FLOAT and DOUBLE, and since format 2.11 INT32, INT64
// and FIXED_LEN_BYTE_ARRAY. Only a page's present values are stored, so N
// is the page's values less its nulls; the page's data is exactly K*N
// bytes, which gives N.

// splitStreams is the open BYTE_STREAM_SPLIT page: its data, the length of
// each stream, and the index of the next value to read.
type splitStreams struct {
	data   []byte
	stride int
	at     int
}

// reset opens a page's BYTE_STREAM_SPLIT data of values of width bytes,
// which must hold at least present values and no more than the page's n.
func (s *splitStreams) reset(data []byte, width, present, n int) error {
	if width <= 0 || len(data)%width != 0 {
		return fmt.Errorf("BYTE_STREAM_SPLIT data of %d bytes for values of %d", len(data), width)
	}
	stride := len(data) / width
	if stride < present || stride > n {
		return fmt.Errorf("BYTE_STREAM_SPLIT data of %d values for a page of %d, %d of them present", stride, n, present)
	}
	*s = splitStreams{data: data, stride: stride}
	return nil
}

// decode writes the next len(dst)/width values, width bytes each, into dst.
func (s *splitStreams) decode(dst []byte, width int) error {
	n := len(dst) / width
	if n > s.stride-s.at {
		return fmt.Errorf("%d BYTE_STREAM_SPLIT values asked of a page with %d left", n, s.stride-s.at)
	}
	switch width {
	case 4:
		unsplit4(dst, s.data, s.stride, s.at, n)
	case 8:
		unsplit8(dst, s.data, s.stride, s.at, n)
	default:
		for j := range width {
			stream := s.data[j*s.stride+s.at:][:n]
			for i, c := range stream {
				dst[i*width+j] = c
			}
		}
	}
	s.at += n
	return nil
}

// unsplit4 joins values [at, at+n) of four streams of stride bytes.
func unsplit4(dst, data []byte, stride, at, n int) {
	s0 := data[at:][:n]
	s1 := data[stride+at:][:n]
	s2 := data[2*stride+at:][:n]
	s3 := data[3*stride+at:][:n]
	dst = dst[:4*n]
	for i := range s0 {
		v := uint32(s0[i]) | uint32(s1[i])<<8 | uint32(s2[i])<<16 | uint32(s3[i])<<24
		binary.LittleEndian.PutUint32(dst[4*i:], v)
	}
}

// unsplit8 joins values [at, at+n) of eight streams of stride bytes.
func unsplit8(dst, data []byte, stride, at, n int) {
	s0 := data[at:][:n]
	s1 := data[stride+at:][:n]
	s2 := data[2*stride+at:][:n]
	s3 := data[3*stride+at:][:n]
	s4 := data[4*stride+at:][:n]
	s5 := data[5*stride+at:][:n]
	s6 := data[6*stride+at:][:n]
	s7 := data[7*stride+at:][:n]
	dst = dst[:8*n]
	for i := range s0 {
		v := uint64(s0[i]) | uint64(s1[i])<<8 | uint64(s2[i])<<16 | uint64(s3[i])<<24 |
			uint64(s4[i])<<32 | uint64(s5[i])<<40 | uint64(s6[i])<<48 | uint64(s7[i])<<56
		binary.LittleEndian.PutUint64(dst[8*i:], v)
	}
}
