package hive_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog/hive"
	"github.com/iceflight/iceflight/fileio"
)

func TestConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		props fileio.Properties
		want  string // in the error; "" for none
	}{
		{"a uri", fileio.Properties{hive.PropURI: "thrift://metastore:9083"}, ""},
		{"several uris, tried in order", fileio.Properties{hive.PropURI: "thrift://a:9083, thrift://b:9083"}, ""},
		{"every setting", fileio.Properties{hive.PropURI: "thrift://a:9083", hive.PropLockEnabled: "false",
			hive.PropLockCheckMinWait: "0.5", hive.PropLockCheckMaxWait: "10", hive.PropLockCheckRetries: "8",
			hive.PropLockTimeout: "60000", hive.PropHive2Compatible: "true", hive.PropEngineHiveEnabled: "false",
			hive.PropTablePropertyMaxSize: "0", hive.PropClients: "2", hive.PropSocketTimeout: "600s"}, ""},
		{"no uri", fileio.Properties{}, `"uri" property is required`},
		{"a uri of another scheme", fileio.Properties{hive.PropURI: "http://a:9083"}, "is not thrift://host:port"},
		{"a uri without a port", fileio.Properties{hive.PropURI: "thrift://a"}, "is not thrift://host:port"},
		{"SASL", fileio.Properties{hive.PropURI: "thrift://a:9083", hive.PropSASLEnabled: "true"}, "SASL and Kerberos are not supported"},
		{"Kerberos as PyIceberg asks", fileio.Properties{hive.PropURI: "thrift://a:9083", hive.PropKerberos: "TRUE"}, "SASL and Kerberos are not supported"},
		{"a lock switch that is not a boolean", fileio.Properties{hive.PropURI: "thrift://a:9083", hive.PropLockEnabled: "maybe"}, "is not true or false"},
		{"no lock checks", fileio.Properties{hive.PropURI: "thrift://a:9083", hive.PropLockCheckRetries: "0"}, "at least 1"},
		{"a negative wait", fileio.Properties{hive.PropURI: "thrift://a:9083", hive.PropLockCheckMinWait: "-1"}, "not a number of seconds"},
		{"a timeout that is not one", fileio.Properties{hive.PropURI: "thrift://a:9083", hive.PropSocketTimeout: "soon"}, "not a duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cat, err := hive.New(context.Background(), "lake", tc.props)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				cat.Close()
				return
			}
			if !errors.Is(err, hive.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want %v saying %q", err, hive.ErrConfig, tc.want)
			}
		})
	}
}
