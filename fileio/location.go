package fileio

import "strings"

// CleanLocation returns location with its path cleaned ("." and ".."
// segments resolved, duplicate and trailing slashes dropped) and its
// scheme and authority kept as written, or false for a relative location.
// Local spellings stay as they are given ("/a", "file:/a").
func CleanLocation(location string) (string, bool) {
	loc, ok := splitLocation(location)
	if !ok || loc.relative() {
		return "", false
	}
	scheme := Scheme(location)
	if scheme == "" {
		return loc.path, true
	}
	rest := location[len(scheme)+1:]
	if strings.HasPrefix(rest, "//") {
		authority, _, _ := strings.Cut(rest[2:], "/")
		return location[:len(scheme)+3+len(authority)] + strings.TrimSuffix(loc.path, "/"), true
	}
	return location[:len(scheme)+1] + loc.path, true
}

// Under reports whether location lies at or below the folder dir: the same
// scheme and authority (a local path in any spelling matches a local path
// in any other) and, after cleaning, a path that dir's path is a prefix of
// at a segment boundary ("s3://b/wh/t" is under "s3://b/wh", never
// "s3://b/wh2/t" nor "s3://c/wh/t"). Relative locations are under nothing.
// On storage without symlinks this is all confinement needs: where a key
// is named is where it is.
func Under(location, dir string) bool {
	loc, ok := splitLocation(location)
	if !ok || loc.relative() {
		return false
	}
	d, ok := splitLocation(dir)
	if !ok || d.relative() {
		return false
	}
	if loc.scheme != d.scheme || !strings.EqualFold(loc.authority, d.authority) {
		return false
	}
	return underPath(loc.path, d.path)
}
