// Package bench runs grids of solves (backends × datasets × depths ×
// repeats), one isolated process per run, and turns their results into
// tables, cross-checks and anytime pictures. It backs `odt bench`.
package bench

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit/model"
)

// Cell is one run of the grid.
type Cell struct {
	Dataset string `json:"dataset"` // the data file as given
	Backend string `json:"backend"`
	Depth   int    `json:"depth"`
	Repeat  int    `json:"repeat"` // 1-based
	// Index is the cell's position in the whole grid (0-based): shards
	// keep it, so merged shards list their runs, and their tables their
	// backends, in the order of the unsharded grid.
	Index int `json:"cell"`
	// Protocol is "" for a plain run on all rows, else "split 50/25/25"
	// or "cv 5": the run trains on the rows of a split file (Split) for
	// seed Seed (and, for cross-validation, tests on fold Fold, 1-based).
	// Tuned runs tune over a grid (Depth is then 0).
	Protocol string `json:"protocol,omitempty"`
	Seed     int64  `json:"seed,omitempty"`
	Fold     int    `json:"fold,omitempty"`
	Tuned    bool   `json:"tuned,omitempty"`
	Split    string `json:"split,omitempty"`
	// Threads is the --threads the run's solve is given (0: none given,
	// the solve's default).
	Threads int `json:"threads"`
	// Config names the configuration the cell runs ("" when it runs a
	// backend as listed by --backends); Options are its --opt values
	// (key=value, in the order given) and ObjectiveName the objective the
	// solve is asked for (error, min-depth, min-size, min-nodes, diagram; "" = the
	// backend's main one).
	Config        string   `json:"config,omitempty"`
	Options       []string `json:"options,omitempty"`
	ObjectiveName string   `json:"objective_name,omitempty"`
	// Label names the data file in tables, pictures and file names: the
	// shortest suffix of its path that tells it from the grid's other
	// files (Labels); "" for its base name.
	Label string `json:"label,omitempty"`
}

// NoDepth is the Depth of a cell whose solve is given no --depth: the
// objective's own default applies (no cap for min-depth, min-size and min-nodes; a
// diagram's skeleton fixes its depth).
const NoDepth = model.NoDepthLimit

// Config is a named configuration: a backend with options of its own,
// and optionally an objective, run as one series of the grid beside the
// others (two option sets of one backend are two columns of every table).
type Config struct {
	Name, Backend, Objective string
	Options                  []string
}

// ParseConfig reads NAME=BACKEND[:key=value,...]: the key objective sets
// the configuration's objective, every other key=value becomes an --opt
// of its solves. See CheckConfigName for the names allowed.
func ParseConfig(s string) (Config, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || rest == "" {
		return Config{}, fmt.Errorf("%q: want NAME=BACKEND[:key=value,...]", s)
	}
	if err := CheckConfigName(name); err != nil {
		return Config{}, err
	}
	c := Config{Name: name}
	backendName, opts, _ := strings.Cut(rest, ":")
	if c.Backend = strings.TrimSpace(backendName); c.Backend == "" {
		return Config{}, fmt.Errorf("configuration %s: no backend", name)
	}
	if opts == "" {
		return c, nil
	}
	for _, kv := range strings.Split(opts, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return Config{}, fmt.Errorf("configuration %s: option %q is not key=value", name, kv)
		}
		if k == "objective" {
			c.Objective = v
			continue
		}
		c.Options = append(c.Options, k+"="+v)
	}
	return c, nil
}

// CheckConfigName refuses a configuration name that is empty, that is
// not made of letters, digits, '-', '_' and '.' (a name becomes part of
// file names and of comma-separated lists), that is "." or ".." (a
// folder), or that is the virtual best solver's (VBS, in any case).
func CheckConfigName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("configuration name is empty: want NAME=BACKEND[:key=value,...]")
	case fileSafe(name) != name:
		return fmt.Errorf("configuration name %q: use letters, digits, '-', '_' and '.' (no path separator, comma or space)", name)
	case strings.Trim(name, ".") == "":
		return fmt.Errorf("configuration name %q: names a folder; choose another", name)
	case strings.EqualFold(name, VBS):
		return fmt.Errorf("configuration name %q: %s names the virtual best solver's rows; choose another", name, VBS)
	}
	return nil
}

// ApplyConfigs turns the cells whose Backend names a configuration into
// runs of that configuration: its backend, options and objective.
func ApplyConfigs(cells []Cell, configs []Config) []Cell {
	by := map[string]Config{}
	for _, c := range configs {
		by[c.Name] = c
	}
	for i, c := range cells {
		if cf, ok := by[c.Backend]; ok {
			c.Config, c.Backend, c.Options = cf.Name, cf.Backend, cf.Options
			if cf.Objective != "" {
				c.ObjectiveName = cf.Objective
			}
			cells[i] = c
		}
	}
	return cells
}

// Key identifies a cell across shards and merges.
func (c Cell) Key() string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s\x00%d\x00%d\x00%d\x00%s\x00%s", c.Dataset, c.Backend, c.Depth, c.Repeat, c.Protocol, c.Seed, c.Fold, c.Threads, c.Config, c.ObjectiveName)
}

// Series names the cell's line in tables and pictures: the backend, or
// its configuration's name, with its thread count when the grid has a
// --threads dimension ("dl85 t2").
func (c Cell) Series() string {
	name := c.Backend
	if c.Config != "" {
		name = c.Config
	}
	if c.Threads > 0 {
		return name + " t" + strconv.Itoa(c.Threads)
	}
	return name
}

// solveArgs are the arguments of the cell's odt solve that state the
// problem and the backend: backend, depth (unless NoDepth), objective and
// the configuration's options.
func (c Cell) solveArgs() []string {
	args := []string{"solve", "--backend", c.Backend}
	if c.Depth != NoDepth {
		args = append(args, "--depth", strconv.Itoa(c.Depth))
	}
	if c.ObjectiveName != "" {
		args = append(args, "--objective", c.ObjectiveName)
	}
	for _, o := range c.Options {
		args = append(args, "--opt", o)
	}
	return args
}

// depthText is the cell's depth as tables show it ("-" for NoDepth).
func depthText(depth int) string {
	if depth == NoDepth {
		return "-"
	}
	return strconv.Itoa(depth)
}

// WithThreads makes the thread counts a grid dimension: each cell becomes
// one cell per count (in the order given, innermost), renumbered in grid
// order. No counts leave the grid as it is.
func WithThreads(cells []Cell, threads []int) []Cell {
	if len(threads) == 0 {
		return cells
	}
	out := make([]Cell, 0, len(cells)*len(threads))
	for _, c := range cells {
		for _, n := range threads {
			c.Threads, c.Index = n, len(out)
			out = append(out, c)
		}
	}
	return out
}

// ParseThreads reads a --threads list: distinct whole numbers of at
// least 1.
func ParseThreads(s string) ([]int, error) {
	ts, err := ParseInts(s)
	if err != nil {
		return nil, err
	}
	for i, n := range ts {
		if n < 1 {
			return nil, fmt.Errorf("%d threads: want at least 1", n)
		}
		if slices.Contains(ts[:i], n) {
			return nil, fmt.Errorf("%d is listed twice", n)
		}
	}
	return ts, nil
}

// Name is the short dataset name used in tables and pictures: the
// cell's Label (see Labels), or without one the file name without folder
// and extension.
func (c Cell) Name() string {
	if c.Label != "" {
		return c.Label
	}
	return DatasetName(c.Dataset)
}

// Labels names each data file of paths by the shortest suffix of its
// path that no other file of paths ends with, the extension left out:
// "vote" alone, "sa/d" and "sb/d" for sa/d.csv and sb/d.csv, "d.csv" and
// "d.txt" for two files that differ only in it. Paths that clean to the
// same path are one file, with one label.
func Labels(paths []string) map[string]string {
	type file struct {
		clean string
		parts []string
	}
	var files []file
	seen := map[string]bool{}
	for _, p := range paths {
		c := filepath.ToSlash(filepath.Clean(p))
		if !seen[c] {
			seen[c] = true
			files = append(files, file{c, strings.Split(strings.TrimPrefix(c, "/"), "/")})
		}
	}
	suffix := func(parts []string, k int) string {
		s := slices.Clone(parts[len(parts)-min(k, len(parts)):])
		last := s[len(s)-1]
		s[len(s)-1] = strings.TrimSuffix(last, path.Ext(last))
		return strings.Join(s, "/")
	}
	byClean := map[string]string{}
	used := map[string]int{}
	for i, f := range files {
		label := f.clean
		for k := 1; k <= len(f.parts); k++ {
			l := suffix(f.parts, k)
			clash := false
			for j, o := range files {
				if j != i && suffix(o.parts, k) == l {
					clash = true
					break
				}
			}
			if !clash {
				label = l
				break
			}
		}
		byClean[f.clean] = label
		used[label]++
	}
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		c := filepath.ToSlash(filepath.Clean(p))
		if l := byClean[c]; used[l] == 1 {
			out[p] = l
		} else {
			out[p] = c // (a suffix one file has and another's whole path is)
		}
	}
	return out
}

// LabelCells sets every cell's Label from the data files of the cells
// (see Labels); a grid is labelled whole, before it is sharded, so that
// every shard names a file alike.
func LabelCells(cells []Cell) {
	paths := make([]string, len(cells))
	for i, c := range cells {
		paths[i] = c.Dataset
	}
	labels := Labels(paths)
	for i := range cells {
		cells[i].Label = labels[cells[i].Dataset]
	}
}

// DatasetName strips folder and extension from a data file path.
func DatasetName(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// Grid lists every combination in a fixed order: dataset, depth, backend,
// repeat. The order does not depend on anything but the arguments, so
// every shard of a grid computes the same list.
func Grid(datasets, backends []string, depths []int, repeat int) []Cell {
	var cells []Cell
	for _, d := range datasets {
		for _, k := range depths {
			for _, b := range backends {
				for r := 1; r <= max(repeat, 1); r++ {
					cells = append(cells, Cell{Dataset: d, Backend: b, Depth: k, Repeat: r, Index: len(cells)})
				}
			}
		}
	}
	return cells
}

// where describes the cell's depth and repeat, or seed and fold.
func (c Cell) where() string {
	depth := fmt.Sprintf("depth %d", c.Depth)
	if c.Depth < 0 {
		depth = "no depth limit" // model.NoDepthLimit: a diagram's skeleton
	}
	if c.Protocol == "" {
		return fmt.Sprintf("%s run %d", depth, c.Repeat)
	}
	s := fmt.Sprintf("seed %d", c.Seed)
	if c.Fold > 0 {
		s += fmt.Sprintf(" fold %d", c.Fold)
	}
	if c.Tuned {
		return "tuned, " + s
	}
	return fmt.Sprintf("%s, %s", depth, s)
}

// ProtocolGrid lists the cells of a learning protocol in a fixed order:
// dataset, depth, backend, seed, fold. folds is 0 for a split protocol
// (one cell per seed) or K for K-fold cross-validation (K cells per
// seed). Tuned grids have a single depth 0: the depths are tuned over.
func ProtocolGrid(datasets, backends []string, depths []int, seeds []int64, folds int, protocol string, tuned bool) []Cell {
	if tuned {
		depths = []int{0}
	}
	var cells []Cell
	for _, d := range datasets {
		for _, k := range depths {
			for _, b := range backends {
				for _, s := range seeds {
					for f := range max(folds, 1) {
						c := Cell{Dataset: d, Backend: b, Depth: k, Repeat: 1, Index: len(cells), Protocol: protocol, Seed: s, Tuned: tuned}
						if folds > 0 {
							c.Fold = f + 1
						}
						cells = append(cells, c)
					}
				}
			}
		}
	}
	return cells
}

// Shard returns the i-th (1-based) of n deterministic slices of cells:
// the cells whose position modulo n is i−1, so slices are balanced and
// together cover the grid exactly once.
func Shard(cells []Cell, i, n int) []Cell {
	var out []Cell
	for j, c := range cells {
		if j%n == i-1 {
			out = append(out, c)
		}
	}
	return out
}

// ParseShard reads "I/N" with 1 <= I <= N.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("shard %q: want I/N with 1 <= I <= N, e.g. 2/5", s)
	}
	return i, n, nil
}

// ParseInts reads a comma-separated list of non-negative integers.
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%q is not a non-negative integer", f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty list")
	}
	return out, nil
}

// ParseList reads a comma-separated list of names.
func ParseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// SeedOf is the seed the cell's solve runs with: the protocol's seed, or
// the repeat number.
func (c Cell) SeedOf() int64 {
	if c.Protocol != "" {
		return c.Seed
	}
	return int64(c.Repeat)
}

// WithObjectives makes the objectives a grid dimension: each cell becomes
// one cell per listed objective its backend solves (accepts), in the
// order listed, renumbered in grid order. A configuration that names its
// own objective keeps it. No objectives leave the grid as it is; a
// backend that solves none of them is an error naming it.
func WithObjectives(cells []Cell, objectives []string, accepts func(backend, objective string) bool) ([]Cell, error) {
	if len(objectives) == 0 {
		return cells, nil
	}
	out := make([]Cell, 0, len(cells)*len(objectives))
	for _, c := range cells {
		if c.Config != "" && c.ObjectiveName != "" {
			c.Index = len(out)
			out = append(out, c)
			continue
		}
		n := 0
		for _, o := range objectives {
			if accepts(c.Backend, o) {
				c.ObjectiveName, c.Index = o, len(out)
				out = append(out, c)
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("backend %s solves none of the objectives %s", c.Series(), strings.Join(objectives, ", "))
		}
	}
	return out, nil
}
