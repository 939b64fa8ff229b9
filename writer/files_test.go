package writer

import "testing"

// Expected hashes are PyIceberg's (tests/table/test_locations.py), which
// match Java's ObjectStoreLocationProvider.
func TestEntropyDirsAsJavaAndPyIceberg(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"a":            "0101/0110/1001/10110010",
		"b":            "1110/0111/1110/00000011",
		"c":            "0010/1101/0110/01011111",
		"d":            "1001/0001/0100/01110011",
		"test.parquet": "0110/1010/0011/11101000",
	} {
		if got := entropyDirs(name); got != want {
			t.Errorf("entropyDirs(%q) = %s, want %s", name, got, want)
		}
	}
}
