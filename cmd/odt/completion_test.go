package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
)

// completeBash loads the script and runs its completion function on a
// command line (the last word is the one being completed), returning the
// candidates.
func completeBash(t *testing.T, script string, words ...string) []string {
	t.Helper()
	var quoted []string
	for _, w := range words {
		quoted = append(quoted, "'"+w+"'")
	}
	prog := "source " + script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" +
		strconv.Itoa(len(words)-1) + "\n_odt\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	out, err := exec.Command("bash", "-c", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("bash completion of %q: %v\n%s", words, err, out)
	}
	return strings.Fields(string(out))
}

// bashScript writes odt's bash completion script to a file and returns
// its path (skipping t when bash is not installed).
func bashScript(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	out, stderr, code := odt(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("odt completion bash: exit %d: %s", code, stderr)
	}
	script := filepath.Join(t.TempDir(), "odt.bash")
	if err := os.WriteFile(script, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return script
}

// The bash script parses and completes commands, each command's flags
// (from its own flag definitions, hidden ones left out), backend names
// after --backend and in --backends lists, and bench's merge.
func TestCompletionBash(t *testing.T) {
	script := bashScript(t)
	if msg, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, msg)
	}
	cases := []struct {
		words     []string
		want, not []string
	}{
		{[]string{"odt", "so"}, []string{"solve"}, nil},
		{[]string{"odt", "co"}, []string{"completion"}, nil},
		{[]string{"odt", "solve", "--ba"}, []string{"--backend"}, nil},
		{[]string{"odt", "solve", "--"}, []string{"--depth", "--time-limit", "--leaf-cost", "--objective", "--help"}, []string{"--encoding"}},
		{[]string{"odt", "solve", "--backend", "dl"}, []string{"dl85"}, []string{"cart"}},
		{[]string{"odt", "solve", "--objective", "min"}, []string{"min-depth", "min-size"}, []string{"error"}},
		{[]string{"odt", "bench", "--backends", "dl85,ca"}, []string{"dl85,cadl85", "dl85,cart"}, nil},
		{[]string{"odt", "bench", "--"}, []string{"--backends", "--label", "--shard"}, nil},
		{[]string{"odt", "bench", "me"}, []string{"merge"}, nil},
		{[]string{"odt", "bench", "merge", "-"}, []string{"-q", "--out"}, []string{"--backends"}},
		{[]string{"odt", "export", "--"}, []string{"--to", "--backend", "--max-nodes", "--min-support", "--leaf-cost"}, []string{"--encoding"}},
		{[]string{"odt", "export", "--to", ""}, []string{"dimacs", "mps", "lp", "wcnf", "opb", "mzn"}, nil},
		{[]string{"odt", "solve", "--format", ""}, []string{"text", "json", "dot"}, []string{"markdown"}},
		{[]string{"odt", "backends", "--format", ""}, []string{"text", "json", "markdown"}, []string{"dot"}},
		{[]string{"odt", "eval", "--format", ""}, []string{"text", "json"}, []string{"markdown", "dot"}},
		{[]string{"odt", "decode", "--backend", ""}, []string{"sat-odt", "milp-flowoct"}, []string{"dl85", "cart", "auto"}},
		{[]string{"odt", "export", "--backend", ""}, []string{"sat-depth", "milp-odt"}, []string{"dl85", "auto"}},
		{[]string{"odt", "completion", "z"}, []string{"zsh"}, nil},
		{[]string{"odt", "solve", "--depth", ""}, nil, []string{"solve"}},
	}
	for _, c := range cases {
		got := completeBash(t, script, c.words...)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q completes to %q, want %q among them", c.words, got, w)
			}
		}
		for _, w := range c.not {
			if slices.Contains(got, w) {
				t.Errorf("%q completes to %q, which should not hold %q", c.words, got, w)
			}
		}
	}
	// Files complete where a path is expected.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.csv"), []byte("a,y\n0,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := completeBash(t, script, "odt", "solve", filepath.Join(dir, "da")); !slices.Contains(got, filepath.Join(dir, "data.csv")) {
		t.Errorf("a data file does not complete: %q", got)
	}
}

// The values completed after --to, --backend and --format are the ones
// each command takes: every format a backend of the registry exports,
// the backends that export (export) or decode (decode) a formulation,
// and each command's output formats, which it accepts.
func TestCompletionValuesFromTheRegistry(t *testing.T) {
	script := bashScript(t)
	reg := odtkit.DefaultRegistry()
	var formats, exporters, decoders []string
	for _, in := range reg.List() {
		b, _ := reg.Get(in.Name)
		if e, ok := b.(backend.Exporter); ok {
			exporters = append(exporters, in.Name)
			for _, f := range backend.ExportFormats(e) {
				if !slices.Contains(formats, f) {
					formats = append(formats, f)
				}
			}
		}
		if _, ok := b.(backend.Decoder); ok {
			decoders = append(decoders, in.Name)
		}
	}
	same := func(words []string, want []string) {
		t.Helper()
		got := completeBash(t, script, words...)
		slices.Sort(got)
		want = slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			t.Errorf("%q completes to %q, want %q", words, got, want)
		}
	}
	same([]string{"odt", "export", "--to", ""}, formats)
	same([]string{"odt", "export", "--backend", ""}, exporters)
	same([]string{"odt", "decode", "--backend", ""}, decoders)
	// Each command accepts every --format it is offered (an unknown one
	// is refused before the data is read) and refuses the others.
	missing := filepath.Join(t.TempDir(), "missing.csv")
	for cmd, args := range map[string][]string{
		"solve":    {missing},
		"decode":   {"--backend", "sat-odt", missing, missing},
		"eval":     {"--model", missing, missing},
		"backends": nil,
	} {
		offered := completeBash(t, script, "odt", cmd, "--format", "")
		for _, f := range []string{"text", "json", "dot", "markdown"} {
			_, stderr, _ := odt(t, append([]string{cmd, "--format", f}, args...)...)
			refused := strings.Contains(stderr, "--format "+strconv.Quote(f))
			if refused == slices.Contains(offered, f) {
				t.Errorf("odt %s --format %s: offered %v, refused %v (%s)", cmd, f, slices.Contains(offered, f), refused, strings.TrimSpace(stderr))
			}
		}
	}
}

// Every flag of every command is in the completion scripts, and the zsh
// and fish scripts parse in their shells (when installed).
func TestCompletionZshFish(t *testing.T) {
	for _, sh := range []string{"zsh", "fish"} {
		out, stderr, code := odt(t, "completion", sh)
		if code != 0 {
			t.Fatalf("odt completion %s: exit %d: %s", sh, code, stderr)
		}
		for _, cmd := range []string{"solve", "bench", "export"} {
			fs, err := commandFlags(cmd)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				if !strings.Contains(out, "--"+f.long) && !strings.Contains(out, "-l "+f.long) {
					t.Errorf("odt completion %s lacks %s's --%s", sh, cmd, f.long)
				}
			}
		}
		if strings.Contains(out, "--encoding") || strings.Contains(out, "-l encoding") {
			t.Errorf("odt completion %s offers the hidden --encoding", sh)
		}
		if _, err := exec.LookPath(sh); err != nil {
			t.Logf("%s not installed: its syntax check is skipped", sh)
			continue
		}
		script := filepath.Join(t.TempDir(), "odt."+sh)
		if err := os.WriteFile(script, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(sh, "-n", script).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", sh, err, msg)
		}
	}
	if _, stderr, code := odt(t, "completion", "tcsh"); code != 2 || !strings.Contains(stderr, "bash, zsh or fish") {
		t.Errorf("odt completion tcsh: exit %d, %q", code, stderr)
	}
}

// The fish script completes commands, flags and backend names (when fish
// is installed).
func TestCompletionFishCompletes(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("fish not installed")
	}
	out, _, code := odt(t, "completion", "fish")
	if code != 0 {
		t.Fatalf("odt completion fish: exit %d", code)
	}
	script := filepath.Join(t.TempDir(), "odt.fish")
	if err := os.WriteFile(script, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"odt so":                  "solve",
		"odt solve --ba":          "--backend",
		"odt solve --backend dl":  "dl85",
		"odt bench me":            "merge",
		"odt bench merge --qu":    "--quiet",
		"odt export --to ":        "dimacs",
		"odt solve --objective m": "min-size",
	} {
		got, err := exec.Command("fish", "-c", "source "+script+"; complete -C '"+line+"'").CombinedOutput()
		if err != nil {
			t.Fatalf("fish completing %q: %v\n%s", line, err, got)
		}
		found := false
		for _, l := range strings.Split(string(got), "\n") {
			if w, _, _ := strings.Cut(l, "\t"); w == want {
				found = true
			}
		}
		if !found {
			t.Errorf("fish completes %q to\n%s\nwant %q among them", line, got, want)
		}
	}
}

// Sourced after compinit, the zsh script registers its function for odt
// (when zsh is installed).
func TestCompletionZshRegisters(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh not installed")
	}
	out, _, code := odt(t, "completion", "zsh")
	if code != 0 {
		t.Fatalf("odt completion zsh: exit %d", code)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "_odt")
	if err := os.WriteFile(script, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command("zsh", "-f", "-c", "autoload -U compinit; compinit -u -d "+filepath.Join(dir, "zcompdump")+
		"; source "+script+"; whence -w _odt; print ${_comps[odt]}").CombinedOutput()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, got)
	}
	if string(got) != "_odt: function\n_odt\n" {
		t.Errorf("zsh after sourcing the script: %q, want _odt defined and registered for odt", got)
	}
}
