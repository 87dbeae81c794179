package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
)

// flagSpec is one flag of a command, as its help shows it.
type flagSpec struct {
	long, short string // "depth", "o" ("" when none)
	arg         string // value placeholder ("" for a switch)
	help        string
}

// helpFlagLine matches a flag line of printUsage: "  -o, --out FILE".
var helpFlagLine = regexp.MustCompile(`^  (?:-([A-Za-z]), )?--([A-Za-z0-9-]+)(?: (\S+))?$`)

// commandFlags returns the flags a command (or "bench merge") offers,
// read from its own --help: the flag definitions stay in one place, the
// command's code, and hidden flags stay hidden.
func commandFlags(name string) ([]flagSpec, error) {
	args := append(strings.Fields(name)[1:], "--help")
	cmd := strings.Fields(name)[0]
	for _, c := range commands() {
		if c.name != cmd || c.name == "completion" {
			continue
		}
		var out bytes.Buffer
		if err := c.run(env{stdout: &out, stderr: io.Discard}, args); err != errHelpShown {
			return nil, fmt.Errorf("odt %s --help: %v", name, err)
		}
		return parseHelpFlags(out.String()), nil
	}
	return nil, fmt.Errorf("no command %q", name)
}

func parseHelpFlags(help string) []flagSpec {
	var fs []flagSpec
	lines := strings.Split(help, "\n")
	for i, l := range lines {
		m := helpFlagLine.FindStringSubmatch(l)
		if m == nil || m[2] == "help" {
			continue
		}
		f := flagSpec{short: m[1], long: m[2], arg: m[3]}
		if i+1 < len(lines) {
			f.help = strings.TrimSpace(lines[i+1])
		}
		fs = append(fs, f)
	}
	return fs
}

// benchSubcommands are the words after `odt bench` that name a command of
// their own ("bench merge", "bench report").
var benchSubcommands = []string{"merge", "report"}

// completionCommands are the command names completed after `odt`.
func completionCommands() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// flagValues are the values completed after a command's flag, where the
// flag has a fixed set (ok); other flags complete file names or nothing.
// The backend names and export formats come from the registry: export
// offers the backends that write a formulation, decode those that read an
// answer back.
func flagValues(cmd, flag string) (values []string, ok bool) {
	reg := odtkit.DefaultRegistry()
	switch flag {
	case "backend":
		switch cmd {
		case "export":
			return backendNames(reg, func(b backend.Backend) bool { _, ok := b.(backend.Exporter); return ok }), true
		case "decode":
			return backendNames(reg, func(b backend.Backend) bool { _, ok := b.(backend.Decoder); return ok }), true
		}
		return append([]string{"auto"}, backendNames(reg, nil)...), true
	case "backends":
		return backendNames(reg, nil), true
	case "to":
		return exportFormats(reg), true
	case "format":
		v := outputFormats(cmd)
		return v, v != nil
	case "objective":
		return []string{"error", "min-depth", "min-size", "min-nodes", "diagram"}, true
	case "data-format":
		return []string{"csv", "text"}, true
	}
	return nil, false
}

// backendNames lists the registry's backends for which keep holds (nil:
// all), in its order.
func backendNames(reg *odtkit.Registry, keep func(backend.Backend) bool) []string {
	var names []string
	for _, in := range reg.List() {
		if b, _ := reg.Get(in.Name); keep == nil || keep(b) {
			names = append(names, in.Name)
		}
	}
	return names
}

// exportFormats lists every format a backend of the registry exports, in
// the registry's order, each once.
func exportFormats(reg *odtkit.Registry) []string {
	var formats []string
	for _, in := range reg.List() {
		b, _ := reg.Get(in.Name)
		if e, ok := b.(backend.Exporter); ok {
			for _, f := range backend.ExportFormats(e) {
				if !slices.Contains(formats, f) {
					formats = append(formats, f)
				}
			}
		}
	}
	return formats
}

// fixedValue is the set of values of one command's flag.
type fixedValue struct {
	cmd, flag string // flag as typed: --long or -s
	values    []string
}

// fixedValues lists the flags of specs' commands that have a fixed set of
// values, by command (in order) and flag.
func fixedValues(specs map[string][]flagSpec) []fixedValue {
	var out []fixedValue
	for _, k := range sortedKeys(specs) {
		for _, f := range specs[k] {
			if f.arg == "" {
				continue
			}
			v, ok := flagValues(k, f.long)
			if !ok {
				continue
			}
			out = append(out, fixedValue{k, "--" + f.long, v})
			if f.short != "" {
				out = append(out, fixedValue{k, "-" + f.short, v})
			}
		}
	}
	return out
}

func runCompletion(e env, args []string) error {
	c := newFlags("completion", "odt completion bash|zsh|fish",
		"Prints a shell completion script for odt: commands, each command's flags, backend\n"+
			"names after --backend and --backends, and fixed values after --objective, --to,\n"+
			"--format and --data-format. Load it with, for example:\n\n"+
			"  bash:  source <(odt completion bash)         (or save it in /etc/bash_completion.d/odt)\n"+
			"  zsh:   odt completion zsh > \"${fpath[1]}/_odt\"\n"+
			"  fish:  odt completion fish > ~/.config/fish/completions/odt.fish", 1, 1)
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	specs := map[string][]flagSpec{}
	names := completionCommands()
	for _, sub := range benchSubcommands {
		names = append(names, "bench "+sub)
	}
	for _, n := range names {
		if n == "completion" {
			continue
		}
		if specs[n], err = commandFlags(n); err != nil {
			return err
		}
	}
	switch pos[0] {
	case "bash":
		return writeBash(e.stdout, specs)
	case "zsh":
		return writeZsh(e.stdout, specs)
	case "fish":
		return writeFish(e.stdout, specs)
	}
	return usagef("completion %q: want bash, zsh or fish", pos[0])
}

// sortedKeys returns the commands in a fixed order.
func sortedKeys(specs map[string][]flagSpec) []string {
	keys := make([]string, 0, len(specs))
	for k := range specs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// flagWords lists a command's flags as typed: --long and -s.
func flagWords(fs []flagSpec) []string {
	var w []string
	for _, f := range fs {
		w = append(w, "--"+f.long)
		if f.short != "" {
			w = append(w, "-"+f.short)
		}
	}
	return append(w, "--help")
}

// valueFlags lists the flags that take a value, as typed: those whose
// value is a file or folder (completed with file names), and the others
// (numbers, durations, lists: nothing to complete).
func valueFlags(specs map[string][]flagSpec) (files, others []string) {
	fixed := map[string]bool{}
	for _, v := range fixedValues(specs) {
		fixed[v.flag] = true
	}
	kind := map[string]bool{} // flag -> takes a path
	for _, fs := range specs {
		for _, f := range fs {
			if f.arg == "" {
				continue
			}
			path := f.arg == "FILE" || f.arg == "DIR" || strings.HasSuffix(f.arg, "FILE")
			for _, w := range []string{"--" + f.long, "-" + f.short} {
				if w != "-" {
					kind[w] = kind[w] || path
				}
			}
		}
	}
	for _, w := range sortedStrings(kind) {
		if kind[w] {
			files = append(files, w)
		} else if !fixed[w] {
			others = append(others, w)
		}
	}
	return files, others
}

func shellKey(cmd string) string { return strings.ReplaceAll(cmd, " ", "_") }

func writeBash(w io.Writer, specs map[string][]flagSpec) error {
	var b strings.Builder
	b.WriteString("# bash completion for odt (generated by `odt completion bash`)\n")
	b.WriteString("_odt() {\n")
	b.WriteString("    local cur prev cmd i\n")
	b.WriteString("    COMPREPLY=()\n")
	b.WriteString("    cur=\"${COMP_WORDS[COMP_CWORD]}\"\n")
	b.WriteString("    prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n")
	b.WriteString("    if [[ $COMP_CWORD -eq 1 ]]; then\n")
	fmt.Fprintf(&b, "        COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", strings.Join(completionCommands(), " "))
	b.WriteString("        return 0\n    fi\n")
	b.WriteString("    cmd=\"${COMP_WORDS[1]}\"\n")
	b.WriteString("    if [[ $cmd == bench && $COMP_CWORD -eq 2 && $cur != -* ]]; then\n")
	fmt.Fprintf(&b, "        COMPREPLY=($(compgen -W %q -- \"$cur\") $(compgen -f -- \"$cur\"))\n", strings.Join(benchSubcommands, " "))
	b.WriteString("        return 0\n    fi\n")
	for _, sub := range benchSubcommands {
		fmt.Fprintf(&b, "    if [[ $cmd == bench && ${COMP_WORDS[2]} == %s ]]; then cmd=bench_%s; fi\n", sub, sub)
	}
	b.WriteString("    if [[ $cmd == completion ]]; then\n")
	b.WriteString("        COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\"))\n")
	b.WriteString("        return 0\n    fi\n")
	b.WriteString("    case \"$cmd:$prev\" in\n")
	for _, v := range fixedValues(specs) {
		// Lists (--backends a,b) complete the part after the last comma.
		fmt.Fprintf(&b, "        %s:%s) local pre=\"\"; [[ $cur == *,* ]] && pre=\"${cur%%,*},\"\n", shellKey(v.cmd), v.flag)
		fmt.Fprintf(&b, "            COMPREPLY=($(compgen -P \"$pre\" -W %q -- \"${cur##*,}\")); return 0 ;;\n", strings.Join(v.values, " "))
	}
	b.WriteString("    esac\n")
	b.WriteString("    case \"$prev\" in\n")
	files, others := valueFlags(specs)
	fmt.Fprintf(&b, "        %s)\n", strings.Join(files, "|"))
	b.WriteString("            COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n")
	fmt.Fprintf(&b, "        %s)\n", strings.Join(others, "|"))
	b.WriteString("            return 0 ;;\n")
	b.WriteString("    esac\n")
	b.WriteString("    if [[ $cur == -* ]]; then\n")
	b.WriteString("        case \"$cmd\" in\n")
	for _, k := range sortedKeys(specs) {
		fmt.Fprintf(&b, "            %s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", shellKey(k), strings.Join(flagWords(specs[k]), " "))
	}
	b.WriteString("        esac\n")
	b.WriteString("        return 0\n    fi\n")
	b.WriteString("    COMPREPLY=($(compgen -f -- \"$cur\"))\n")
	b.WriteString("}\n")
	b.WriteString("complete -o filenames -F _odt odt\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func sortedStrings[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func writeZsh(w io.Writer, specs map[string][]flagSpec) error {
	var b strings.Builder
	b.WriteString("#compdef odt\n# zsh completion for odt (generated by `odt completion zsh`)\n\n")
	b.WriteString("_odt() {\n")
	b.WriteString("    local cmd=${words[2]} prev=${words[CURRENT-1]}\n")
	b.WriteString("    if (( CURRENT == 2 )); then\n")
	b.WriteString("        local -a cmds\n        cmds=(\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "            %s\n", zshQuote(c.name+":"+c.summary))
	}
	b.WriteString("        )\n        _describe command cmds\n        return\n    fi\n")
	for _, sub := range benchSubcommands {
		fmt.Fprintf(&b, "    if [[ $cmd == bench && ${words[3]} == %s ]]; then cmd=bench_%s; fi\n", sub, sub)
	}
	b.WriteString("    if [[ $cmd == completion ]]; then compadd bash zsh fish; return; fi\n")
	b.WriteString("    case $cmd:$prev in\n")
	for _, v := range fixedValues(specs) {
		fmt.Fprintf(&b, "        %s:%s) compadd -- %s; return ;;\n", shellKey(v.cmd), v.flag, strings.Join(v.values, " "))
	}
	b.WriteString("    esac\n")
	b.WriteString("    case $prev in\n")
	files, others := valueFlags(specs)
	fmt.Fprintf(&b, "        %s) _files; return ;;\n", strings.Join(files, "|"))
	fmt.Fprintf(&b, "        %s) return ;;\n", strings.Join(others, "|"))
	b.WriteString("    esac\n")
	b.WriteString("    if [[ $PREFIX == -* ]]; then\n")
	b.WriteString("        local -a flags\n")
	b.WriteString("        case $cmd in\n")
	for _, k := range sortedKeys(specs) {
		var items []string
		for _, f := range specs[k] {
			items = append(items, zshQuote("--"+f.long+":"+f.help))
			if f.short != "" {
				items = append(items, zshQuote("-"+f.short+":"+f.help))
			}
		}
		items = append(items, zshQuote("--help:show the help"))
		fmt.Fprintf(&b, "            %s) flags=(%s) ;;\n", shellKey(k), strings.Join(items, " "))
	}
	b.WriteString("        esac\n")
	b.WriteString("        _describe flag flags\n")
	b.WriteString("        return\n    fi\n")
	fmt.Fprintf(&b, "    if [[ $cmd == bench && CURRENT -eq 3 ]]; then compadd %s; fi\n", strings.Join(benchSubcommands, " "))
	b.WriteString("    _files\n")
	b.WriteString("}\n\n")
	b.WriteString("if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then\n    _odt \"$@\"\nelse\n    compdef _odt odt\nfi\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// zshQuote quotes a word for zsh, escaping the colons _describe splits on
// in the name part only.
func zshQuote(s string) string {
	name, desc, _ := strings.Cut(s, ":")
	name = strings.ReplaceAll(name, ":", `\:`)
	return "'" + strings.ReplaceAll(name+":"+desc, "'", `'\''`) + "'"
}

func writeFish(w io.Writer, specs map[string][]flagSpec) error {
	var b strings.Builder
	b.WriteString("# fish completion for odt (generated by `odt completion fish`)\n")
	b.WriteString("complete -c odt -f\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "complete -c odt -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	b.WriteString("complete -c odt -n '__fish_seen_subcommand_from bench; and not __fish_seen_subcommand_from merge report' -a merge -d 'combine shard outputs'\n")
	b.WriteString("complete -c odt -n '__fish_seen_subcommand_from bench; and not __fish_seen_subcommand_from merge report' -a report -d 'rebuild tables, pictures and report.html'\n")
	b.WriteString("complete -c odt -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	for _, k := range sortedKeys(specs) {
		cond := "__fish_seen_subcommand_from " + k
		if k == "bench" {
			cond = "__fish_seen_subcommand_from bench; and not __fish_seen_subcommand_from merge report"
		} else if sub, ok := strings.CutPrefix(k, "bench "); ok {
			cond = "__fish_seen_subcommand_from " + sub
		}
		for _, f := range specs[k] {
			fmt.Fprintf(&b, "complete -c odt -n %s -l %s", fishQuote(cond), f.long)
			if f.short != "" {
				fmt.Fprintf(&b, " -s %s", f.short)
			}
			if f.arg != "" {
				if v, ok := flagValues(k, f.long); ok {
					fmt.Fprintf(&b, " -x -a %s", fishQuote(strings.Join(v, " ")))
				} else if strings.Contains(f.arg, "FILE") || f.arg == "DIR" {
					b.WriteString(" -r -F")
				} else {
					b.WriteString(" -x")
				}
			}
			fmt.Fprintf(&b, " -d %s\n", fishQuote(f.help))
		}
	}
	b.WriteString("complete -c odt -n 'not __fish_use_subcommand' -F\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
