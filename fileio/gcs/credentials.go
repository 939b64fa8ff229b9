package gcs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"

	"github.com/iceflight/iceflight/fileio"
)

// credentialOptions picks the client's credentials from props and names
// their source for messages: a static token, a credentials JSON key, none
// (anonymous), or application default credentials.
func credentialOptions(props fileio.Properties) ([]option.ClientOption, string, error) {
	token := props.Get(PropToken)
	switch {
	case token == "anon" || strings.EqualFold(props.Get(PropNoAuth), "true"):
		return []option.ClientOption{option.WithoutAuthentication()}, "no credentials (anonymous)", nil
	case token != "":
		t := &oauth2.Token{AccessToken: token, TokenType: "Bearer"}
		if ms := props.Get(PropTokenExpiresAt); ms != "" {
			n, err := strconv.ParseInt(ms, 10, 64)
			if err != nil {
				return nil, "", fmt.Errorf("gcs: %s %q is not epoch milliseconds", PropTokenExpiresAt, ms)
			}
			t.Expiry = time.UnixMilli(n)
		}
		return []option.ClientOption{option.WithTokenSource(oauth2.StaticTokenSource(t))}, "the OAuth2 token of " + PropToken, nil
	case props.Get(PropCredentialsJSON) != "":
		return credentialsJSON(props.Get(PropCredentialsJSON))
	}
	scope, err := accessScope(props.Get(PropAccess))
	if err != nil {
		return nil, "", err
	}
	return []option.ClientOption{option.WithScopes(scope)}, sourceADC, nil
}

// sourceADC names application default credentials in messages.
const sourceADC = "application default credentials"

// credentialsJSON reads gcs.credentials-json: JSON, base64 of JSON, or the
// path of a JSON key file. Only service-account keys and authorized-user
// files are accepted: the other types (external and impersonated accounts)
// make the client fetch URLs named in the JSON itself, which a table's
// vended properties must not be able to steer.
func credentialsJSON(v string) ([]option.ClientOption, string, error) {
	source := "the credentials JSON of " + PropCredentialsJSON
	js := []byte(strings.TrimSpace(v))
	if len(js) > 0 && js[0] != '{' {
		if dec, err := base64.StdEncoding.DecodeString(string(js)); err == nil && bytes.HasPrefix(bytes.TrimSpace(dec), []byte("{")) {
			js = dec
		} else {
			source = "the key file named by " + PropCredentialsJSON
			if js, err = os.ReadFile(v); err != nil {
				return nil, "", fmt.Errorf("gcs: %s: %w", source, err)
			}
		}
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return nil, "", fmt.Errorf("gcs: %s is not JSON: %v", source, err)
	}
	var typ option.CredentialsType
	switch head.Type {
	case "service_account":
		typ = option.ServiceAccount
	case "authorized_user":
		typ = option.AuthorizedUser
	default:
		return nil, "", fmt.Errorf("gcs: %s has type %q: want service_account or authorized_user", source, head.Type)
	}
	return []option.ClientOption{option.WithAuthCredentialsJSON(typ, js)}, source, nil
}

// accessScope maps gcs.access to an OAuth2 scope.
func accessScope(access string) (string, error) {
	switch access {
	case "", "read_write":
		return storage.ScopeReadWrite, nil
	case "read_only":
		return storage.ScopeReadOnly, nil
	case "full_control":
		return storage.ScopeFullControl, nil
	}
	return "", fmt.Errorf("gcs: %s %q: want read_only, read_write or full_control", PropAccess, access)
}
