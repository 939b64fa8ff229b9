package engine

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/iceflight/iceflight/fileio"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// Storage properties a catalog vends for one table (a REST catalog's
// credentials scoped to it) travel to the worker inside the ticket, sealed:
// a ticket is signed, not secret, and a client holds and may show it to
// anyone. See docs/design.md, "Vended credentials in tickets".
//
// A sealed blob is: version byte, key id length byte, key id, 12-byte
// nonce, AES-256-GCM ciphertext of the properties' JSON. The AEAD key is
// HKDF-SHA256 of the ticket key named by the key id, under its own label,
// so it is never the key that signs; the additional data binds the blob to
// that key id and to the ticket's table.

// StorageFunc builds the FileIO that reads a table's files from storage
// properties, as the storage registry's ForProperties does.
type StorageFunc func(ctx context.Context, props fileio.Properties) (fileio.FileIO, error)

// WithStorage sets how a worker builds the FileIO of a ticket that carries
// sealed storage properties. Without it such tickets are refused.
func WithStorage(f StorageFunc) Option { return func(e *Engine) { e.storage = f } }

const (
	sealVersion    = 1
	sealKeyLabel   = "iceflight ticket storage v1"
	sealNonceBytes = 12
)

// errNoStorage marks a ticket with sealed storage at a worker that has no
// way to build a FileIO from it.
var errNoStorage = errors.New("this server cannot read tables with vended storage credentials: it has no storage registry")

// storageAEAD returns the AEAD of the ticket key id.
func (s *Signer) storageAEAD(keyID string) (cipher.AEAD, error) {
	key, ok := s.keys[keyID]
	if !ok {
		return nil, fmt.Errorf("%w: storage sealed with unknown key %q", ErrTicketInvalid, keyID)
	}
	k, err := hkdf.Key(sha256.New, key, nil, sealKeyLabel, 32)
	if err != nil {
		return nil, fmt.Errorf("derive storage key: %w", err)
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// sealAD is the additional data of a sealed blob.
func sealAD(keyID, table string) []byte {
	return fmt.Appendf(nil, "%s\x00%s\x00%s", sealKeyLabel, keyID, table)
}

// sealStorage encrypts props for the tickets of table under the signing
// key.
func (s *Signer) sealStorage(table string, props fileio.Properties) ([]byte, error) {
	aead, err := s.storageAEAD(s.keyID)
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	if len(s.keyID) > 255 {
		return nil, fmt.Errorf("ticket key id of %d bytes is too long to seal under", len(s.keyID))
	}
	out := make([]byte, 0, 2+len(s.keyID)+sealNonceBytes+len(plain)+aead.Overhead())
	out = append(out, sealVersion, byte(len(s.keyID)))
	out = append(out, s.keyID...)
	nonce := make([]byte, sealNonceBytes)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal storage: %w", err)
	}
	out = append(out, nonce...)
	return aead.Seal(out, nonce, plain, sealAD(s.keyID, table)), nil
}

// openStorage decrypts a verified ticket's sealed storage properties. A
// blob that does not open is ErrTicketInvalid: it can only come from a
// forged ticket or a key that has left the ring.
func (s *Signer) openStorage(t *iceflightv1.Ticket) (fileio.Properties, error) {
	b := t.GetSealedStorage()
	if len(b) < 2 || b[0] != sealVersion || len(b) < 2+int(b[1])+sealNonceBytes {
		return nil, fmt.Errorf("%w: table %s: sealed storage is malformed", ErrTicketInvalid, t.Table)
	}
	keyID := string(b[2 : 2+int(b[1])])
	rest := b[2+int(b[1]):]
	aead, err := s.storageAEAD(keyID)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Table, err)
	}
	plain, err := aead.Open(nil, rest[:sealNonceBytes], rest[sealNonceBytes:], sealAD(keyID, t.Table))
	if err != nil {
		return nil, fmt.Errorf("%w: table %s: sealed storage does not open", ErrTicketInvalid, t.Table)
	}
	var props fileio.Properties
	if err := json.Unmarshal(plain, &props); err != nil {
		return nil, fmt.Errorf("%w: table %s: sealed storage: %v", ErrTicketInvalid, t.Table, err)
	}
	return props, nil
}

// ticketStorage is what every ticket of a plan carries of its table's
// vended storage: the sealed properties and when they expire.
type ticketStorage struct {
	sealed    []byte
	expiresMs int64
}

// storageForTickets seals a table's vended storage properties, if it has
// any, once for all the tickets of a plan; expires (zero: unknown) caps
// the tickets' expiry.
func (e *Engine) storageForTickets(table string, props fileio.Properties, expires time.Time) (ticketStorage, error) {
	if props == nil {
		return ticketStorage{}, nil
	}
	sealed, err := e.signer.sealStorage(table, props)
	if err != nil {
		return ticketStorage{}, fmt.Errorf("table %s: %w", table, err)
	}
	ts := ticketStorage{sealed: sealed}
	if !expires.IsZero() {
		ts.expiresMs = max(1, expires.UnixMilli())
	}
	return ts, nil
}

// reseal seals a verified ticket's storage again under the current signing
// key, for a renewed ticket that may outlive the key it was sealed under.
func (s *Signer) reseal(t *iceflightv1.Ticket) error {
	if len(t.SealedStorage) == 0 {
		return nil
	}
	props, err := s.openStorage(t)
	if err != nil {
		return err
	}
	t.SealedStorage, err = s.sealStorage(t.Table, props)
	return err
}

// readerFor returns the reader of a verified ticket: that of the storage
// profile it names, opening files with the ticket's sealed storage
// properties when it has them.
func (e *Engine) readerFor(ctx context.Context, t *iceflightv1.Ticket) (*reader.Reader, error) {
	rd, err := e.profileReader(t)
	if err != nil || len(t.SealedStorage) == 0 {
		return rd, err
	}
	if e.storage == nil {
		return nil, fmt.Errorf("table %s: %w: %w", t.Table, fileio.ErrUnsupportedScheme, errNoStorage)
	}
	props, err := e.signer.openStorage(t)
	if err != nil {
		return nil, err
	}
	fio, err := e.storage(ctx, props)
	if err != nil {
		// The error of a storage back end names the bucket and the
		// credential source, never a secret.
		return nil, fmt.Errorf("table %s: storage of the ticket: %w", t.Table, err)
	}
	return rd.WithFileIO(fio), nil
}
