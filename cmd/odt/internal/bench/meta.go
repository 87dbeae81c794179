package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MetaFile is the name of the settings record in an output folder.
const MetaFile = "meta.json"

// Meta records the setting of a bench run beside its results, so that a
// reader can tell whether two result folders are comparable.
type Meta struct {
	// Machine: the host's architecture, CPU model, logical cores, memory
	// and operating system.
	Arch     string  `json:"arch"`
	CPUModel string  `json:"cpu_model,omitempty"`
	Cores    int     `json:"cores"`
	MemoryMB float64 `json:"memory_mb,omitempty"`
	OS       string  `json:"os"`
	Kernel   string  `json:"kernel,omitempty"`
	// The odt binary: module version, VCS revision (with "+modified" when
	// built from a modified checkout), Go version and build tags.
	Version  string   `json:"odt_version"`
	Revision string   `json:"odt_revision,omitempty"`
	Go       string   `json:"go"`
	Tags     []string `json:"build_tags"`
	// Solvers maps each external solver program the runs used to the first
	// line of its version output.
	Solvers map[string]string `json:"external_solvers,omitempty"`
	// Command is the bench command line as given.
	Command []string `json:"command"`
	// Limits: each run's time limit (s) and memory cap (MiB, 0 = none).
	TimeLimit     float64 `json:"time_limit_s"`
	MemoryLimitMB int     `json:"memory_limit_mb"`
	// Seeds are the seeds (repeat numbers or protocol seeds) of the runs.
	Seeds []int64 `json:"seeds,omitempty"`
	// SGMShift is the shift of the aggregate's shifted geometric mean (s).
	SGMShift float64   `json:"sgm_shift_s"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	// Time is the clock the report counts times with (wall or cpu) and
	// Expect the table of expected optima the runs were checked against
	// ("" when none).
	Time   string `json:"time,omitempty"`
	Expect string `json:"expect,omitempty"`
	// Host is the machine's host name.
	Host string `json:"host,omitempty"`
	// Shards lists, for results merged from several folders, each
	// folder's own record (Start and End then span them all).
	Shards []ShardMeta `json:"shards,omitempty"`
	// Differences lists the settings in which merged shards differ (a
	// merge forced with --force; empty otherwise).
	Differences []string `json:"differences,omitempty"`
}

// ShardMeta is what a merged record keeps of each shard's own.
type ShardMeta struct {
	// Path is the folder or file the shard was read from.
	Path     string    `json:"path"`
	Command  []string  `json:"command"`
	Host     string    `json:"host,omitempty"`
	Revision string    `json:"odt_revision,omitempty"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
}

// settings lists the settings two shards of one grid must share, as
// name and value: the limits, the odt build, the external solvers and
// the grid itself (the command line without its shard, output folder,
// quiet flag and limits, which are compared on their own).
func (m *Meta) settings() [][2]string {
	var solvers []string
	for p, v := range m.Solvers {
		solvers = append(solvers, p+": "+v)
	}
	slices.Sort(solvers)
	return [][2]string{
		{"time limit", fullSec(m.TimeLimit) + " s"},
		{"memory limit", memoryText(m.MemoryLimitMB)},
		{"odt revision", orDash(m.Revision)},
		{"odt version", orDash(m.Version)},
		{"build tags", orDash(strings.Join(m.Tags, ","))},
		{"external solvers", orDash(strings.Join(solvers, "; "))},
		{"grid", orDash(strings.Join(gridArgs(m.Command), " "))},
	}
}

// gridArgs is a bench command line without the program, the shard, the
// output folder, the quiet flag, the limits (compared on their own) and
// the flags that only shape the report (--time, --expect, --sgm-shift,
// --scatter).
func gridArgs(cmd []string) []string {
	if len(cmd) == 0 {
		return nil
	}
	var out []string
	args := cmd[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
			continue
		}
		switch name {
		case "q", "quiet":
			continue
		case "shard", "o", "out", "time-limit", "memory-limit", "time", "expect", "sgm-shift", "scatter":
			if !hasValue {
				i++
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// MergeMeta combines the records of shards read from paths (a nil record:
// none kept) into one: the first record's settings, command the merge's
// own command line, Start and End spanning the shards, and every shard's
// command, host, revision, start and end. It also returns the settings in
// which the shards differ, each naming the values and the shards.
func MergeMeta(paths []string, metas []*Meta, command []string) (*Meta, []string) {
	var merged *Meta
	var first int
	for i, m := range metas {
		if m == nil {
			continue
		}
		if merged == nil {
			c := *m
			merged, first = &c, i
			merged.Shards, merged.Differences, merged.Seeds = nil, nil, nil
		}
		if m.Start.Before(merged.Start) {
			merged.Start = m.Start
		}
		if m.End.After(merged.End) {
			merged.End = m.End
		}
		for _, s := range m.Seeds {
			if !slices.Contains(merged.Seeds, s) {
				merged.Seeds = append(merged.Seeds, s)
			}
		}
		shards := m.Shards
		if len(shards) == 0 {
			shards = []ShardMeta{{Path: paths[i], Command: m.Command, Host: m.Host, Revision: m.Revision, Start: m.Start, End: m.End}}
		}
		merged.Shards = append(merged.Shards, shards...)
	}
	if merged == nil {
		return nil, nil
	}
	slices.Sort(merged.Seeds)
	merged.Command = command
	var diffs []string
	want := metas[first].settings()
	for j, kv := range want {
		var other []string
		for i, m := range metas {
			if m == nil || i == first {
				continue
			}
			if v := m.settings()[j][1]; v != kv[1] {
				other = append(other, fmt.Sprintf("%s in %s", v, paths[i]))
			}
		}
		if len(other) > 0 {
			diffs = append(diffs, fmt.Sprintf("%s: %s in %s, but %s", kv[0], kv[1], paths[first], strings.Join(other, ", ")))
		}
	}
	return merged, diffs
}

// MachineMeta fills in the machine fields of a Meta from this host.
func MachineMeta(m *Meta) {
	m.Arch = runtime.GOOS + "/" + runtime.GOARCH
	m.Cores = runtime.NumCPU()
	m.OS = runtime.GOOS
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				m.OS = strings.Trim(v, `"`)
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				if kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64); err == nil {
					m.MemoryMB = kb / 1024
				}
				break
			}
		}
		f.Close()
	}
}

// ExternalSolvers finds the programs named by external solver options
// among args ("--opt", "sat-solver=external:minisat {in} {out}", ...) and
// asks each for its version (a few seconds at most each): the first line
// of its --version output that holds a digit (CBC greets first), else its
// first line, or "unknown".
func ExternalSolvers(ctx context.Context, args []string) map[string]string {
	out := map[string]string{}
	for _, a := range args {
		_, v, ok := strings.Cut(a, "=external:")
		if !ok {
			continue
		}
		fields := strings.Fields(strings.Trim(v, `"'`))
		if len(fields) == 0 {
			continue
		}
		prog := fields[0]
		if _, seen := out[prog]; seen {
			continue
		}
		out[prog] = programVersion(ctx, prog)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func programVersion(ctx context.Context, prog string) string {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	for _, flag := range []string{"--version", "-version", "-v"} {
		b, _ := exec.CommandContext(ctx, prog, flag).CombinedOutput()
		first := ""
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			if first == "" {
				first = line
			}
			if strings.ContainsAny(line, "0123456789") {
				return line
			}
		}
		if first != "" {
			return first
		}
	}
	return "unknown"
}

// WriteMeta writes m as indented JSON to dir/meta.json.
func WriteMeta(dir string, m *Meta) (string, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, MetaFile)
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		return "", err
	}
	return p, nil
}

// ReadMeta reads dir/meta.json; a folder without one gives nil, nil.
func ReadMeta(dir string) (*Meta, error) {
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, MetaFile), err)
	}
	return &m, nil
}
