// Package azure is the FileIO for Azure Data Lake Storage Gen2 and Blob
// Storage locations (abfs://, abfss://, wasb://, wasbs://), on the azblob
// SDK. Every scheme is read through the Blob API, which serves the same
// objects on hierarchical (Data Lake) accounts as on flat ones. It is
// configured by PyIceberg's "adls.*" property names (see New).
package azure

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/iceflight/iceflight/fileio"
)

// Property names, as PyIceberg spells them.
const (
	// PropConnectionString is a storage connection string
	// ("DefaultEndpointsProtocol=...;AccountName=...;AccountKey=...;BlobEndpoint=...").
	PropConnectionString = "adls.connection-string"
	// PropAccountName names the account a key or SAS belongs to; the
	// default is the account named by the location's host.
	PropAccountName = "adls.account-name"
	// PropAccountKey is the account's shared key, base64.
	PropAccountKey = "adls.account-key"
	// PropSASToken is a shared access signature; the property
	// "adls.sas-token.<account host>" (as a REST catalog vends it) wins
	// for locations on that host.
	PropSASToken = "adls.sas-token"
	// PropToken is an OAuth2 bearer token for the storage resource.
	PropToken = "adls.token"
	// PropTenantID, PropClientID and PropClientSecret name a service
	// principal that signs in with Azure AD (azidentity).
	PropTenantID     = "adls.tenant-id"
	PropClientID     = "adls.client-id"
	PropClientSecret = "adls.client-secret"
	// PropAnon ("true") sends requests without credentials, for public
	// containers.
	PropAnon = "adls.anon"
	// PropAccountHost is the Blob endpoint's host (or URL), replacing
	// "<account>.blob.core.windows.net": "http://127.0.0.1:10000/devstoreaccount1"
	// reaches Azurite.
	PropAccountHost = "adls.account-host"
	// PropBlobAuthority and PropBlobScheme replace the Blob endpoint's
	// authority and scheme as pyarrow does: an authority that starts with
	// "." is a domain the account name goes in front of, any other is an
	// emulator's host:port the account name follows as the first path
	// segment.
	PropBlobAuthority = "adls.blob-storage-authority"
	PropBlobScheme    = "adls.blob-storage-scheme"
)

// Retries: the SDK retries every call that fails with 408, 429, 5xx or a
// broken connection, with exponential backoff and ±20% jitter, at most
// maxRetries times; after that the error wraps fileio.ErrUnavailable.
const (
	maxRetries     = 3
	initialBackoff = 100 * time.Millisecond
	maxBackoff     = 2 * time.Second
)

// Backend serves the Azure schemes.
var Backend = fileio.Backend{
	Name:    "Azure",
	Schemes: []string{"abfs", "abfss", "wasb", "wasbs"},
	New: func(ctx context.Context, props fileio.Properties) (fileio.FileIO, error) {
		return New(ctx, props)
	},
}

// FileIO opens, lists, writes and removes blobs. It keeps one client per
// storage account that its locations name. It is safe for concurrent use.
type FileIO struct {
	props   fileio.Properties
	options *service.ClientOptions
	// tokens is the Azure AD credential shared by every account, when the
	// properties choose one.
	tokens azcore.TokenCredential

	// listPage caps the entries of one list call; 0 leaves it to the
	// server (5,000). Tests make it small to list many pages.
	listPage int32

	mu      sync.Mutex
	clients map[string]*account
}

// account is the client of one storage account and the name of the
// credentials it uses, for messages.
type account struct {
	client *service.Client
	source string
}

// New returns a FileIO configured by props. Credentials are chosen in this
// order: a connection string, an account key, a SAS token, a bearer token,
// a service principal's client secret, none (adls.anon), and otherwise
// azidentity's DefaultAzureCredential (environment, workload identity,
// managed identity, the Azure CLI). Nothing is sent until the first call.
func New(ctx context.Context, props fileio.Properties) (*FileIO, error) {
	f := &FileIO{
		props: props,
		options: &service.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{
			MaxRetries: maxRetries, RetryDelay: initialBackoff, MaxRetryDelay: maxBackoff,
		}}},
		clients: map[string]*account{},
	}
	tokens, err := tokenCredential(props)
	if err != nil {
		return nil, err
	}
	if tokens != nil {
		f.tokens = markTokens{tokens}
	}
	return f, nil
}

// location is an Azure location cut into its parts: the account and the
// domain after "<account>.dfs." or "<account>.blob.", the container and
// the blob name.
type location struct {
	host, account, suffix string
	container, blob       string
}

// parseLocation splits "abfss://container@account.dfs.core.windows.net/path"
// (or wasb[s]:// with ".blob.") into its parts.
func parseLocation(loc string) (location, error) {
	scheme, rest, ok := strings.Cut(loc, "://")
	switch {
	case !ok:
		return location{}, fmt.Errorf("%s: %w: not an Azure location", loc, fileio.ErrUnsupportedScheme)
	case scheme != "abfs" && scheme != "abfss" && scheme != "wasb" && scheme != "wasbs":
		return location{}, fmt.Errorf("%s: %w: not an Azure location", loc, fileio.ErrUnsupportedScheme)
	}
	authority, blob, _ := strings.Cut(rest, "/")
	container, host, ok := strings.Cut(authority, "@")
	if !ok || container == "" || host == "" {
		return location{}, fmt.Errorf("%s: %w: want %s://container@account.%s.core.windows.net/path", loc, fileio.ErrNotFound, scheme, serviceOf(scheme))
	}
	l := location{host: host, container: container, blob: blob, suffix: "core.windows.net"}
	name, domain, ok := strings.Cut(host, ".")
	l.account = name
	if ok {
		if d, ok := strings.CutPrefix(domain, "dfs."); ok {
			l.suffix = d
		} else if d, ok := strings.CutPrefix(domain, "blob."); ok {
			l.suffix = d
		} else {
			l.suffix = domain
		}
	}
	return l, nil
}

// serviceOf names the service a scheme's locations usually name.
func serviceOf(scheme string) string {
	if strings.HasPrefix(scheme, "abfs") {
		return "dfs"
	}
	return "blob"
}

// serviceURL is the Blob endpoint of l's account.
func (f *FileIO) serviceURL(l location) string {
	if h := f.props.Get(PropAccountHost); h != "" {
		if !strings.Contains(h, "://") {
			h = "https://" + h
		}
		return strings.TrimRight(h, "/") + "/"
	}
	scheme := f.props.Get(PropBlobScheme)
	if scheme == "" {
		scheme = "https"
	}
	if a := f.props.Get(PropBlobAuthority); a != "" {
		if strings.HasPrefix(a, ".") {
			return scheme + "://" + l.account + a + "/"
		}
		return scheme + "://" + a + "/" + l.account + "/"
	}
	return scheme + "://" + l.account + ".blob." + l.suffix + "/"
}

// account returns the client of l's account, made on first use.
func (f *FileIO) account(l location) (*account, error) {
	key := l.account + "." + l.suffix
	f.mu.Lock()
	defer f.mu.Unlock()
	if a, ok := f.clients[key]; ok {
		return a, nil
	}
	a, err := f.newAccount(l)
	if err != nil {
		return nil, err
	}
	f.clients[key] = a
	return a, nil
}
