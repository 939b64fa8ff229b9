package iceberg

import (
	"errors"
	"testing"
)

func TestSelect(t *testing.T) {
	t.Parallel()
	addr := &StructType{Fields: []NestedField{
		{ID: 3, Name: "street", Type: StringType{}},
		{ID: 4, Name: "city", Type: StringType{}},
		{ID: 5, Name: "geo", Type: &StructType{Fields: []NestedField{{ID: 6, Name: "lat", Type: DoubleType{}}, {ID: 7, Name: "lon", Type: DoubleType{}}}}},
	}}
	s := NewSchema(1,
		NestedField{ID: 1, Name: "id", Type: LongType{}, Required: true},
		NestedField{ID: 2, Name: "address", Type: addr},
		NestedField{ID: 8, Name: "a.b", Type: IntType{}},
	)
	cases := []struct {
		name    string
		columns []string
		want    string
		err     error
	}{
		{"top-level columns keep the order asked for", []string{"address", "id"}, s.Fields[1].Type.String(), nil},
		{"a nested path keeps only that field", []string{"address.city"}, "struct<city: string>", nil},
		{"two paths into one struct merge in schema order", []string{"address.geo.lon", "address.street"}, "struct<street: string, geo: struct<lon: double>>", nil},
		{"a whole column covers a nested selection", []string{"address.city", "address"}, addr.String(), nil},
		{"a column named with a dot is found by its full name", []string{"a.b"}, "int", nil},
		{"case-insensitive matching when asked", []string{"ADDRESS.City"}, "", ErrFieldNotFound},
		{"an unknown path is an error", []string{"address.zip"}, "", ErrFieldNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := s.Select(true, tc.columns...)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Fields[0].Type.String() != tc.want {
				t.Fatalf("first column %s, want %s", got.Fields[0].Type, tc.want)
			}
		})
	}
	got, err := s.Select(false, "ADDRESS.City")
	if err != nil || got.Fields[0].Type.String() != "struct<city: string>" {
		t.Fatalf("case-insensitive: %v %v", got, err)
	}
	if _, err := s.Select(true, "id", "id"); err == nil {
		t.Fatal("a column selected twice was accepted")
	}
}
