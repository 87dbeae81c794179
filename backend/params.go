package backend

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a backend option's value.
type Kind int

// The kinds of option values.
const (
	// Bool is true, false, 1, 0, yes, no, on or off (empty: true).
	Bool Kind = iota + 1
	// Int is a whole number within the Param's bounds.
	Int
	// Float is a finite number within the Param's bounds.
	Float
	// Enum is one of the Param's Values.
	Enum
	// String is any text the Param's Check (if any) accepts.
	String
	// Duration is a Go duration of at least 0, such as 500ms or 2m.
	Duration
)

func (k Kind) String() string {
	switch k {
	case Bool:
		return "bool"
	case Int:
		return "int"
	case Float:
		return "float"
	case Enum:
		return "enum"
	case String:
		return "string"
	case Duration:
		return "duration"
	}
	return "?"
}

// Param declares one backend option: its kind, its default (written once,
// here), its allowed values or range, and a help text.
type Param struct {
	Name string
	Kind Kind
	// Default is the value used when the option is not given, in the
	// option's text form. An empty Default on a non-string kind means
	// "unset": the backend decides (DefaultText says what it does).
	Default string
	// DefaultText, when set, is shown instead of Default (e.g. "rule's").
	DefaultText string
	// Values are the allowed values of an Enum.
	Values []string
	// Min and Max bound Int and Float values when HasMin / HasMax;
	// MinOpen makes the lower bound strict (value > Min).
	Min, Max       float64
	HasMin, HasMax bool
	MinOpen        bool
	// Check, when set, validates the value further (e.g. a solver spec).
	Check func(string) error
	Help  string
	// Respelled are old spellings of this option's values that are still
	// taken, for one release, as another option's: old value → the
	// "key=value" it now is (see Renamed and Info.Respell).
	Respelled map[string]string
}

// Renamed declares that value, an old spelling of this option, is now
// spelled now ("key=value", another option's): it is still taken, read
// as now, with a deprecation note (Info.Respell). The old value is not
// among the option's Values.
func (p Param) Renamed(value, now string) Param {
	m := make(map[string]string, len(p.Respelled)+1)
	for k, v := range p.Respelled {
		m[k] = v
	}
	m[value] = now
	p.Respelled = m
	return p
}

// BoolParam declares a Boolean option.
func BoolParam(name string, def bool, help string) Param {
	return Param{Name: name, Kind: Bool, Default: strconv.FormatBool(def), Help: help}
}

// IntParam declares an integer option.
func IntParam(name string, def int, help string) Param {
	return Param{Name: name, Kind: Int, Default: strconv.Itoa(def), Help: help}
}

// FloatParam declares a real-valued option.
func FloatParam(name string, def float64, help string) Param {
	return Param{Name: name, Kind: Float, Default: strconv.FormatFloat(def, 'g', -1, 64), Help: help}
}

// EnumParam declares an option taking one of values.
func EnumParam(name, def string, values []string, help string) Param {
	return Param{Name: name, Kind: Enum, Default: def, Values: values, Help: help}
}

// StringParam declares a free-text option.
func StringParam(name, def, help string) Param {
	return Param{Name: name, Kind: String, Default: def, Help: help}
}

// AtLeast bounds the value below (inclusive).
func (p Param) AtLeast(v float64) Param { p.Min, p.HasMin, p.MinOpen = v, true, false; return p }

// Above bounds the value below (exclusive).
func (p Param) Above(v float64) Param { p.Min, p.HasMin, p.MinOpen = v, true, true; return p }

// AtMost bounds the value above (inclusive).
func (p Param) AtMost(v float64) Param { p.Max, p.HasMax = v, true; return p }

// Unset makes the default "unset", shown as text.
func (p Param) Unset(text string) Param { p.Default, p.DefaultText = "", text; return p }

// Checked adds a further validation of the value's text.
func (p Param) Checked(f func(string) error) Param { p.Check = f; return p }

// ShownDefault is the default as `odt backends` shows it.
func (p Param) ShownDefault() string {
	if p.DefaultText != "" {
		return p.DefaultText
	}
	return p.Default
}

// Allowed describes the values the option takes, for messages and listings.
func (p Param) Allowed() string {
	switch p.Kind {
	case Bool:
		return "true or false"
	case Enum:
		s := "one of " + strings.Join(p.Values, ", ")
		if len(p.Respelled) > 0 {
			old := make([]string, 0, len(p.Respelled))
			for v := range p.Respelled {
				old = append(old, v)
			}
			sort.Strings(old)
			s += " (old spellings still taken: " + strings.Join(old, ", ") + ")"
		}
		return s
	case Duration:
		return "a duration such as 10s"
	case String:
		return "text"
	}
	what := "an integer"
	if p.Kind == Float {
		what = "a number"
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch {
	case p.HasMin && p.MinOpen && p.HasMax:
		return fmt.Sprintf("%s above %s and at most %s", what, num(p.Min), num(p.Max))
	case p.HasMin && p.HasMax:
		return fmt.Sprintf("%s from %s to %s", what, num(p.Min), num(p.Max))
	case p.HasMin && p.MinOpen:
		return fmt.Sprintf("%s above %s", what, num(p.Min))
	case p.HasMin:
		return fmt.Sprintf("%s of at least %s", what, num(p.Min))
	case p.HasMax:
		return fmt.Sprintf("%s of at most %s", what, num(p.Max))
	}
	return what
}

// parse converts one value's text, checking kind, values and range.
func (p Param) parse(text string) (any, error) {
	s := strings.TrimSpace(text)
	bad := func() error { return fmt.Errorf("option %s=%q: want %s", p.Name, text, p.Allowed()) }
	var v any
	switch p.Kind {
	case Bool:
		switch strings.ToLower(s) {
		case "1", "true", "yes", "on", "":
			v = true
		case "0", "false", "no", "off":
			v = false
		default:
			return nil, bad()
		}
	case Int:
		i, err := strconv.Atoi(s)
		if err != nil || !p.inRange(float64(i)) {
			return nil, bad()
		}
		v = i
	case Float:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !p.inRange(f) {
			return nil, bad()
		}
		v = f
	case Enum:
		for _, a := range p.Values {
			if s == a {
				v = s
			}
		}
		if v == nil {
			return nil, bad()
		}
	case Duration:
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return nil, bad()
		}
		v = d
	default:
		v = text
	}
	if p.Check != nil {
		if err := p.Check(text); err != nil {
			return nil, fmt.Errorf("option %s=%q: %w", p.Name, text, err)
		}
	}
	return v, nil
}

func (p Param) inRange(x float64) bool {
	if p.HasMin && (x < p.Min || p.MinOpen && x == p.Min) {
		return false
	}
	return !p.HasMax || x <= p.Max
}

// Values are a backend's validated options: every declared parameter has
// a typed value (its default when not given), unless its default is unset.
type Values struct {
	vals map[string]any
	set  map[string]bool
}

// Respell rewrites the deprecated spellings among raw options (declared
// by Param.Renamed) to their new spelling, and returns the options to
// parse with one note per old spelling for the user (the caller shows
// them; a backend never prints). raw itself is not changed. An old
// spelling given beside another value of its new key is left as it is
// (Parse refuses it).
func (i Info) Respell(raw map[string]string) (map[string]string, []string) {
	out, notes, _ := i.respell(raw)
	return out, notes
}

func (i Info) respell(raw map[string]string) (map[string]string, []string, error) {
	var notes []string
	var out map[string]string
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := i.Param(k)
		if !ok {
			continue
		}
		old := strings.TrimSpace(raw[k])
		now, ok := p.Respelled[old]
		if !ok {
			continue
		}
		nk, nv, _ := strings.Cut(now, "=")
		if given, ok := raw[nk]; ok && nk != k && strings.TrimSpace(given) != nv {
			return raw, notes, Invalidf("%s: option %s=%s is the old spelling of %s, and option %s=%q is given too", i.Name, k, old, now, nk, given)
		}
		if out == nil {
			out = make(map[string]string, len(raw))
			for k, v := range raw {
				out[k] = v
			}
		}
		if nk != k {
			delete(out, k)
		}
		out[nk] = nv
		takes := ""
		if len(p.Values) > 0 {
			takes = fmt.Sprintf(" (%s now takes %s)", k, strings.Join(p.Values, " or "))
		}
		notes = append(notes, fmt.Sprintf("%s: option %s=%s is deprecated, now spelled %s%s; the old spelling is taken until the next release",
			i.Name, k, old, now, takes))
	}
	if out == nil {
		return raw, notes, nil
	}
	return out, notes, nil
}

// Parse validates raw key=value options against the declared parameters:
// unknown keys, values of the wrong kind, out of range or not among an
// enum's values are refused with ErrInvalid and a one-line message naming
// the option and what it takes. Defaults fill the options not given.
//
// Old spellings declared by Param.Renamed are read as their new ones
// (Respell).
func (i Info) Parse(raw map[string]string) (Values, error) {
	v := Values{vals: map[string]any{}, set: map[string]bool{}}
	raw, _, err := i.respell(raw)
	if err != nil {
		return v, err
	}
	var unknown []string
	for k := range raw {
		if _, ok := i.Param(k); !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		var names []string
		for _, p := range i.Params {
			names = append(names, p.Name)
		}
		if len(names) == 0 {
			return v, Invalidf("backend %s takes no options, got %s", i.Name, strings.Join(unknown, ", "))
		}
		return v, Invalidf("backend %s has no option %s (it knows: %s)", i.Name, strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	for _, p := range i.Params {
		text, given := raw[p.Name]
		if !given {
			if p.Default == "" && p.Kind != String {
				continue
			}
			text = p.Default
		}
		x, err := p.parse(text)
		if err != nil {
			if !given {
				panic(fmt.Sprintf("backend %s: default of option %s: %v", i.Name, p.Name, err)) // a programming error
			}
			return v, Invalidf("%s: %w", i.Name, err)
		}
		v.vals[p.Name], v.set[p.Name] = x, given
	}
	return v, nil
}

// Defaults returns the values of info's options when none is given.
func (i Info) Defaults() Values {
	v, err := i.Parse(nil)
	if err != nil {
		panic(err) // defaults are checked by the conformance suite
	}
	return v
}

// IsSet reports whether the option was given (not defaulted).
func (v Values) IsSet(name string) bool { return v.set[name] }

// Has reports whether the option has a value (given, or a default).
func (v Values) Has(name string) bool { _, ok := v.vals[name]; return ok }

func get[T any](v Values, name string) T {
	x, ok := v.vals[name]
	if !ok {
		var zero T
		return zero
	}
	return x.(T)
}

// Bool returns a Bool option's value.
func (v Values) Bool(name string) bool { return get[bool](v, name) }

// Int returns an Int option's value.
func (v Values) Int(name string) int { return get[int](v, name) }

// Float returns a Float option's value.
func (v Values) Float(name string) float64 { return get[float64](v, name) }

// String returns an Enum or String option's value.
func (v Values) String(name string) string { return get[string](v, name) }

// Duration returns a Duration option's value.
func (v Values) Duration(name string) time.Duration { return get[time.Duration](v, name) }

// Raw returns the options that were given, as text (for headers and logs).
// All returns every option that has a value (given, or a default) as
// text, as Raw does for the given ones.
func (v Values) All() map[string]string {
	out := map[string]string{}
	for k, x := range v.vals {
		out[k] = fmt.Sprint(x)
	}
	return out
}

func (v Values) Raw() map[string]string {
	out := map[string]string{}
	for k, given := range v.set {
		if given {
			out[k] = fmt.Sprint(v.vals[k])
		}
	}
	return out
}
