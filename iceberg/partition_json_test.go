package iceberg

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestPartitionSpecJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       PartitionSpec
	}{
		{"v2 spec", `{"spec-id":3,"fields":[{"source-id":1,"field-id":1001,"name":"id_bucket","transform":"bucket[16]"}]}`,
			PartitionSpec{ID: 3, Fields: []PartitionField{{SourceID: 1, FieldID: 1001, Name: "id_bucket", Transform: BucketTransform{N: 16}}}}},
		// A v1 manifest header's fields carry no field ids: they count up
		// from 1000.
		{"v1 header", `{"fields":[{"source-id":2,"name":"d","transform":"day"},{"source-id":1,"name":"i","transform":"identity"}]}`,
			PartitionSpec{Fields: []PartitionField{{SourceID: 2, FieldID: 1000, Name: "d", Transform: DayTransform{}}, {SourceID: 1, FieldID: 1001, Name: "i", Transform: IdentityTransform{}}}}},
		{"multi-argument source", `{"fields":[{"source-ids":[4,5],"field-id":1000,"name":"b","transform":"bucket[2]"}]}`,
			PartitionSpec{Fields: []PartitionField{{SourceID: 4, FieldID: 1000, Name: "b", Transform: BucketTransform{N: 2}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got PartitionSpec
			if err := json.Unmarshal([]byte(tt.text), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			text, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var again PartitionSpec
			if err := json.Unmarshal(text, &again); err != nil || !reflect.DeepEqual(again, got) {
				t.Fatalf("round trip through %s: %+v, %v", text, again, err)
			}
		})
	}
	var spec PartitionSpec
	if err := json.Unmarshal([]byte(`{"fields":{}}`), &spec); err == nil {
		t.Fatal("fields that are no array were accepted")
	}
}
