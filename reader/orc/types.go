package orc

import (
	"fmt"
	"strconv"
)

// Kind is the kind of an ORC type; the values are those of Type.Kind in
// orc_proto.proto.
type Kind int

// The ORC type kinds.
const (
	Boolean Kind = iota
	Byte
	Short
	Int
	Long
	Float
	Double
	String
	Binary
	Timestamp
	List
	Map
	Struct
	Union
	Decimal
	Date
	Varchar
	Char
	TimestampInstant
)

var kindNames = [...]string{
	"boolean", "tinyint", "smallint", "int", "bigint", "float", "double",
	"string", "binary", "timestamp", "array", "map", "struct", "uniontype",
	"decimal", "date", "varchar", "char", "timestamp with local time zone",
}

// String returns the kind's name in ORC's type syntax.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Defaults ORC readers assume when a type omits them (ORC Java's
// TypeDescription: decimal(38,10), char and varchar of 256).
const (
	defaultPrecision = 38
	defaultScale     = 10
	defaultMaxLength = 256
)

// Type is one node of a file's type tree.
type Type struct {
	// ID is the ORC column id: the node's position in a pre-order walk of
	// the tree, 0 for the root struct.
	ID int
	// Kind is the node's kind.
	Kind Kind
	// Name is the field name within the parent struct; list elements are
	// named "element" and map keys and values "key" and "value".
	Name string
	// Children are a struct's fields, a list's element, a map's key and
	// value, or a union's variants.
	Children []*Type
	// Attributes are the writer's key-value annotations, such as the
	// "iceberg.id" Iceberg Java gives every column.
	Attributes map[string]string
	// Precision and Scale describe a decimal.
	Precision, Scale int
	// MaxLength is the length of a char or varchar.
	MaxLength int
}

// String returns the type in ORC's type syntax, e.g. struct<a:int,b:array<string>>.
func (t *Type) String() string {
	switch t.Kind {
	case Struct:
		s := "struct<"
		for i, c := range t.Children {
			if i > 0 {
				s += ","
			}
			s += c.Name + ":" + c.String()
		}
		return s + ">"
	case List:
		return "array<" + t.Children[0].String() + ">"
	case Map:
		return "map<" + t.Children[0].String() + "," + t.Children[1].String() + ">"
	case Union:
		s := "uniontype<"
		for i, c := range t.Children {
			if i > 0 {
				s += ","
			}
			s += c.String()
		}
		return s + ">"
	case Decimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case Char, Varchar:
		return fmt.Sprintf("%v(%d)", t.Kind, t.MaxLength)
	}
	return t.Kind.String()
}

// buildSchema turns the footer's flattened types into a tree. Spec: Type
// Information — the tree is flattened by a pre-order walk, so the root is
// type 0 and every child's id is greater than its parent's.
func buildSchema(types []protoType) (*Type, []*Type, error) {
	if len(types) == 0 {
		return nil, nil, fmt.Errorf("%w: footer has no types", ErrInvalidFile)
	}
	if Kind(types[0].kind) != Struct {
		return nil, nil, fmt.Errorf("%w: root type is %v, not struct", ErrInvalidFile, Kind(types[0].kind))
	}
	all := make([]*Type, len(types))
	var build func(id int, name string) (*Type, error)
	build = func(id int, name string) (*Type, error) {
		if all[id] != nil {
			return nil, fmt.Errorf("%w: type %d is reached twice", ErrInvalidFile, id)
		}
		pt := types[id]
		t := &Type{ID: id, Kind: Kind(pt.kind), Name: name, Attributes: pt.attributes}
		all[id] = t
		var names []string
		switch t.Kind {
		case Boolean, Byte, Short, Int, Long, Float, Double, String, Binary,
			Timestamp, TimestampInstant, Date:
		case Decimal:
			t.Precision, t.Scale = defaultPrecision, defaultScale
			if pt.hasPrecision {
				t.Precision = int(pt.precision)
			}
			if pt.hasScale {
				t.Scale = int(pt.scale)
			}
			if t.Precision < 1 || t.Precision > 38 || t.Scale < 0 || t.Scale > t.Precision {
				return nil, fmt.Errorf("%w: type %d is decimal(%d,%d)", ErrInvalidFile, id, t.Precision, t.Scale)
			}
		case Char, Varchar:
			t.MaxLength = defaultMaxLength
			if pt.hasMaximumLength {
				t.MaxLength = int(pt.maximumLength)
			}
		case Struct:
			if len(pt.fieldNames) != len(pt.subtypes) {
				return nil, fmt.Errorf("%w: struct type %d has %d fields and %d names",
					ErrInvalidFile, id, len(pt.subtypes), len(pt.fieldNames))
			}
			names = pt.fieldNames
		case List:
			names = []string{"element"}
		case Map:
			names = []string{"key", "value"}
		case Union:
			names = make([]string, len(pt.subtypes))
			for i := range names {
				names[i] = "_union_" + strconv.Itoa(i)
			}
		default:
			return nil, fmt.Errorf("%w: type %d has kind %d", ErrUnsupported, id, pt.kind)
		}
		if len(names) != len(pt.subtypes) {
			return nil, fmt.Errorf("%w: %v type %d has %d children", ErrInvalidFile, t.Kind, id, len(pt.subtypes))
		}
		for i, sub := range pt.subtypes {
			if int(sub) <= id || int(sub) >= len(types) {
				return nil, fmt.Errorf("%w: type %d names child %d", ErrInvalidFile, id, sub)
			}
			c, err := build(int(sub), names[i])
			if err != nil {
				return nil, err
			}
			t.Children = append(t.Children, c)
		}
		return t, nil
	}
	root, err := build(0, "")
	if err != nil {
		return nil, nil, err
	}
	return root, all, nil
}
