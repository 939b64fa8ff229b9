package awsconfig

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/iceflight/iceflight/fileio"
)

func TestOptionsReadTheServiceThenTheClientNames(t *testing.T) {
	// No AWS configuration of the machine's may leak into the cases.
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		t.Setenv(k, "")
	}
	tests := []struct {
		name             string
		props            fileio.Properties
		anonymous        bool
		source, region   string
		key, failsSaying string
	}{
		{"the service's names win", fileio.Properties{"glue.region": "eu-west-1", "client.region": "us-east-2",
			"glue.access-key-id": "AKIAGLUE", "glue.secret-access-key": "s1", "client.access-key-id": "AKIACLIENT", "client.secret-access-key": "s2"},
			false, "static keys (glue.access-key-id)", "eu-west-1", "AKIAGLUE", ""},
		{"client names stand in", fileio.Properties{"client.region": "us-east-2", "client.access-key-id": "AKIACLIENT", "client.secret-access-key": "s2"},
			false, "static keys (glue.access-key-id)", "us-east-2", "AKIACLIENT", ""},
		{"anonymous wins over keys", fileio.Properties{"glue.access-key-id": "AKIAGLUE", "glue.secret-access-key": "s1"},
			true, "anonymous", "", "", ""},
		{"a profile", fileio.Properties{"client.profile-name": "analytics"}, false, `profile "analytics"`, "", "", ""},
		{"nothing: the default chain", fileio.Properties{}, false, DefaultChain, "", "", ""},
		{"a key without its secret", fileio.Properties{"glue.access-key-id": "AKIAGLUE"}, false, "", "", "",
			"glue: glue.access-key-id and glue.secret-access-key must be set together"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loads, source, err := Options(tc.props, "glue", tc.anonymous)
			if tc.failsSaying != "" {
				if err == nil || err.Error() != tc.failsSaying || strings.Contains(err.Error(), "AKIAGLUE") {
					t.Fatalf("Options: %v, want %q", err, tc.failsSaying)
				}
				return
			}
			if err != nil || source != tc.source {
				t.Fatalf("Options: source %q, %v; want %q", source, err, tc.source)
			}
			if tc.key == "" {
				return
			}
			cfg, err := config.LoadDefaultConfig(context.Background(), loads...)
			if err != nil {
				t.Fatal(err)
			}
			creds, err := cfg.Credentials.Retrieve(context.Background())
			if err != nil || creds.AccessKeyID != tc.key || cfg.Region != tc.region {
				t.Fatalf("key %q in region %q (%v), want %q in %q", creds.AccessKeyID, cfg.Region, err, tc.key, tc.region)
			}
		})
	}
}
