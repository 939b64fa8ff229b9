// Package thriftval reads and writes Thrift compact-protocol messages as
// generic values, without the message's generated code, so that a message
// can be read, changed (a field dropped) and written back whole. The
// Parquet reader repairs footers with it; it imports nothing of
// iceflight's.
package thriftval

import (
	"context"
	"fmt"

	"github.com/apache/thrift/lib/go/thrift"
)

// Value is a decoded Thrift value of any type, enough to rewrite a message
// without its generated code.
type Value struct {
	Type   thrift.TType
	Scalar any          // BOOL, BYTE, I16, I32, I64, DOUBLE, STRING ([]byte)
	Fields []Field      // STRUCT
	Elem   thrift.TType // LIST, SET: element type; MAP: key type
	MapVal thrift.TType // MAP: value type
	Items  []Value      // LIST, SET elements; MAP keys and values interleaved
}

// Field is one field of a STRUCT value.
type Field struct {
	ID  int16
	Val Value
}

// Get returns the field of a STRUCT value with the given id.
func (v *Value) Get(id int16) (Value, bool) {
	for _, f := range v.Fields {
		if f.ID == id {
			return f.Val, true
		}
	}
	return Value{}, false
}

// Has reports whether a STRUCT value has a field with the given id.
func (v *Value) Has(id int16) bool {
	_, ok := v.Get(id)
	return ok
}

// Drop removes the fields with the given id from a STRUCT value.
func (v *Value) Drop(id int16) {
	kept := v.Fields[:0]
	for _, f := range v.Fields {
		if f.ID != id {
			kept = append(kept, f)
		}
	}
	v.Fields = kept
}

// MaxDepth bounds recursion on hostile input; parquet footers nest a
// handful of levels.
const MaxDepth = 64

// Read decodes one value of type t from p; a message is a STRUCT.
func Read(ctx context.Context, p thrift.TProtocol, t thrift.TType) (Value, error) {
	return read(ctx, p, t, 0)
}

func read(ctx context.Context, p thrift.TProtocol, t thrift.TType, depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, fmt.Errorf("thrift nesting deeper than %d", MaxDepth)
	}
	v := Value{Type: t}
	var err error
	switch t {
	case thrift.BOOL:
		v.Scalar, err = p.ReadBool(ctx)
	case thrift.BYTE:
		v.Scalar, err = p.ReadByte(ctx)
	case thrift.I16:
		v.Scalar, err = p.ReadI16(ctx)
	case thrift.I32:
		v.Scalar, err = p.ReadI32(ctx)
	case thrift.I64:
		v.Scalar, err = p.ReadI64(ctx)
	case thrift.DOUBLE:
		v.Scalar, err = p.ReadDouble(ctx)
	case thrift.STRING:
		v.Scalar, err = p.ReadBinary(ctx)
	case thrift.STRUCT:
		if _, err = p.ReadStructBegin(ctx); err != nil {
			return v, err
		}
		for {
			_, ft, id, err := p.ReadFieldBegin(ctx)
			if err != nil {
				return v, err
			}
			if ft == thrift.STOP {
				break
			}
			fv, err := read(ctx, p, ft, depth+1)
			if err != nil {
				return v, err
			}
			v.Fields = append(v.Fields, Field{ID: id, Val: fv})
			if err := p.ReadFieldEnd(ctx); err != nil {
				return v, err
			}
		}
		err = p.ReadStructEnd(ctx)
	case thrift.LIST, thrift.SET:
		var n int
		if t == thrift.LIST {
			v.Elem, n, err = p.ReadListBegin(ctx)
		} else {
			v.Elem, n, err = p.ReadSetBegin(ctx)
		}
		if err != nil {
			return v, err
		}
		for i := 0; i < n; i++ {
			item, err := read(ctx, p, v.Elem, depth+1)
			if err != nil {
				return v, err
			}
			v.Items = append(v.Items, item)
		}
		if t == thrift.LIST {
			err = p.ReadListEnd(ctx)
		} else {
			err = p.ReadSetEnd(ctx)
		}
	case thrift.MAP:
		var n int
		if v.Elem, v.MapVal, n, err = p.ReadMapBegin(ctx); err != nil {
			return v, err
		}
		for i := 0; i < n; i++ {
			k, err := read(ctx, p, v.Elem, depth+1)
			if err != nil {
				return v, err
			}
			val, err := read(ctx, p, v.MapVal, depth+1)
			if err != nil {
				return v, err
			}
			v.Items = append(v.Items, k, val)
		}
		err = p.ReadMapEnd(ctx)
	default:
		err = fmt.Errorf("unknown thrift type %d", t)
	}
	return v, err
}

// Write encodes v to p; the caller flushes p.
func Write(ctx context.Context, p thrift.TProtocol, v Value) error {
	switch v.Type {
	case thrift.BOOL:
		return p.WriteBool(ctx, v.Scalar.(bool))
	case thrift.BYTE:
		return p.WriteByte(ctx, v.Scalar.(int8))
	case thrift.I16:
		return p.WriteI16(ctx, v.Scalar.(int16))
	case thrift.I32:
		return p.WriteI32(ctx, v.Scalar.(int32))
	case thrift.I64:
		return p.WriteI64(ctx, v.Scalar.(int64))
	case thrift.DOUBLE:
		return p.WriteDouble(ctx, v.Scalar.(float64))
	case thrift.STRING:
		return p.WriteBinary(ctx, v.Scalar.([]byte))
	case thrift.STRUCT:
		if err := p.WriteStructBegin(ctx, ""); err != nil {
			return err
		}
		for _, f := range v.Fields {
			if err := p.WriteFieldBegin(ctx, "", f.Val.Type, f.ID); err != nil {
				return err
			}
			if err := Write(ctx, p, f.Val); err != nil {
				return err
			}
			if err := p.WriteFieldEnd(ctx); err != nil {
				return err
			}
		}
		if err := p.WriteFieldStop(ctx); err != nil {
			return err
		}
		return p.WriteStructEnd(ctx)
	case thrift.LIST, thrift.SET:
		var err error
		if v.Type == thrift.LIST {
			err = p.WriteListBegin(ctx, v.Elem, len(v.Items))
		} else {
			err = p.WriteSetBegin(ctx, v.Elem, len(v.Items))
		}
		if err != nil {
			return err
		}
		for _, item := range v.Items {
			if err := Write(ctx, p, item); err != nil {
				return err
			}
		}
		if v.Type == thrift.LIST {
			return p.WriteListEnd(ctx)
		}
		return p.WriteSetEnd(ctx)
	case thrift.MAP:
		if err := p.WriteMapBegin(ctx, v.Elem, v.MapVal, len(v.Items)/2); err != nil {
			return err
		}
		for _, item := range v.Items {
			if err := Write(ctx, p, item); err != nil {
				return err
			}
		}
		return p.WriteMapEnd(ctx)
	}
	return fmt.Errorf("unknown thrift type %d", v.Type)
}
