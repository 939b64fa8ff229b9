package azure

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/iceflight/iceflight/fileio"
)

// tokenCredential returns the Azure AD credential props choose, or nil
// when they choose a connection string, a key, a SAS or no credentials.
func tokenCredential(props fileio.Properties) (azcore.TokenCredential, error) {
	switch {
	case props.Get(PropConnectionString) != "", props.Get(PropAccountKey) != "",
		props.Get(PropSASToken) != "", sasByHost(props), strings.EqualFold(props.Get(PropAnon), "true"):
		return nil, nil
	case props.Get(PropToken) != "":
		return staticToken(props.Get(PropToken)), nil
	case props.Get(PropClientSecret) != "":
		tenant, client := props.Get(PropTenantID), props.Get(PropClientID)
		if tenant == "" || client == "" {
			return nil, fmt.Errorf("azure: %s needs %s and %s", PropClientSecret, PropTenantID, PropClientID)
		}
		c, err := azidentity.NewClientSecretCredential(tenant, client, props.Get(PropClientSecret), nil)
		if err != nil {
			return nil, fmt.Errorf("azure: client secret credential for client %s in tenant %s: %w", client, tenant, err)
		}
		return c, nil
	}
	c, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return nil, fmt.Errorf("azure: DefaultAzureCredential: %w", err)
	}
	return c, nil
}

// sasByHost reports whether props hold a SAS token for one account host.
func sasByHost(props fileio.Properties) bool {
	for k := range props {
		if strings.HasPrefix(k, PropSASToken+".") {
			return true
		}
	}
	return false
}

// newAccount makes the client of l's account with the credentials props
// choose, in New's order.
func (f *FileIO) newAccount(l location) (*account, error) {
	p := f.props
	name := p.Get(PropAccountName)
	if name == "" {
		name = l.account
	}
	if cs := p.Get(PropConnectionString); cs != "" {
		c, err := service.NewClientFromConnectionString(cs, f.options)
		if err != nil {
			// The SDK's message quotes nothing of the string.
			return nil, fmt.Errorf("azure: %s: %w", PropConnectionString, err)
		}
		return &account{client: c, source: "the connection string of " + PropConnectionString}, nil
	}
	url := f.serviceURL(l)
	if key := p.Get(PropAccountKey); key != "" {
		cred, err := service.NewSharedKeyCredential(name, key)
		if err != nil {
			return nil, fmt.Errorf("azure: %s for account %s is not a base64 key", PropAccountKey, name)
		}
		c, err := service.NewClientWithSharedKeyCredential(url, cred, f.options)
		if err != nil {
			return nil, fmt.Errorf("azure: account %s: %w", name, err)
		}
		return &account{client: c, source: fmt.Sprintf("the account key of %s for account %s", PropAccountKey, name)}, nil
	}
	if sas, prop := sasToken(p, l); sas != "" {
		c, err := service.NewClientWithNoCredential(url+"?"+strings.TrimPrefix(sas, "?"), f.options)
		if err != nil {
			return nil, fmt.Errorf("azure: account %s: %s is not a query string", name, prop)
		}
		return &account{client: c, source: "the SAS token of " + prop}, nil
	}
	if f.tokens == nil {
		c, err := service.NewClientWithNoCredential(url, f.options)
		if err != nil {
			return nil, fmt.Errorf("azure: account %s: %w", name, err)
		}
		return &account{client: c, source: "no credentials (" + PropAnon + ")"}, nil
	}
	c, err := service.NewClient(url, f.tokens, f.options)
	if err != nil {
		return nil, fmt.Errorf("azure: account %s: %w", name, err)
	}
	return &account{client: c, source: tokenSource(p)}, nil
}

// sasToken returns the SAS token for l and the property it came from: the
// one for l's host wins over the general one.
func sasToken(p fileio.Properties, l location) (string, string) {
	for _, k := range []string{PropSASToken + "." + l.host, PropSASToken + "." + l.account + ".dfs." + l.suffix, PropSASToken + "." + l.account + ".blob." + l.suffix, PropSASToken} {
		if v := p[k]; v != "" {
			return v, k
		}
	}
	return "", ""
}

// tokenSource names the Azure AD credential props choose.
func tokenSource(p fileio.Properties) string {
	switch {
	case p.Get(PropToken) != "":
		return "the bearer token of " + PropToken
	case p.Get(PropClientSecret) != "":
		return fmt.Sprintf("the client secret of client %s in tenant %s", p.Get(PropClientID), p.Get(PropTenantID))
	}
	return "DefaultAzureCredential"
}

// staticToken is a bearer token given in the properties; it is used until
// the server refuses it.
type staticToken string

// GetToken returns the token, valid for an hour as far as the SDK knows.
func (t staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(t), ExpiresOn: time.Now().Add(time.Hour)}, nil
}
