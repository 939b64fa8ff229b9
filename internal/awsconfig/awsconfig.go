// Package awsconfig reads the region and credentials of an AWS client from
// catalog or storage properties in PyIceberg's names, the same way for
// every AWS service iceflight talks to: "<service>.region",
// "<service>.access-key-id", "<service>.secret-access-key",
// "<service>.session-token" and "<service>.profile-name" (service "s3",
// "glue"), each falling back to PyIceberg's "client.*" name, and else to
// the SDK's default chain: the environment, the shared config and
// credentials files, web identity, container and instance metadata.
package awsconfig

import (
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

// The suffixes of the property names, after "<service>." or "client.".
const (
	region          = "region"
	accessKeyID     = "access-key-id"
	secretAccessKey = "secret-access-key"
	sessionToken    = "session-token"
	profileName     = "profile-name"
)

// DefaultChain is the source Options names when props set no credentials.
const DefaultChain = "default chain"

// Options returns the config.LoadDefaultConfig options that set the region
// and credentials of a client of service from props (anonymous: unsigned
// requests), and names where the credentials come from ("static keys
// (glue.access-key-id)", "profile \"analytics\"", "anonymous",
// DefaultChain), never what they are, for messages.
func Options(props fileio.Properties, service string, anonymous bool) ([]func(*config.LoadOptions) error, string, error) {
	get := func(suffix string) string { return props.Get(service+"."+suffix, "client."+suffix) }
	var loads []func(*config.LoadOptions) error
	if r := get(region); r != "" {
		loads = append(loads, config.WithRegion(r))
	}
	key, secret, profile := get(accessKeyID), get(secretAccessKey), get(profileName)
	var source string
	switch {
	case anonymous:
		source = "anonymous"
		loads = append(loads, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
	case key != "" || secret != "":
		if key == "" || secret == "" {
			return nil, "", fmt.Errorf("%s: %s.%s and %s.%s must be set together", service, service, accessKeyID, service, secretAccessKey)
		}
		source = "static keys (" + service + "." + accessKeyID + ")"
		loads = append(loads, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(key, secret, get(sessionToken))))
	case profile != "":
		source = "profile " + strconv.Quote(profile)
		loads = append(loads, config.WithSharedConfigProfile(profile))
	default:
		source = DefaultChain
	}
	return loads, source, nil
}

// Retryer returns the SDK's standard retryer trying a request at most
// attempts times (the first try included), waiting at most maxBackoff
// between two tries, with no client-side retry quota: a service that is
// down should cost each request its bounded tries, not fail later
// requests at once because earlier ones used the quota up.
func Retryer(attempts int, maxBackoff time.Duration) func() aws.Retryer {
	return func() aws.Retryer {
		return retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = max(attempts, 1)
			so.MaxBackoff = maxBackoff
			so.RateLimiter = ratelimit.None
		})
	}
}
