// Package azurite starts the Blob service of Azurite, Microsoft's Azure
// Storage emulator, on a free loopback port for one test, and uploads
// fixtures to it. mk/azure.mk installs the program from npm and names it
// in AZURITE_BIN.
package azurite

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers"
)

// Env names the environment variable that holds the program's path.
const Env = "AZURITE_BIN"

// Account is the storage account the server serves.
const Account = "iceflight"

// Server is a running Azurite Blob service with one account whose key is
// fresh per server. Its blobs live in a folder of the test's own, so they
// outlive Kill and come back with Restart.
type Server struct {
	// Endpoint is the account's Blob endpoint,
	// http://127.0.0.1:PORT/iceflight (the emulator's path-style URL).
	Endpoint string
	// Key is the account's shared key, base64.
	Key string

	proc   *servers.Process
	client *service.Client
	cred   *service.SharedKeyCredential
}

// Start starts a server on a free loopback port and stops it when the test
// ends. Without AZURITE_BIN the test is skipped (or fails under
// ICEFLIGHT_REQUIRE_SERVERS).
func Start(t testing.TB) *Server {
	t.Helper()
	bin := servers.Program(t, Env, "servers-azurite")
	root := t.TempDir()
	port := strconv.Itoa(servers.FreePort(t))
	key := make([]byte, 64)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	s := &Server{Endpoint: "http://127.0.0.1:" + port + "/" + Account, Key: base64.StdEncoding.EncodeToString(key)}
	s.proc = servers.NewProcess(t, "azurite-blob", "127.0.0.1:"+port, func() *exec.Cmd {
		cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", port, "--location", root,
			"--skipApiVersionCheck", "--disableProductStyleUrl", "--disableTelemetry", "--silent")
		// The account and its key come from AZURITE_ACCOUNTS only.
		cmd.Env = servers.ProgramEnv(root, "AZURITE_ACCOUNTS="+Account+":"+s.Key)
		return cmd
	})
	// SIGTERM: Azurite keeps its blob index in memory and saves it on a
	// clean exit; killed outright it would come back empty.
	s.proc.Stop = syscall.SIGTERM
	s.proc.Start(t)
	var err error
	if s.cred, err = service.NewSharedKeyCredential(Account, s.Key); err != nil {
		t.Fatal(err)
	}
	if s.client, err = service.NewClientWithSharedKeyCredential(s.Endpoint+"/", s.cred, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// Props returns the storage properties, by PyIceberg's names, that reach
// the server with the account key.
func (s *Server) Props() fileio.Properties {
	return fileio.Properties{"adls.account-name": Account, "adls.account-key": s.Key, "adls.account-host": s.Endpoint}
}

// ConnectionString returns a connection string that reaches the server.
func (s *Server) ConnectionString() string {
	return fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;", Account, s.Key, s.Endpoint)
}

// SAS returns an account SAS token (a query string) that may read, list,
// write and delete blobs for the next hour.
func (s *Server) SAS(t testing.TB) string {
	t.Helper()
	q, err := sas.AccountSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		ExpiryTime:    time.Now().Add(time.Hour).UTC(),
		Permissions:   (&sas.AccountPermissions{Read: true, List: true, Write: true, Create: true, Delete: true}).String(),
		ResourceTypes: (&sas.AccountResourceTypes{Container: true, Object: true}).String(),
	}.SignWithSharedKey(s.cred)
	if err != nil {
		t.Fatal(err)
	}
	return q.Encode()
}

// Location returns the abfss:// location of key in container.
func Location(container, key string) string {
	return "abfss://" + container + "@" + Account + ".dfs.core.windows.net/" + key
}

// Kill stops the server (SIGTERM: it stops listening at once and saves its
// index, so its blobs stay for Restart).
func (s *Server) Kill() { s.proc.Kill() }

// Restart starts the server again on the same port over the same blobs.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.proc.Restart(t)
}

// CreateContainer creates container.
func (s *Server) CreateContainer(t testing.TB, container string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.client.CreateContainer(ctx, container, nil); err != nil {
		t.Fatalf("create container %s: %v", container, err)
	}
}

// Put stores data as the blob key of container.
func (s *Server) Put(t testing.TB, container, key string, data []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bb := s.client.NewContainerClient(container).NewBlockBlobClient(key)
	if _, err := bb.UploadBuffer(ctx, data, &blockblob.UploadBufferOptions{}); err != nil {
		t.Fatalf("put %s/%s: %v", container, key, err)
	}
}

// Stat returns what the server answers to a request for the properties
// of the blob key of container.
func (s *Server) Stat(t testing.TB, container, key string) fileio.Info {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	props, err := s.client.NewContainerClient(container).NewBlobClient(key).GetProperties(ctx, nil)
	if err != nil || props.LastModified == nil || props.ETag == nil {
		t.Fatalf("properties of %s/%s: %v (last modified %v, etag %v)", container, key, err, props.LastModified, props.ETag)
	}
	return fileio.Info{ModTime: *props.LastModified, ETag: string(*props.ETag)}
}

// Delete removes the blob key of container.
func (s *Server) Delete(t testing.TB, container, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.client.NewContainerClient(container).NewBlobClient(key).Delete(ctx, nil); err != nil {
		t.Fatalf("delete %s/%s: %v", container, key, err)
	}
}

// Upload copies every file below dir to container under prefix (no
// leading or trailing "/"; "" for the container's root), keeping relative
// paths, and returns the abfss:// location of the copy of dir.
func (s *Server) Upload(t testing.TB, dir, container, prefix string) string {
	t.Helper()
	servers.UploadTree(t, dir, prefix, func(key string, data []byte) { s.Put(t, container, key, data) })
	return Location(container, prefix)
}
