package awscred

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/iceflight/iceflight/fileio"
)

func TestLoad(t *testing.T) {
	// The default chain reads the environment: keep the machine's out.
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	const secret = "very-secret-key"
	tests := []struct {
		name       string
		props      fileio.Properties
		region     string
		source     string
		key, token string
		fails      string
	}{
		{"own keys win over client.*", fileio.Properties{"glue.access-key-id": "AK", "glue.secret-access-key": secret, "glue.session-token": "TK",
			"client.access-key-id": "other", "client.secret-access-key": "other", "glue.region": "eu-west-1", "client.region": "us-east-2"},
			"eu-west-1", "static keys (glue.access-key-id)", "AK", "TK", ""},
		{"client.* when the own are unset", fileio.Properties{"client.access-key-id": "CK", "client.secret-access-key": secret, "client.region": "us-east-2"},
			"us-east-2", "static keys (glue.access-key-id)", "CK", "", ""},
		{"a key without its secret", fileio.Properties{"glue.access-key-id": "AK"}, "", "", "", "", "glue.access-key-id and glue.secret-access-key must be set together"},
		{"a profile", fileio.Properties{"glue.profile-name": "dev"}, "", `profile "dev"`, "", "", "load AWS configuration"},
		{"nothing: the default chain", fileio.Properties{}, "", "default chain", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, source, err := Load(context.Background(), tt.props, ClientNames("glue."), false)
			if tt.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tt.fails) || strings.Contains(err.Error(), secret) {
					t.Fatalf("Load: %v, want an error saying %q without the secret", err, tt.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Region != tt.region || source != tt.source {
				t.Errorf("region %q, source %q; want %q, %q", cfg.Region, source, tt.region, tt.source)
			}
			if tt.key == "" {
				return
			}
			creds, err := cfg.Credentials.Retrieve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if creds.AccessKeyID != tt.key || creds.SecretAccessKey != secret || creds.SessionToken != tt.token {
				t.Errorf("credentials %q/%q, want %q/%q", creds.AccessKeyID, creds.SessionToken, tt.key, tt.token)
			}
		})
	}
	cfg, source, err := Load(context.Background(), fileio.Properties{"glue.access-key-id": "AK"}, ClientNames("glue."), true)
	if err != nil || source != "anonymous" {
		t.Fatalf("anonymous: %v, %q", err, source)
	}
	if !aws.IsCredentialsProvider(cfg.Credentials, aws.AnonymousCredentials{}) {
		t.Fatalf("anonymous: the credentials are %T, want none", cfg.Credentials)
	}
}
