package engine

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// Ticket verification errors. ErrTicketExpired maps to Unauthenticated (the
// client should plan again); the others to PermissionDenied.
var (
	ErrTicketInvalid = errors.New("invalid ticket")
	ErrTicketExpired = errors.New("ticket expired")
)

// TicketVersion is the newest ticket format this release signs and
// redeems. A ticket of a format it does not read (one of an older release,
// before the schemas were typed messages, has none) is refused, never read
// as if it were another; its client plans again.
//
// Format 3 is a ticket that streams a unit (a metadata table's, a change
// stream's, a manifest group) instead of tasks: a release that reads only
// format 2 would take it for an empty list of tasks and stream no rows, so
// it refuses it instead. A ticket of tasks stays format 2, which that
// release still redeems during a rolling upgrade.
const TicketVersion = 3

// taskTicketVersion is the format of a ticket that carries tasks alone.
const taskTicketVersion = 2

// ticketVersion is the format t is signed as.
func ticketVersion(t *iceflightv1.Ticket) uint32 {
	if len(t.MetadataUnit) > 0 || len(t.ChangeUnit) > 0 || t.ManifestGroup != nil {
		return TicketVersion
	}
	return taskTicketVersion
}

// DefaultTicketTTL is how long a ticket stays redeemable.
const DefaultTicketTTL = time.Hour

// minKeyBytes is the shortest HMAC key accepted.
const minKeyBytes = 32

// Signer signs and verifies tickets with HMAC-SHA256. Every worker that
// shares its keys can redeem any ticket, with no coordinator state. A
// Signer holds a ring of keys: the first signs and every one verifies, so a
// new key can be rolled out to all processes before it starts signing and
// an old one kept until the tickets it signed have expired.
type Signer struct {
	keys  map[string][]byte
	keyID string // the signing key
	ttl   time.Duration
	now   func() time.Time
}

// TicketKey is one named key of a Signer's ring.
type TicketKey struct {
	ID  string
	Key []byte
}

// NewSigner returns a Signer for a single key. The key id, sent in clear
// inside each ticket, is derived from the key so rotated keys can be told
// apart.
func NewSigner(key []byte, ttl time.Duration) (*Signer, error) {
	sum := sha256.Sum256(key)
	return NewKeyring([]TicketKey{{ID: hex.EncodeToString(sum[:4]), Key: key}}, ttl)
}

// NewKeyring returns a Signer that signs with keys[0] and verifies with
// every key.
func NewKeyring(keys []TicketKey, ttl time.Duration) (*Signer, error) {
	if len(keys) == 0 {
		return nil, errors.New("no ticket keys")
	}
	if ttl <= 0 {
		ttl = DefaultTicketTTL
	}
	s := &Signer{keys: make(map[string][]byte, len(keys)), keyID: keys[0].ID, ttl: ttl, now: time.Now}
	for _, k := range keys {
		if k.ID == "" {
			return nil, errors.New("ticket key without an id")
		}
		if len(k.Key) < minKeyBytes {
			return nil, fmt.Errorf("ticket key %q has %d bytes, need at least %d", k.ID, len(k.Key), minKeyBytes)
		}
		if _, dup := s.keys[k.ID]; dup {
			return nil, fmt.Errorf("ticket key id %q appears twice", k.ID)
		}
		s.keys[k.ID] = append([]byte(nil), k.Key...)
	}
	return s, nil
}

// NewRandomSigner returns a Signer with a fresh random key: tickets are then
// valid only on this process.
func NewRandomSigner(ttl time.Duration) (*Signer, error) {
	key := make([]byte, minKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("ticket key: %w", err)
	}
	return NewSigner(key, ttl)
}

// LoadSigner reads a single-key file. The file holds the key as hex (64 or
// more hex digits) or as raw bytes; surrounding whitespace is ignored.
func LoadSigner(path string, ttl time.Duration) (*Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ticket key file: %w", err)
	}
	text := strings.TrimSpace(string(data))
	key := []byte(text)
	if b, err := hex.DecodeString(text); err == nil && len(b) >= minKeyBytes {
		key = b
	}
	s, err := NewSigner(key, ttl)
	if err != nil {
		return nil, fmt.Errorf("ticket key file %s: %w", path, err)
	}
	return s, nil
}

// LoadKeyring reads a key ring file: one key a line as ID=HEX, at least 32
// bytes each, blank lines and # comments ignored. The first key signs.
func LoadKeyring(path string, ttl time.Duration) (*Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ticket keys: %w", err)
	}
	var keys []TicketKey
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, hexKey, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("ticket keys %s:%d: want ID=HEX", path, n+1)
		}
		key, err := hex.DecodeString(strings.TrimSpace(hexKey))
		if err != nil {
			return nil, fmt.Errorf("ticket keys %s:%d: key is not hex: %v", path, n+1, err)
		}
		keys = append(keys, TicketKey{ID: strings.TrimSpace(id), Key: key})
	}
	s, err := NewKeyring(keys, ttl)
	if err != nil {
		return nil, fmt.Errorf("ticket keys %s: %w", path, err)
	}
	return s, nil
}

// KeyID identifies the signing key.
func (s *Signer) KeyID() string { return s.keyID }

// SessionSecrets returns the signing key and the other keys of the ring,
// for an Authenticator whose session tokens should rotate with the ticket
// keys (it derives its own MAC keys from them under a separate label).
func (s *Signer) SessionSecrets() (sign []byte, verify [][]byte) {
	for id, k := range s.keys {
		if id != s.keyID {
			verify = append(verify, k)
		}
	}
	return s.keys[s.keyID], verify
}

// TTL is how long the tickets it signs stay redeemable.
func (s *Signer) TTL() time.Duration { return s.ttl }

// Sign stamps the ticket's issue and expiry times and returns the bytes a
// client presents to DoGet.
func (s *Signer) Sign(t *iceflightv1.Ticket) ([]byte, error) {
	now := s.now()
	t.Version = ticketVersion(t)
	t.IssuedAtUnixMs = now.UnixMilli()
	t.ExpiresAtUnixMs = now.Add(s.ttl).UnixMilli()
	if c := t.CredentialsExpireAtUnixMs; c > 0 && c < t.ExpiresAtUnixMs {
		// A ticket whose sealed credentials expire is no use after them.
		t.ExpiresAtUnixMs = c
	}
	payload, err := proto.MarshalOptions{Deterministic: true}.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode ticket: %w", err)
	}
	signed := &iceflightv1.SignedTicket{Payload: payload, KeyId: s.keyID, Mac: s.mac(s.keys[s.keyID], s.keyID, payload)}
	return proto.Marshal(signed)
}

// Verify checks a ticket's signature and expiry and decodes it. Nothing in
// the payload is trusted, or even decoded, before the MAC matches.
func (s *Signer) Verify(b []byte) (*iceflightv1.Ticket, error) {
	var signed iceflightv1.SignedTicket
	if err := proto.Unmarshal(b, &signed); err != nil {
		return nil, fmt.Errorf("%w: not an iceflight ticket", ErrTicketInvalid)
	}
	key, ok := s.keys[signed.KeyId]
	if !ok {
		return nil, fmt.Errorf("%w: signed with unknown key %q", ErrTicketInvalid, signed.KeyId)
	}
	if !hmac.Equal(signed.Mac, s.mac(key, signed.KeyId, signed.Payload)) {
		return nil, fmt.Errorf("%w: signature does not match", ErrTicketInvalid)
	}
	t := new(iceflightv1.Ticket)
	if err := proto.Unmarshal(signed.Payload, t); err != nil {
		return nil, fmt.Errorf("%w: payload: %v", ErrTicketInvalid, err)
	}
	if t.Version != ticketVersion(t) {
		return nil, fmt.Errorf("%w: table %s: ticket format %d, this server reads formats %d and %d: it was issued by another release of iceflight; plan the scan again",
			ErrTicketInvalid, t.Table, t.Version, taskTicketVersion, TicketVersion)
	}
	if now := s.now().UnixMilli(); now > t.ExpiresAtUnixMs {
		return nil, fmt.Errorf("%w: expired %s ago; plan the scan again", ErrTicketExpired,
			time.Duration(now-t.ExpiresAtUnixMs)*time.Millisecond)
	}
	return t, nil
}

// mac covers the key id as well as the payload so a ticket cannot be
// replayed under another key's id.
func (s *Signer) mac(key []byte, keyID string, payload []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(keyID))
	h.Write([]byte{0})
	h.Write(payload)
	return h.Sum(nil)
}

func commonPrefix(a, b string) string {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return a[:i]
		}
	}
	return a[:n]
}
