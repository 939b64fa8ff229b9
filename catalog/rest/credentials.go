package rest

import (
	"strconv"
	"strings"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// vendedProperties returns the storage properties a load-table answer
// gives for a table at location: its "config", then the entry of
// "storage-credentials" whose prefix is the longest that location starts
// with (spec: LoadTableResult — clients choose the most specific prefix).
// Nil when the answer gives none.
func vendedProperties(lt *loadTableResponse, location string) fileio.Properties {
	out := fileio.Properties{}
	for k, v := range lt.Config {
		out[k] = v
	}
	best := -1
	for i, sc := range lt.StorageCredentials {
		if strings.HasPrefix(location, sc.Prefix) && (best < 0 || len(sc.Prefix) > len(lt.StorageCredentials[best].Prefix)) {
			best = i
		}
	}
	if best >= 0 {
		for k, v := range lt.StorageCredentials[best].Config {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// catalogOnly names properties that configure the catalog client, not
// storage: they are left out of a table's storage properties, so that no
// catalog token or secret travels with them (into a ticket, for one).
var catalogOnly = map[string]bool{
	"uri": true, "credential": true, "token": true, "warehouse": true, "prefix": true,
	"oauth2-server-uri": true, "scope": true, "audience": true, "resource": true,
	"type": true, "namespace-separator": true, "snapshot-loading-mode": true,
}

// storageProperties copies the catalog's merged properties without those
// that configure only the catalog client and its headers.
func storageProperties(merged fileio.Properties) fileio.Properties {
	out := make(fileio.Properties, len(merged))
	for k, v := range merged {
		if catalogOnly[k] || strings.HasPrefix(k, "header.") || strings.HasPrefix(k, "rest.") {
			continue
		}
		out[k] = v
	}
	return out
}

// credentialsExpiry returns the earliest expiry among the properties that
// carry one: "s3.session-token-expires-at-ms", "adls.sas-token-expires-at-ms.ACCOUNT",
// "gcs.oauth2.token-expires-at" (milliseconds since the epoch). Zero when
// none does.
func credentialsExpiry(props fileio.Properties) time.Time {
	var earliest time.Time
	for k, v := range props {
		if !strings.Contains(k, "expires-at") {
			continue
		}
		ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || ms <= 0 {
			continue
		}
		if t := time.UnixMilli(ms); earliest.IsZero() || t.Before(earliest) {
			earliest = t
		}
	}
	return earliest
}

// credentialRenewMargin is how long before they expire vended credentials
// are renewed: plans made with them must still be readable for a while.
const credentialRenewMargin = 5 * time.Minute

// credentialsFresh reports whether a cached table's vended credentials (if
// any) stay valid past the renewal margin.
func credentialsFresh(t *catalog.Table, now time.Time) bool {
	return t.CredentialsExpire.IsZero() || now.Add(credentialRenewMargin).Before(t.CredentialsExpire)
}
