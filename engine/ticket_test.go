package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/testkit/testutil"
)

func testSigner(t testing.TB, key byte) *Signer {
	t.Helper()
	k := make([]byte, 32)
	for i := range k {
		k[i] = key
	}
	s, err := NewSigner(k, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTicketRoundTrip(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	in := &iceflightv1.Ticket{Table: "db.t", SnapshotId: 42, Tasks: []*iceflightv1.Task{{Path: "/w/db/t/data/a.parquet"}}}
	b, err := s.Sign(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Verify(b)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(in, out) {
		t.Fatalf("round trip changed the ticket:\n%v\n%v", in, out)
	}
}

func TestTicketRefused(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	good, err := s.Sign(&iceflightv1.Ticket{Table: "db.t", Tasks: []*iceflightv1.Task{{Path: "/etc/passwd"}}})
	if err != nil {
		t.Fatal(err)
	}
	var signed iceflightv1.SignedTicket
	if err := proto.Unmarshal(good, &signed); err != nil {
		t.Fatal(err)
	}
	// A ticket whose payload was swapped for another (forged) one.
	forgedPayload, _ := proto.Marshal(&iceflightv1.Ticket{Table: "db.t", ExpiresAtUnixMs: time.Now().Add(time.Hour).UnixMilli(),
		Tasks: []*iceflightv1.Task{{Path: "/etc/shadow"}}})
	forged, _ := proto.Marshal(&iceflightv1.SignedTicket{Payload: forgedPayload, KeyId: signed.KeyId, Mac: signed.Mac})
	otherKey, _ := testSigner(t, 2).Sign(&iceflightv1.Ticket{Table: "db.t"})

	expired := testSigner(t, 1)
	expired.now = func() time.Time { return time.Now().Add(-2 * time.Minute) }
	old, _ := expired.Sign(&iceflightv1.Ticket{Table: "db.t"})

	cases := []struct {
		name   string
		ticket []byte
		want   error
	}{
		{"every flipped bit is refused", nil, ErrTicketInvalid},
		{"a forged payload under a copied MAC is refused", forged, ErrTicketInvalid},
		{"a ticket signed with another key is refused", otherKey, ErrTicketInvalid},
		{"garbage is refused", []byte("not a ticket"), ErrTicketInvalid},
		{"an empty ticket is refused", nil, ErrTicketInvalid},
		{"an expired ticket is refused as expired", old, ErrTicketExpired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.name == "every flipped bit is refused" {
				for i := range len(good) * 8 {
					b := append([]byte(nil), good...)
					b[i/8] ^= 1 << (i % 8)
					if _, err := s.Verify(b); err == nil {
						t.Fatalf("flipping bit %d was accepted", i)
					}
				}
				return
			}
			_, err := s.Verify(tc.ticket)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestShortKeyRejected(t *testing.T) {
	t.Parallel()
	if _, err := NewSigner([]byte("short"), time.Minute); err == nil {
		t.Fatal("a 5-byte key was accepted")
	}
}

func TestCompactPathsRoundTrip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		paths  []string
		prefix string
	}{
		{"files of one table share its data folder", []string{"/w/t/data/a=1/f1.parquet", "/w/t/data/a=2/f2.parquet"}, "/w/t/data/"},
		{"a prefix stops at a folder boundary", []string{"/w/t/data/f10.parquet", "/w/t/data/f11.parquet"}, "/w/t/data/"},
		{"one file keeps its name", []string{"s3://b/t/data/f.parquet"}, "s3://b/t/data/"},
		{"paths with nothing in common stay whole", []string{"a.parquet", "b.parquet"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tk := &iceflightv1.Ticket{}
			for _, p := range tc.paths {
				tk.Tasks = append(tk.Tasks, &iceflightv1.Task{Path: p})
			}
			compactPaths(tk)
			if tk.PathPrefix != tc.prefix {
				t.Fatalf("prefix %q, want %q", tk.PathPrefix, tc.prefix)
			}
			for _, task := range tk.Tasks {
				if task.Path == "" {
					t.Fatal("a task path became empty")
				}
			}
			expandPaths(tk)
			for i, task := range tk.Tasks {
				if task.Path != tc.paths[i] {
					t.Fatalf("path %d came back as %q, want %q", i, task.Path, tc.paths[i])
				}
			}
		})
	}
}

// TestKeyringRotation checks the rollout order of a new key: first every
// process verifies it, then it signs, and tickets signed by the old key stay
// good until the old key leaves the ring.
func TestKeyringRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := strings.Repeat("11", 32)
	next := strings.Repeat("22", 32)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	load := func(text string) *Signer {
		s, err := LoadKeyring(write("keys", text), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := load("k1=" + old + "\n")
	during := load("# old key still signs\nk1=" + old + "\nk2=" + next + "\n")
	after := load("k2=" + next + "\n\nk1=" + old + "\n")
	retired := load("k2=" + next + "\n")

	sign := func(s *Signer) []byte {
		b, err := s.Sign(&iceflightv1.Ticket{Table: "db.t"})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name     string
		ticket   []byte
		verifier *Signer
		ok       bool
	}{
		{"old key verified during rollout", sign(before), during, true},
		{"new key signs only after rollout", sign(after), during, true},
		{"new-key tickets verified by processes that have both", sign(after), after, true},
		{"old tickets outlive the switch", sign(before), after, true},
		{"retired key refused", sign(before), retired, false},
		{"unknown key refused", sign(after), before, false},
	}
	for _, tt := range tests {
		_, err := tt.verifier.Verify(tt.ticket)
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v", tt.name, err)
		}
		if err != nil && !errors.Is(err, ErrTicketInvalid) {
			t.Errorf("%s: err = %v, want ErrTicketInvalid", tt.name, err)
		}
	}
	if during.KeyID() != "k1" || after.KeyID() != "k2" {
		t.Errorf("signing keys = %s, %s; want the first line's", during.KeyID(), after.KeyID())
	}
}

func TestLoadKeyringRejects(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"no keys":      "# none\n",
		"no id":        "=" + strings.Repeat("11", 32),
		"no equals":    strings.Repeat("11", 32),
		"not hex":      "k1=zz" + strings.Repeat("11", 32),
		"short key":    "k1=" + strings.Repeat("11", 31),
		"duplicate id": "k1=" + strings.Repeat("11", 32) + "\nk1=" + strings.Repeat("22", 32),
	}
	for name, text := range tests {
		p := filepath.Join(t.TempDir(), "keys")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadKeyring(p, time.Minute); err == nil {
			t.Errorf("%s: loaded", name)
		} else if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}

// TestATicketSendsASharedResidualOnce plans a filtered scan of files split
// into many tasks in one endpoint: its ticket holds the residual once, not
// once per task, and still reads the filter's rows.
func TestATicketSendsASharedResidualOnce(t *testing.T) {
	ctx := context.Background()
	filter := "note != '" + strings.Repeat("y", 64<<10) + "'"
	signer := testSigner(t, 7)
	eng, _ := engineService(t, signer)
	for _, split := range []int64{0, 1} {
		cmd := map[string]any{"table": "samples.trips", "columns": []string{"id", "vendor"}, "filter": filter, "max_endpoints": 1}
		if split > 0 {
			cmd["target_split_bytes"] = split
		}
		info, err := eng.PlanDescriptor(ctx, testutil.CmdDesc(t, cmd))
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Endpoint) != 1 {
			t.Fatalf("%d endpoints, want 1", len(info.Endpoint))
		}
		tk, err := signer.Verify(info.Endpoint[0].Ticket.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		if len(tk.Residuals) != 1 || len(tk.Tasks) < 4 {
			t.Fatalf("%d residuals for %d tasks, want 1 for at least 4", len(tk.Residuals), len(tk.Tasks))
		}
		if n := len(info.Endpoint[0].Ticket.Ticket); n > 2*len(filter) {
			t.Fatalf("a ticket of %d bytes for a filter of %d", n, len(filter))
		}
		got, err := streamTicket(ctx, eng, info.Endpoint[0].Ticket.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		rows := got.rows()
		got.release()
		if rows == 0 {
			t.Fatal("the filter read no rows")
		}
	}
}

func TestDecodeTasksRefusesAMissingResidual(t *testing.T) {
	t.Parallel()
	residual := `{"type":"eq","term":"vendor","value":"a"}`
	cases := []struct {
		name string
		task *iceflightv1.Task
		ok   bool
	}{
		{"an index in range names its residual", &iceflightv1.Task{Path: "f", ResidualIndex: 1}, true},
		{"no index is no residual", &iceflightv1.Task{Path: "f"}, true},
		{"an index past the list is refused", &iceflightv1.Task{Path: "f", ResidualIndex: 2}, false},
		{"a negative index is refused", &iceflightv1.Task{Path: "f", ResidualIndex: -1}, false},
		{"a task carrying its own residual is refused", &iceflightv1.Task{Path: "f", ResidualJson: residual}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tk := &iceflightv1.Ticket{Residuals: []string{residual}, Tasks: []*iceflightv1.Task{tc.task}}
			got, err := decodeTasks(tk)
			if (err == nil) != tc.ok {
				t.Fatalf("decodeTasks: %v, want ok %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrTicketInvalid) {
				t.Fatalf("decodeTasks: %v, want %v", err, ErrTicketInvalid)
			}
			if err == nil && (tc.task.ResidualIndex == 1) != (got[0].Residual != nil) {
				t.Fatalf("residual index %d decoded as %v", tc.task.ResidualIndex, got[0].Residual)
			}
		})
	}
}

// A plan's tasks survive the ticket: every field, the residual each task
// names, and the sharing of residuals, which the ticket carries once.
func TestEncodeTasksRoundTrip(t *testing.T) {
	t.Parallel()
	shared := &scantask.Residual{Expr: expr.Equal("vendor", "a")}
	equal := &scantask.Residual{Expr: expr.Equal("vendor", "a")}
	other := &scantask.Residual{Expr: expr.GreaterThan("id", int64(3))}
	first := int64(11)
	del := &scantask.DeleteFile{Path: "/w/d.parquet", Format: scantask.Parquet, Kind: scantask.EqualityDeletes,
		FileSize: 9, RecordCount: 2, EqualityIDs: []int32{1}, DataSequenceNumber: 4, ReferencedDataFile: "/w/a.parquet",
		ContentOffset: 5, ContentSize: 6, SpecID: 1}
	full := &scantask.Task{Path: "/w/a.parquet", FilePath: "s3://b/w/a.parquet", Format: scantask.Parquet,
		FileSize: 100, RecordCount: 10, RowGroups: []int32{0, 2}, Start: 4, Length: 50,
		Constants: []*scantask.PartitionConstant{{FieldID: 3, Value: []byte{1}}, {FieldID: 4}}, SpecID: 1,
		DataSequenceNumber: 7, FileSequenceNumber: 8, FirstRowID: &first, Deletes: []*scantask.DeleteFile{del},
		PartitionJSON: `{"k":1}`, Residual: shared}
	// File is the planner's for front ends that describe files in full
	// (REST scan planning); a ticket never carries it.
	offWire := map[string]bool{"File": true}
	if v := reflect.ValueOf(*full); true {
		for i := range v.NumField() {
			if v.Field(i).IsZero() && !offWire[v.Type().Field(i).Name] {
				t.Fatalf("the test task leaves %s unset: set it so that the test checks it", v.Type().Field(i).Name)
			}
		}
	}
	tasks := []*scantask.Task{full,
		{Path: "/w/b.parquet", Format: scantask.Parquet, Residual: shared},
		{Path: "/w/c.parquet", Format: scantask.Avro, Residual: equal},
		{Path: "/w/d/e.parquet", Format: scantask.ORC, Residual: other},
		{Path: "/w/f.parquet", Format: scantask.Parquet}}
	tk := new(iceflightv1.Ticket)
	if err := encodeTasks(tk, tasks); err != nil {
		t.Fatal(err)
	}
	if len(tk.Residuals) != 2 || tk.PathPrefix != "/w/" {
		t.Fatalf("%d residuals under prefix %q, want 2 under /w/", len(tk.Residuals), tk.PathPrefix)
	}
	for i, want := range []int32{1, 1, 1, 2, 0} {
		if got := tk.Tasks[i].ResidualIndex; got != want || tk.Tasks[i].ResidualJson != "" {
			t.Fatalf("task %d names residual %d (own %q), want %d", i, got, tk.Tasks[i].ResidualJson, want)
		}
	}
	got, err := decodeTasks(tk)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Residual != got[1].Residual || got[0].Residual != got[2].Residual || got[3].Residual == got[0].Residual || got[4].Residual != nil {
		t.Fatal("decoded tasks do not share the residuals the ticket sends once")
	}
	for i, task := range got {
		want := *tasks[i]
		if (task.Residual == nil) != (want.Residual == nil) || task.Residual != nil && task.Residual.Expr.String() != want.Residual.Expr.String() {
			t.Fatalf("task %d: residual %v, want %v", i, task.Residual, want.Residual)
		}
		gotTask := *task
		gotTask.Residual, want.Residual = nil, nil
		if !reflect.DeepEqual(gotTask, want) {
			t.Fatalf("task %d:\n got %+v\nwant %+v", i, gotTask, want)
		}
	}
}

// A ticket of another format (one signed by an older release has no
// version) is refused with a message that says so, even when its
// signature holds: it is never read as if it were this format.
func TestATicketOfAnotherFormatIsRefused(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	for _, tc := range []struct {
		version uint32
		unit    []byte
	}{
		{0, nil}, {1, nil}, {TicketVersion, nil}, {TicketVersion + 1, nil},
		// A release that reads only format 2 would stream a unit's ticket
		// as no tasks: it is signed as format 3, and format 2 with a unit is
		// refused too.
		{taskTicketVersion, []byte(`{"kind":"files"}`)},
	} {
		version := tc.version
		payload, err := proto.Marshal(&iceflightv1.Ticket{Version: version, Table: "db.t", MetadataUnit: tc.unit, ExpiresAtUnixMs: time.Now().Add(time.Hour).UnixMilli()})
		if err != nil {
			t.Fatal(err)
		}
		b, err := proto.Marshal(&iceflightv1.SignedTicket{Payload: payload, KeyId: s.keyID, Mac: s.mac(s.keys[s.keyID], s.keyID, payload)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Verify(b)
		if !errors.Is(err, ErrTicketInvalid) || !strings.Contains(err.Error(), "another release") {
			t.Fatalf("a version %d ticket: %v, want %v saying it comes from another release", version, err, ErrTicketInvalid)
		}
	}
}
