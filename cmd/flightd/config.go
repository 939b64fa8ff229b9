package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/iceflight/iceflight/fileio"
)

// fileConfig is the --config file of "flightd serve": its catalogs, by
// the property names PyIceberg's .pyiceberg.yaml uses, and optionally the
// serve flags by name.
type fileConfig struct {
	// Catalogs are mounted under their names: a table is
	// <catalog>.<namespace>.<table>. A catalog's properties are kept
	// whatever their names (PyIceberg files carry many); values may be
	// nested maps, whose keys join with "." ("s3: {endpoint: x}" is
	// "s3.endpoint").
	Catalogs map[string]map[string]any `yaml:"catalogs"`
	// Serve sets serve flags by their names ("listen", "ticket-keys"); a
	// flag given on the command line wins.
	Serve map[string]any `yaml:"serve"`
}

// envPrefix starts the environment variables that set catalog properties,
// as PYICEBERG_CATALOG__ does for PyIceberg: ICEFLIGHT_CATALOG__LAKE__S3__ENDPOINT
// is the property s3.endpoint of catalog lake.
const envPrefix = "ICEFLIGHT_CATALOG__"

// config is what the file and the environment configure.
type config struct {
	catalogs map[string]fileio.Properties
	serve    map[string]string
}

// loadConfig reads the config file at path ("" for none) and then the
// environment, whose catalog properties win over the file's, as with
// PyIceberg; secrets are then read from where their values point. Errors
// name the file, key or variable, never a value.
func loadConfig(path string, environ []string) (*config, error) {
	cfg := &config{catalogs: map[string]fileio.Properties{}, serve: map[string]string{}}
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		var fc fileConfig
		if err := yaml.UnmarshalWithOptions(raw, &fc, yaml.DisallowUnknownField()); err != nil {
			// Without its source excerpt: the line may hold a secret.
			return nil, fmt.Errorf("config %s: %s", path, yaml.FormatError(err, false, false))
		}
		for name, props := range fc.Catalogs {
			flat := fileio.Properties{}
			if err := flatten(flat, "", props); err != nil {
				return nil, fmt.Errorf("config %s: catalog %s: %w", path, name, err)
			}
			cfg.catalogs[name] = flat
		}
		for name, v := range fc.Serve {
			s, err := scalar(v)
			if err != nil {
				return nil, fmt.Errorf("config %s: serve.%s: %w", path, name, err)
			}
			cfg.serve[name] = s
		}
	}
	for _, kv := range environ {
		name, prop, value, ok := envProperty(kv)
		if !ok {
			continue
		}
		if cfg.catalogs[name] == nil {
			cfg.catalogs[name] = fileio.Properties{}
		}
		cfg.catalogs[name][prop] = value
	}
	for name, props := range cfg.catalogs {
		for k, v := range props {
			resolved, err := resolveSecret(v)
			if err != nil {
				return nil, fmt.Errorf("config: catalog %s: %s: %w", name, k, err)
			}
			props[k] = resolved
		}
	}
	return cfg, nil
}

// flatten adds the properties of a YAML mapping to out, nested keys joined
// with ".".
func flatten(out fileio.Properties, prefix string, m map[string]any) error {
	for k, v := range m {
		key := prefix + k
		if sub, ok := v.(map[string]any); ok {
			if err := flatten(out, key+".", sub); err != nil {
				return err
			}
			continue
		}
		s, err := scalar(v)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		out[key] = s
	}
	return nil
}

// scalar spells a YAML scalar as a property value: true, 8181, "x".
func scalar(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case uint64, int64, int, float64:
		return fmt.Sprint(v), nil
	case nil:
		return "", nil
	}
	return "", errors.New("want a string, number or boolean")
}

// envProperty reads one environment entry "ICEFLIGHT_CATALOG__<NAME>__<PROP>=value"
// as PyIceberg reads PYICEBERG_CATALOG__...: names are lower case, "__"
// in PROP stands for "." and "_" for "-" (ICEFLIGHT_CATALOG__LAKE__S3__ACCESS_KEY_ID
// is s3.access-key-id of catalog lake).
func envProperty(kv string) (catalog, prop, value string, ok bool) {
	key, value, ok := strings.Cut(kv, "=")
	if !ok || !strings.HasPrefix(key, envPrefix) {
		return "", "", "", false
	}
	name, rest, ok := strings.Cut(strings.ToLower(key[len(envPrefix):]), "__")
	if !ok || name == "" || rest == "" {
		return "", "", "", false
	}
	return name, strings.ReplaceAll(strings.ReplaceAll(rest, "__", "."), "_", "-"), value, true
}

// secretRef is a reference to a secret kept outside the config file:
// ${env:NAME} or ${file:/path}.
var secretRef = regexp.MustCompile(`\$\{(env|file):([^}]*)\}`)

// resolveSecret replaces every ${env:NAME} in v by the variable's value
// and every ${file:/path} by the file's contents without its final line
// break, so that a secret need not be written in the config file. A
// variable that is not set, or a file that cannot be read, is an error
// naming it.
func resolveSecret(v string) (string, error) {
	var err error
	out := secretRef.ReplaceAllStringFunc(v, func(ref string) string {
		m := secretRef.FindStringSubmatch(ref)
		switch m[1] {
		case "env":
			val, ok := os.LookupEnv(m[2])
			if !ok && err == nil {
				err = fmt.Errorf("environment variable %s is not set", m[2])
			}
			return val
		default:
			b, rerr := os.ReadFile(m[2])
			if rerr != nil && err == nil {
				err = fmt.Errorf("secret file: %w", rerr)
			}
			return strings.TrimRight(string(b), "\r\n")
		}
	})
	return out, err
}

// applyServe sets each flag the config file's serve section names, unless
// the command line set it; a name that is no flag is an error naming it.
func applyServe(fs *flag.FlagSet, serve map[string]string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var unknown []string
	for _, name := range slices.Sorted(maps.Keys(serve)) {
		f := fs.Lookup(name)
		if f == nil || name == "config" {
			unknown = append(unknown, name)
			continue
		}
		if given[name] {
			continue
		}
		if err := fs.Set(name, serve[name]); err != nil {
			return usageError{fmt.Sprintf("config: serve.%s: %v", name, err)}
		}
	}
	if len(unknown) > 0 {
		return usageError{fmt.Sprintf("config: serve: unknown flags %s (see flightd serve -h)", strings.Join(unknown, ", "))}
	}
	return nil
}
