package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/odtkit/odtkit"
)

// docFiles are the user documentation: README.md, CONTRIBUTING.md and
// docs/*.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(repoRoot, "README.md"), filepath.Join(repoRoot, "CONTRIBUTING.md")}
	more, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

// shellWords splits a shell line into simple commands (at |, ||, &&, ;
// and &), each a list of words with quotes removed; redirections and
// their targets are dropped, and an unquoted # starts a comment.
func shellWords(line string) [][]string {
	var cmds [][]string
	var cur []string
	var word strings.Builder
	inWord, quote, skipNext := false, rune(0), false
	flush := func() {
		if inWord {
			if skipNext {
				skipNext = false
			} else {
				cur = append(cur, word.String())
			}
		}
		word.Reset()
		inWord = false
	}
	end := func() {
		flush()
		if len(cur) > 0 {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			word.WriteRune(rs[i])
			inWord = true
		case r == '#' && !inWord:
			end()
			return cmds
		case r == ' ' || r == '\t':
			flush()
		case r == '|' || r == ';' || r == '&':
			end()
		case r == '>' || r == '<':
			// "2>" and ">>" belong to the redirection; its target is dropped.
			if inWord && (word.String() == "2" || word.String() == "1") {
				word.Reset()
				inWord = false
			}
			flush()
			for i+1 < len(rs) && (rs[i+1] == '>' || rs[i+1] == '&') {
				i++
			}
			skipNext = true
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	end()
	return cmds
}

// docCommand is an odt command line found in a documentation file.
type docCommand struct {
	where string
	args  []string // after "odt"
}

var inlineCode = regexp.MustCompile("`([^`]+)`")

// odtCommands extracts the odt command lines of a markdown file: every
// line of its sh, bash, yaml and untyped code blocks (continuation lines
// joined; text blocks are synopses, not commands), and inline code that
// starts with "odt ".
func odtCommands(t *testing.T, path string) []docCommand {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docCommand
	add := func(line string, n int) {
		for _, words := range shellWords(line) {
			for len(words) > 0 && slices.Contains([]string{"do", "then", "else", "time", "-", "exec"}, words[0]) {
				words = words[1:]
			}
			if len(words) > 0 && (words[0] == "odt" || words[0] == "./odt") {
				out = append(out, docCommand{where: filepath.Base(path) + ":" + strconv.Itoa(n), args: words[1:]})
			}
		}
	}
	lines := strings.Split(string(b), "\n")
	lang, inBlock := "", false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trim := strings.TrimSpace(l)
		if strings.HasPrefix(trim, "```") {
			if inBlock {
				inBlock = false
			} else {
				inBlock, lang = true, strings.TrimPrefix(trim, "```")
			}
			continue
		}
		if !inBlock {
			for _, m := range inlineCode.FindAllStringSubmatch(l, -1) {
				if strings.HasPrefix(m[1], "odt ") {
					add(m[1], i+1)
				}
			}
			continue
		}
		switch lang {
		case "sh", "bash", "", "yaml":
		default:
			continue
		}
		start := i
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(lines[i])
		}
		if lang == "yaml" && strings.HasPrefix(strings.TrimSpace(l), "- odt ") {
			// A folded YAML item: more-indented lines continue it.
			indent := len(l) - len(strings.TrimLeft(l, " "))
			for i+1 < len(lines) && len(lines[i+1])-len(strings.TrimLeft(lines[i+1], " ")) > indent &&
				!strings.Contains(lines[i+1], ": ") {
				i++
				l += " " + strings.TrimSpace(lines[i])
			}
		}
		if lang == "yaml" && !strings.HasPrefix(strings.TrimSpace(l), "- odt ") && !strings.HasPrefix(strings.TrimSpace(l), "# then:") {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "# then:") || strings.HasPrefix(strings.TrimSpace(l), "# then, ") {
			// "# then: odt bench merge ..." shows a command in a comment.
			_, cmd, _ := strings.Cut(l, "odt ")
			l = "odt " + cmd
		}
		add(l, start+1)
	}
	return out
}

// placeholder reports whether a value is a placeholder of the docs
// (NAME, A, B, DIR, ...) rather than a literal value.
func placeholder(v string) bool {
	return v != "" && strings.ToUpper(v) == v && strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_.") == ""
}

// checkDocCommand parses one command line against the command's flags:
// the command exists, every flag exists, and backend and objective
// values are ones odt knows.
func checkDocCommand(t *testing.T, c docCommand, specs map[string][]flagSpec) {
	t.Helper()
	if len(c.args) == 0 {
		return
	}
	name, rest := c.args[0], c.args[1:]
	if name == "--help" || name == "-h" || name == "help" || placeholder(name) {
		return
	}
	if name == "bench" && len(rest) > 0 && slices.Contains(benchSubcommands, rest[0]) {
		name, rest = "bench "+rest[0], rest[1:]
	}
	fs, ok := specs[name]
	if !ok {
		if !slices.Contains(completionCommands(), name) {
			t.Errorf("%s: odt %s: no such command", c.where, strings.Join(c.args, " "))
		}
		return
	}
	byName := map[string]flagSpec{}
	for _, f := range fs {
		byName[f.long] = f
		if f.short != "" {
			byName[f.short] = f
		}
	}
	registry := odtkit.DefaultRegistry()
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		key, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if key == "help" || key == "h" {
			continue
		}
		f, ok := byName[key]
		if !ok {
			t.Errorf("%s: odt %s: flag %s does not exist", c.where, strings.Join(c.args, " "), a)
			continue
		}
		if f.arg == "" {
			continue
		}
		if !hasVal {
			if i+1 >= len(rest) {
				t.Errorf("%s: odt %s: flag %s needs a value", c.where, strings.Join(c.args, " "), a)
				break
			}
			i++
			val = rest[i]
		}
		switch f.long {
		case "backend", "backends":
			for _, b := range strings.Split(val, ",") {
				if placeholder(b) || b == "auto" && f.long == "backend" || b == "..." {
					continue
				}
				if _, ok := registry.Get(b); !ok {
					t.Errorf("%s: odt %s: backend %q does not exist", c.where, strings.Join(c.args, " "), b)
				}
			}
		default:
			// A fixed set of values (--objective, --format, --to ...);
			// odt bench takes a list of objectives.
			values, ok := flagValues(name, f.long)
			if !ok {
				continue
			}
			for _, o := range strings.Split(val, ",") {
				if !placeholder(o) && !slices.Contains(values, o) {
					t.Errorf("%s: odt %s: --%s %q is not one of %v", c.where, strings.Join(c.args, " "), f.long, o, values)
				}
			}
		}
	}
}

// Every odt command shown in README.md, CONTRIBUTING.md and docs/*.md
// parses: the command and its flags exist, backend names are
// registered. Every relative link resolves, anchors included.
func TestDocsCommands(t *testing.T) {
	specs := map[string][]flagSpec{}
	for _, n := range append(completionCommands(), "bench merge", "bench report") {
		if n == "completion" || n == "version" {
			continue
		}
		fs, err := commandFlags(n)
		if err != nil {
			t.Fatal(err)
		}
		specs[n] = fs
	}
	total := 0
	for _, path := range docFiles(t) {
		cmds := odtCommands(t, path)
		total += len(cmds)
		for _, c := range cmds {
			checkDocCommand(t, c, specs)
		}
		checkLinks(t, path)
	}
	t.Logf("%d odt commands checked", total)
	if total < 20 {
		t.Errorf("only %d odt commands found in the docs: the extraction is broken", total)
	}
}

var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)

// anchors returns the heading anchors of a markdown file, as GitHub
// makes them.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	inBlock := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inBlock = !inBlock
		}
		if inBlock || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		var a strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '×' && (r < 0x2000 || r > 0x206f):
				// GitHub drops × and the general punctuation block
				// (dashes, quotes) with the other punctuation.
				a.WriteRune(r)
			}
		}
		out[a.String()] = true
	}
	return out
}

func checkLinks(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		file, frag, _ := strings.Cut(target, "#")
		resolved := path
		if file != "" {
			resolved = filepath.Join(filepath.Dir(path), file)
			if _, err := os.Stat(resolved); err != nil {
				t.Errorf("%s: link %s: %v", filepath.Base(path), target, err)
				continue
			}
		}
		if frag != "" && strings.HasSuffix(resolved, ".md") && !anchors(t, resolved)[frag] {
			t.Errorf("%s: link %s: no heading with anchor #%s in %s", filepath.Base(path), target, frag, filepath.Base(resolved))
		}
	}
}

// The extraction itself: quotes, pipes, redirections, comments.
func TestShellWords(t *testing.T) {
	got := shellWords(`odt solve --sat-solver external:"minisat {in} {out}" data.csv | sort > out.txt 2>&1 # note`)
	want := [][]string{{"odt", "solve", "--sat-solver", "external:minisat {in} {out}", "data.csv"}, {"sort"}}
	if len(got) != len(want) {
		t.Fatalf("shellWords: %q", got)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("shellWords command %d: %q, want %q", i, got[i], want[i])
		}
	}
}
