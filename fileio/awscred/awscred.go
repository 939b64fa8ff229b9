// Package awscred loads the AWS configuration of one client (S3, Glue, a
// SigV4-signed REST catalog) from PyIceberg-style properties: its region
// and its credentials, which are static keys, a named profile, or the AWS
// default chain (environment, shared config and credentials files, web
// identity, container and instance metadata), in that order of
// precedence. Every AWS client of iceflight finds its credentials the
// same way, through Load.
package awscred

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/iceflight/iceflight/fileio"
)

// The properties PyIceberg shares among all its AWS clients, read when a
// client's own are unset.
const (
	PropClientRegion       = "client.region"
	PropClientAccessKeyID  = "client.access-key-id"
	PropClientSecretKey    = "client.secret-access-key"
	PropClientSessionToken = "client.session-token"
	PropClientProfileName  = "client.profile-name"
)

// Names are the properties a client reads its settings from, each list
// tried in order (its own name first, then the shared client.* one).
type Names struct {
	Region          []string
	AccessKeyID     []string
	SecretAccessKey []string
	SessionToken    []string
	Profile         []string
}

// ClientNames returns the names of a client whose own properties are
// prefix + "region", "access-key-id" and so on ("glue.", "s3."), falling
// back on PyIceberg's client.* names.
func ClientNames(prefix string) Names {
	return Names{
		Region:          []string{prefix + "region", PropClientRegion},
		AccessKeyID:     []string{prefix + "access-key-id", PropClientAccessKeyID},
		SecretAccessKey: []string{prefix + "secret-access-key", PropClientSecretKey},
		SessionToken:    []string{prefix + "session-token", PropClientSessionToken},
		Profile:         []string{prefix + "profile-name", PropClientProfileName},
	}
}

// Load returns the AWS configuration props give under names, with opts
// applied before the properties (so that the properties win), and a
// description of where its credentials come from ("static keys
// (s3.access-key-id)", "profile \"dev\"", "default chain") for messages:
// never the credentials themselves. With anonymous, no credentials are
// used at all. An access key without its secret, or a secret without its
// key, is an error.
func Load(ctx context.Context, props fileio.Properties, names Names, anonymous bool, opts ...func(*config.LoadOptions) error) (aws.Config, string, error) {
	loads := append([]func(*config.LoadOptions) error(nil), opts...)
	if region := props.Get(names.Region...); region != "" {
		loads = append(loads, config.WithRegion(region))
	}
	key := props.Get(names.AccessKeyID...)
	secret := props.Get(names.SecretAccessKey...)
	profile := props.Get(names.Profile...)
	var source string
	switch {
	case anonymous:
		source = "anonymous"
		loads = append(loads, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
	case key != "" || secret != "":
		if key == "" || secret == "" {
			return aws.Config{}, "", fmt.Errorf("%s and %s must be set together", first(names.AccessKeyID), first(names.SecretAccessKey))
		}
		source = "static keys (" + first(names.AccessKeyID) + ")"
		token := props.Get(names.SessionToken...)
		loads = append(loads, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, secret, token)))
	case profile != "":
		source = "profile " + strconv.Quote(profile)
		loads = append(loads, config.WithSharedConfigProfile(profile))
	default:
		source = "default chain"
	}
	cfg, err := config.LoadDefaultConfig(ctx, loads...)
	if err != nil {
		return aws.Config{}, "", fmt.Errorf("load AWS configuration (credentials from %s): %w", source, err)
	}
	return cfg, source, nil
}

// Retryer returns the SDK's standard retryer, trying a request at most
// attempts times (the first try included) and waiting at most maxBackoff
// between tries, with no client-side retry quota: a service that is down
// should cost each request its bounded tries, not fail later requests at
// once because earlier ones used the quota up.
func Retryer(attempts int, maxBackoff time.Duration) func() aws.Retryer {
	return func() aws.Retryer {
		return retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = max(attempts, 1)
			so.MaxBackoff = maxBackoff
			so.RateLimiter = ratelimit.None
		})
	}
}

func first(names []string) string {
	if len(names) == 0 {
		return "?"
	}
	return names[0]
}
