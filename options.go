package odtkit

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Options are a backend's own settings as key=value text, as given on the
// command line (`--opt rule=gain`). Each backend lists the keys it knows
// in its Info; the selector rejects unknown keys.
type Options map[string]string

// String returns the value of key, or def when it is not set.
func (o Options) String(key, def string) string {
	if v, ok := o[key]; ok {
		return v
	}
	return def
}

// Int parses key as an integer, def when not set.
func (o Options) Int(key string, def int) (int, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, Invalid(fmt.Errorf("option %s=%q: not an integer", key, v))
	}
	return i, nil
}

// Float parses key as a number, def when not set.
func (o Options) Float(key string, def float64) (float64, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, Invalid(fmt.Errorf("option %s=%q: not a number", key, v))
	}
	return f, nil
}

// Bool parses key as a Boolean (true/false/1/0/yes/no/on/off), def when not set.
func (o Options) Bool(key string, def bool) (bool, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on", "":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, Invalid(fmt.Errorf("option %s=%q: not a Boolean (true/false)", key, v))
}

// Duration parses key as a Go duration ("10s"), def when not set.
func (o Options) Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return 0, Invalid(fmt.Errorf("option %s=%q: not a duration (e.g. 10s)", key, v))
	}
	return d, nil
}

// check rejects keys the backend does not declare.
func (o Options) check(info Info) error {
	known := map[string]bool{}
	for _, p := range info.Params {
		known[p.Name] = true
	}
	var bad []string
	for k := range o {
		if !known[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	var names []string
	for _, p := range info.Params {
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("backend %s takes no options, got %s", info.Name, strings.Join(bad, ", "))
	}
	return fmt.Errorf("backend %s has no option %s (it knows: %s)", info.Name, strings.Join(bad, ", "), strings.Join(names, ", "))
}
