package hms

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/iceflight/iceflight/internal/thriftval"
)

// The codec reads and writes the metastore's Thrift structs as Go structs
// whose fields carry their Thrift field ids in a tag, `thrift:"7"` or
// `thrift:"7,opt"`, from hive_metastore.thrift. One loop serves every
// struct: a field the Go struct does not declare (there are dozens in
// Table alone, and each Hive release adds some) is read as a generic value
// into the struct's Unknown field and written back as it came, so that a
// table read and altered keeps what other engines set on it.
//
// Go types map to Thrift types as: string STRING, bool BOOL, int8 BYTE,
// int16 I16, int32 (and named int32 enums) I32, int64 I64, float64 DOUBLE,
// map[string]string MAP<STRING,STRING>, []string LIST<STRING>, a struct or
// pointer to struct STRUCT, a slice of structs LIST<STRUCT>.
//
// A field is written unless it is a nil pointer, slice or map or an empty
// string (Thrift has no null: an absent field is Java's null, which is
// what an empty string stands for here), or it is tagged "opt" (optional
// in the IDL) and zero. A slice or map read from the wire is never nil,
// even when empty, so an empty list read comes back as an empty list, not
// an absent one.

// Unknown holds the fields of a struct that its Go type does not declare,
// as read, to be written back unchanged.
type Unknown []thriftval.Field

var unknownType = reflect.TypeFor[Unknown]()

// fieldPlan is how one Go struct field is coded.
type fieldPlan struct {
	id    int16
	index int
	tt    thrift.TType
	opt   bool
}

// structPlan is how a Go struct type is coded: its tagged fields by id and
// the index of its Unknown field (-1: none, unknown fields are dropped).
type structPlan struct {
	fields  []fieldPlan // sorted by id, the order they are written in
	unknown int
}

var plans sync.Map // reflect.Type -> *structPlan

func planOf(t reflect.Type) *structPlan {
	if p, ok := plans.Load(t); ok {
		return p.(*structPlan)
	}
	p := &structPlan{unknown: -1}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type == unknownType {
			p.unknown = i
			continue
		}
		tag, ok := f.Tag.Lookup("thrift")
		if !ok {
			continue
		}
		idText, opts, _ := strings.Cut(tag, ",")
		id, err := strconv.ParseInt(idText, 10, 16)
		if err != nil {
			// A malformed tag is a bug in this package's types, caught by
			// its tests on the first use.
			panic(fmt.Sprintf("hms: %s.%s: bad thrift tag %q", t.Name(), f.Name, tag))
		}
		p.fields = append(p.fields, fieldPlan{id: int16(id), index: i, tt: thriftType(f.Type), opt: opts == "opt"})
	}
	slices.SortFunc(p.fields, func(a, b fieldPlan) int { return int(a.id) - int(b.id) })
	actual, _ := plans.LoadOrStore(t, p)
	return actual.(*structPlan)
}

// thriftType is the Thrift type a Go type is coded as.
func thriftType(t reflect.Type) thrift.TType {
	switch t.Kind() {
	case reflect.String:
		return thrift.STRING
	case reflect.Bool:
		return thrift.BOOL
	case reflect.Int8:
		return thrift.BYTE
	case reflect.Int16:
		return thrift.I16
	case reflect.Int32:
		return thrift.I32
	case reflect.Int64:
		return thrift.I64
	case reflect.Float64:
		return thrift.DOUBLE
	case reflect.Map:
		return thrift.MAP
	case reflect.Slice:
		return thrift.LIST
	case reflect.Struct, reflect.Pointer:
		return thrift.STRUCT
	}
	panic(fmt.Sprintf("hms: no thrift type for %s", t))
}

// readStruct reads one struct from p into v, a pointer to a struct.
func readStruct(ctx context.Context, p thrift.TProtocol, v any) error {
	return readValue(ctx, p, reflect.ValueOf(v).Elem(), 0)
}

// writeStruct writes v, a pointer to a struct, to p.
func writeStruct(ctx context.Context, p thrift.TProtocol, v any) error {
	return writeValue(ctx, p, reflect.ValueOf(v).Elem())
}

func readValue(ctx context.Context, p thrift.TProtocol, v reflect.Value, depth int) error {
	if depth > thriftval.MaxDepth {
		return fmt.Errorf("thrift nesting deeper than %d", thriftval.MaxDepth)
	}
	var err error
	switch v.Kind() {
	case reflect.String:
		var s string
		s, err = p.ReadString(ctx)
		v.SetString(s)
	case reflect.Bool:
		var b bool
		b, err = p.ReadBool(ctx)
		v.SetBool(b)
	case reflect.Int8:
		var n int8
		n, err = p.ReadByte(ctx)
		v.SetInt(int64(n))
	case reflect.Int16:
		var n int16
		n, err = p.ReadI16(ctx)
		v.SetInt(int64(n))
	case reflect.Int32:
		var n int32
		n, err = p.ReadI32(ctx)
		v.SetInt(int64(n))
	case reflect.Int64:
		var n int64
		n, err = p.ReadI64(ctx)
		v.SetInt(n)
	case reflect.Float64:
		var f float64
		f, err = p.ReadDouble(ctx)
		v.SetFloat(f)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		return readValue(ctx, p, v.Elem(), depth)
	case reflect.Struct:
		return readFields(ctx, p, v, depth)
	case reflect.Slice:
		return readList(ctx, p, v, depth)
	case reflect.Map:
		return readMap(ctx, p, v, depth)
	default:
		return fmt.Errorf("hms: cannot read into %s", v.Type())
	}
	return err
}

func readFields(ctx context.Context, p thrift.TProtocol, v reflect.Value, depth int) error {
	plan := planOf(v.Type())
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return err
	}
	for {
		_, tt, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return err
		}
		if tt == thrift.STOP {
			break
		}
		i := slices.IndexFunc(plan.fields, func(f fieldPlan) bool { return f.id == id && f.tt == tt })
		if i >= 0 {
			if err := readValue(ctx, p, v.Field(plan.fields[i].index), depth+1); err != nil {
				return fmt.Errorf("%s field %d: %w", v.Type().Name(), id, err)
			}
		} else {
			// A field this package does not know (or knows with another
			// type: a newer or older metastore): kept as read.
			val, err := thriftval.Read(ctx, p, tt)
			if err != nil {
				return fmt.Errorf("%s field %d: %w", v.Type().Name(), id, err)
			}
			if plan.unknown >= 0 {
				u := v.Field(plan.unknown)
				u.Set(reflect.Append(u, reflect.ValueOf(thriftval.Field{ID: id, Val: val})))
			}
		}
		if err := p.ReadFieldEnd(ctx); err != nil {
			return err
		}
	}
	return p.ReadStructEnd(ctx)
}

// preallocLimit bounds the capacity reserved for a list or map before its
// elements are read: the count on the wire is the sender's claim.
const preallocLimit = 64

func readList(ctx context.Context, p thrift.TProtocol, v reflect.Value, depth int) error {
	et, n, err := p.ReadListBegin(ctx)
	if err != nil {
		return err
	}
	if want := thriftType(v.Type().Elem()); et != want {
		return fmt.Errorf("list of %s, want %s", et, want)
	}
	list := reflect.MakeSlice(v.Type(), 0, min(n, preallocLimit))
	for range n {
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := readValue(ctx, p, elem, depth+1); err != nil {
			return err
		}
		list = reflect.Append(list, elem)
	}
	v.Set(list)
	return p.ReadListEnd(ctx)
}

func readMap(ctx context.Context, p thrift.TProtocol, v reflect.Value, depth int) error {
	kt, vt, n, err := p.ReadMapBegin(ctx)
	if err != nil {
		return err
	}
	if kt != thriftType(v.Type().Key()) || vt != thriftType(v.Type().Elem()) {
		return fmt.Errorf("map<%s,%s>, want %s", kt, vt, v.Type())
	}
	m := reflect.MakeMapWithSize(v.Type(), min(n, preallocLimit))
	for range n {
		key := reflect.New(v.Type().Key()).Elem()
		val := reflect.New(v.Type().Elem()).Elem()
		if err := readValue(ctx, p, key, depth+1); err != nil {
			return err
		}
		if err := readValue(ctx, p, val, depth+1); err != nil {
			return err
		}
		m.SetMapIndex(key, val)
	}
	v.Set(m)
	return p.ReadMapEnd(ctx)
}

func writeValue(ctx context.Context, p thrift.TProtocol, v reflect.Value) error {
	switch v.Kind() {
	case reflect.String:
		return p.WriteString(ctx, v.String())
	case reflect.Bool:
		return p.WriteBool(ctx, v.Bool())
	case reflect.Int8:
		return p.WriteByte(ctx, int8(v.Int()))
	case reflect.Int16:
		return p.WriteI16(ctx, int16(v.Int()))
	case reflect.Int32:
		return p.WriteI32(ctx, int32(v.Int()))
	case reflect.Int64:
		return p.WriteI64(ctx, v.Int())
	case reflect.Float64:
		return p.WriteDouble(ctx, v.Float())
	case reflect.Pointer:
		return writeValue(ctx, p, v.Elem())
	case reflect.Struct:
		return writeFields(ctx, p, v)
	case reflect.Slice:
		if err := p.WriteListBegin(ctx, thriftType(v.Type().Elem()), v.Len()); err != nil {
			return err
		}
		for i := range v.Len() {
			if err := writeValue(ctx, p, v.Index(i)); err != nil {
				return err
			}
		}
		return p.WriteListEnd(ctx)
	case reflect.Map:
		if err := p.WriteMapBegin(ctx, thriftType(v.Type().Key()), thriftType(v.Type().Elem()), v.Len()); err != nil {
			return err
		}
		// Sorted keys: the same struct is always the same bytes.
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			if err := writeValue(ctx, p, k); err != nil {
				return err
			}
			if err := writeValue(ctx, p, v.MapIndex(k)); err != nil {
				return err
			}
		}
		return p.WriteMapEnd(ctx)
	}
	return fmt.Errorf("hms: cannot write %s", v.Type())
}

func writeFields(ctx context.Context, p thrift.TProtocol, v reflect.Value) error {
	plan := planOf(v.Type())
	if err := p.WriteStructBegin(ctx, v.Type().Name()); err != nil {
		return err
	}
	for _, f := range plan.fields {
		fv := v.Field(f.index)
		switch fv.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			if fv.IsNil() {
				continue
			}
		case reflect.String:
			if fv.Len() == 0 {
				continue
			}
		default:
			if f.opt && fv.IsZero() {
				continue
			}
		}
		if err := p.WriteFieldBegin(ctx, "", f.tt, f.id); err != nil {
			return err
		}
		if err := writeValue(ctx, p, fv); err != nil {
			return fmt.Errorf("%s field %d: %w", v.Type().Name(), f.id, err)
		}
		if err := p.WriteFieldEnd(ctx); err != nil {
			return err
		}
	}
	if plan.unknown >= 0 {
		for _, f := range v.Field(plan.unknown).Interface().(Unknown) {
			if err := p.WriteFieldBegin(ctx, "", f.Val.Type, f.ID); err != nil {
				return err
			}
			if err := thriftval.Write(ctx, p, f.Val); err != nil {
				return err
			}
			if err := p.WriteFieldEnd(ctx); err != nil {
				return err
			}
		}
	}
	if err := p.WriteFieldStop(ctx); err != nil {
		return err
	}
	return p.WriteStructEnd(ctx)
}
