package flight

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/iceflight/iceflight/internal/strictjson"
	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/writer"
)

// The fixed answers are written by hand; each must still be its
// proto/actions type, key for key.
func TestFixedAnswersAreTheirWireTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		answer     []byte
		into, want any
	}{
		{"dropped", droppedAnswer, &actions.DropResult{}, &actions.DropResult{Dropped: true}},
		{"refreshed", refreshedAnswer, &actions.RefreshResult{}, &actions.RefreshResult{Refreshed: true}},
		{"not refreshed", notRefreshedAnswer, &actions.RefreshResult{Refreshed: true}, &actions.RefreshResult{}},
	} {
		if err := strictjson.Decode(tc.answer, tc.into); err != nil || !reflect.DeepEqual(tc.into, tc.want) {
			t.Errorf("%s: %s decodes to %+v (%v), want %+v", tc.name, tc.answer, tc.into, err, tc.want)
		}
	}
}

// Every field crosses between the writer's values and the wire form: a
// field added on one side and not converted is caught here.
func TestWireConversionsCarryEveryField(t *testing.T) {
	t.Parallel()
	var res writer.Result
	fill(t, reflect.ValueOf(&res).Elem())
	checkFilled(t, "WriteResult", reflect.ValueOf(writeAnswer(&res)))

	var m writer.MaintenanceResult
	fill(t, reflect.ValueOf(&m).Elem())
	checkFilled(t, "MaintenanceResult", reflect.ValueOf(maintenanceAnswer(&m)))

	var alter actions.AlterTableRequest
	fill(t, reflect.ValueOf(&alter).Elem())
	checkFilled(t, "AlterRequest", reflect.ValueOf(alterRequest(alter)))

	var pf actions.PartitionField
	fill(t, reflect.ValueOf(&pf).Elem())
	checkFilled(t, "PartitionField", reflect.ValueOf(partitionField(pf)))
}

// fill sets every field of the struct v, and of the structs it holds, to
// a non-zero value.
func fill(t *testing.T, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fill(t, v.Field(i))
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			v.Set(reflect.ValueOf(json.RawMessage(`"x"`)))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(t, v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, k)
		fill(t, e)
		v.SetMapIndex(k, e)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem())
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	default:
		t.Fatalf("fill: no value for a %s", v.Type())
	}
}

// checkFilled fails for each field of the struct v, and of the structs
// it holds, that is zero.
func checkFilled(t *testing.T, path string, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			checkFilled(t, path+"."+v.Type().Field(i).Name, v.Field(i))
		}
	case reflect.Slice:
		if v.Len() == 0 {
			t.Errorf("%s is empty after the conversion", path)
			return
		}
		if v.Type().Elem().Kind() == reflect.Struct {
			checkFilled(t, path+"[0]", v.Index(0))
		}
	case reflect.Pointer:
		if v.IsNil() {
			t.Errorf("%s is nil after the conversion", path)
		}
	default:
		if v.IsZero() {
			t.Errorf("%s is zero after the conversion", path)
		}
	}
}
