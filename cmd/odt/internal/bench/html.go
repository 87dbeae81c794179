package bench

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ReportFile is the name of the self-contained HTML report.
const ReportFile = "report.html"

// htmlTable is a table as the report shows it.
type htmlTable struct {
	ID   string
	Head []string
	Rows [][]htmlCell
}

// htmlCell is a cell: text, or links when it has any, and a CSS class.
type htmlCell struct {
	Text, Class string
	Links       []htmlLink
}

// htmlLink is a relative link to a file of the result folder.
type htmlLink struct{ Text, Href string }

// htmlPicture is an inline SVG with its caption.
type htmlPicture struct {
	Title string
	SVG   template.HTML
	File  string
}

type htmlPage struct {
	Title     string
	Settings  [][2]string
	Aggregate htmlTable
	Instances htmlTable
	Cells     htmlTable
	// Formulation is the formulation table (no rows: none reported) and
	// FormulationNote what it measures.
	Formulation     htmlTable
	FormulationNote string
	Pictures        []htmlPicture
	Anytime         []htmlPicture
	Failures        []string
	Conflicts       []string
	Incorrect       []string
	Shift           string
	Clock           string
}

// inlineSVG reads an SVG file written by gonum/plot and returns its <svg>
// element, ready to inline (the XML prolog and doctype dropped).
func inlineSVG(path string) (template.HTML, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	i := bytes.Index(b, []byte("<svg"))
	if i < 0 {
		return "", fmt.Errorf("%s: no <svg> element", path)
	}
	return template.HTML(b[i:]), nil
}

// settingsRows lists the meta record as label/value pairs.
func settingsRows(m *Meta) [][2]string {
	if m == nil {
		return [][2]string{{"settings", "not recorded (no meta.json in the result folder)"}}
	}
	rev := m.Revision
	if rev == "" {
		rev = "unknown"
	}
	rows := [][2]string{
		{"command", strings.Join(m.Command, " ")},
		{"odt", fmt.Sprintf("%s, revision %s, %s, tags %s", m.Version, rev, m.Go, orDash(strings.Join(m.Tags, ",")))},
		{"machine", fmt.Sprintf("%s, %s, %d logical cores, %.0f MiB memory", m.Arch, orDash(m.CPUModel), m.Cores, m.MemoryMB)},
		{"system", strings.TrimSpace(m.OS + " " + m.Kernel)},
		{"time limit", fmt.Sprintf("%s s per run", fullSec(m.TimeLimit))},
		{"memory limit", memoryText(m.MemoryLimitMB)},
		{"started / ended", m.Start.Format("2006-01-02 15:04:05 MST") + " / " + m.End.Format("2006-01-02 15:04:05 MST")},
	}
	if m.Host != "" {
		rows = append(rows, [2]string{"host", m.Host})
	}
	if m.Expect != "" {
		rows = append(rows, [2]string{"expected optima", m.Expect})
	}
	for i, sh := range m.Shards {
		rows = append(rows, [2]string{fmt.Sprintf("shard %d of %d", i+1, len(m.Shards)), fmt.Sprintf("%s: %s on %s, revision %s, %s / %s",
			sh.Path, strings.Join(sh.Command, " "), orDash(sh.Host), orDash(sh.Revision),
			sh.Start.Format("2006-01-02 15:04:05 MST"), sh.End.Format("2006-01-02 15:04:05 MST"))})
	}
	for _, d := range m.Differences {
		rows = append(rows, [2]string{"shards differ (merged with --force)", d})
	}
	if len(m.Seeds) > 0 {
		var ss []string
		for _, s := range m.Seeds {
			ss = append(ss, strconv.FormatInt(s, 10))
		}
		rows = append(rows, [2]string{"seeds", strings.Join(ss, ", ")})
	}
	var solvers []string
	for p, v := range m.Solvers {
		solvers = append(solvers, p+": "+v)
	}
	slices.Sort(solvers)
	if len(solvers) > 0 {
		rows = append(rows, [2]string{"external solvers", strings.Join(solvers, "; ")})
	}
	return rows
}

func memoryText(mb int) string {
	if mb <= 0 {
		return "none"
	}
	return fmt.Sprintf("%d MiB per run", mb)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cellTable is the per-cell table with a cross-check mark per row and
// links to the runs' outputs.
func cellTable(s Summary, runs []Run) htmlTable {
	head, rows := s.rows(roundNum)
	t := htmlTable{ID: "cells", Head: append(slices.Clone(head), "cross-check", "outputs")}
	// Per group: proven objectives by series.
	proven := map[string]map[string]float64{}
	outputs := map[string][]string{}
	for i := range runs {
		r := &runs[i]
		k := r.entryName() + "\x00" + r.Series() + "\x00" + r.ObjectiveName + "\x00" + strconv.Itoa(r.Depth)
		if r.Output != "" {
			outputs[k] = append(outputs[k], r.Output)
		}
		if r.Optimal && r.Objective != nil {
			g := r.group()
			if proven[g] == nil {
				proven[g] = map[string]float64{}
			}
			proven[g][r.Series()] = *r.Objective
		}
	}
	for i, e := range s.Entries {
		row := make([]htmlCell, 0, len(rows[i])+2)
		for j, v := range rows[i] {
			c := htmlCell{Text: v}
			if head[j] == "verdict" && v == "INCORRECT" {
				c.Class = "bad"
			}
			row = append(row, c)
		}
		mark := htmlCell{Text: "-"}
		g := e.group()
		if ps := proven[g]; len(ps) > 0 {
			if _, mine := ps[e.series()]; mine {
				conflict := slices.ContainsFunc(s.Conflicts, func(c string) bool { return strings.HasPrefix(c, g+":") })
				switch {
				case conflict:
					mark = htmlCell{Text: "CONFLICT", Class: "bad"}
				case len(ps) > 1:
					mark = htmlCell{Text: fmt.Sprintf("agrees (%d proofs)", len(ps)), Class: "good"}
				default:
					mark = htmlCell{Text: "only proof"}
				}
			}
		}
		row = append(row, mark)
		k := e.Dataset + "\x00" + e.series() + "\x00" + e.ObjectiveName + "\x00" + strconv.Itoa(e.Depth)
		out := htmlCell{Text: "-"}
		for j, o := range outputs[k] {
			out.Links = append(out.Links, htmlLink{Text: "run " + strconv.Itoa(j+1), Href: o})
		}
		row = append(row, out)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// textTable returns a function that makes an HTML table of plain text
// cells with the id given.
func textTable(id string) func(head []string, rows [][]string) htmlTable {
	return func(head []string, rows [][]string) htmlTable {
		t := htmlTable{ID: id, Head: head}
		for _, r := range rows {
			row := make([]htmlCell, len(r))
			for i, v := range r {
				row[i] = htmlCell{Text: v}
			}
			t.Rows = append(t.Rows, row)
		}
		return t
	}
}

// WriteHTML writes dir/report.html: the settings, the aggregate table,
// the comparison and anytime pictures inlined from their SVG files in
// dir, the per-cell table with cross-check marks and links to each run's
// output, failures and cross-check errors. The page is one file: inline
// CSS and SVG, a few lines of plain JavaScript to sort tables, nothing
// loaded from anywhere.
func WriteHTML(dir string, runs []Run, s Summary, agg []AggRow, wide InstanceTable, ft []FormulationRow, meta *Meta, shift float64, clock Clock, pictures []string) (string, error) {
	page := htmlPage{Title: "odt bench report", Settings: settingsRows(meta), Failures: s.Failures, Conflicts: s.Conflicts,
		Incorrect: s.Incorrect, Shift: fullSec(shift), Clock: clock.text()}
	page.Aggregate = htmlTable{ID: "aggregate", Head: aggHead(agg)}
	for _, r := range aggRows(agg, roundSec) {
		row := make([]htmlCell, len(r))
		for i, v := range r {
			row[i] = htmlCell{Text: v}
		}
		if r[0] == VBS {
			row[0].Class = "vbs"
		}
		if i := slices.Index(page.Aggregate.Head, "incorrect"); i >= 0 && r[i] != "0" && r[i] != "-" {
			row[i].Class = "bad"
		}
		page.Aggregate.Rows = append(page.Aggregate.Rows, row)
	}
	page.Cells = cellTable(s, runs)
	page.Instances = textTable("instances")(wide.rows(roundNum, roundSec, sameText))
	if len(ft) > 0 {
		page.Formulation = textTable("formulation")(formulationRows(ft, roundNum))
		page.FormulationNote = formulationNote
	}
	for _, p := range pictures {
		if !strings.HasSuffix(p, ".svg") {
			continue
		}
		svg, err := inlineSVG(p)
		if err != nil {
			return "", err
		}
		base := filepath.Base(p)
		pic := htmlPicture{Title: strings.TrimSuffix(base, ".svg"), SVG: svg, File: base}
		if strings.HasPrefix(base, "anytime-") || strings.HasPrefix(base, "test-accuracy") {
			page.Anytime = append(page.Anytime, pic)
		} else {
			page.Pictures = append(page.Pictures, pic)
		}
	}
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, page); err != nil {
		return "", err
	}
	path := filepath.Join(dir, ReportFile)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<link rel="icon" href="data:,">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 1.5em auto; max-width: 75em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f0f0f0; cursor: pointer; user-select: none; }
td:first-child, th:first-child { text-align: left; }
table.settings td { text-align: left; }
.bad { color: #b00; font-weight: bold; } .good { color: #070; } .vbs { font-style: italic; }
figure { display: inline-block; margin: 0.5em; vertical-align: top; }
figure svg { width: 34em; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.8em; color: #555; }
.note { font-size: 0.85em; color: #555; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<h2 id="settings">Settings</h2>
<table class="settings">{{range .Settings}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</table>
{{if .Conflicts}}<h2 id="conflicts" class="bad">Cross-check errors</h2>
<ul>{{range .Conflicts}}<li class="bad">CROSS-CHECK ERROR: {{.}}</li>{{end}}</ul>{{end}}
{{if .Incorrect}}<h2 id="incorrect" class="bad">Incorrect results</h2>
<ul>{{range .Incorrect}}<li class="bad">INCORRECT: {{.}}</li>{{end}}</ul>{{end}}
<h2 id="aggregate-h">Aggregate per backend</h2>
<p class="note">times in {{.Clock}}; solved = proven; par2_s: unsolved runs at twice the time limit; sgm_s: shifted geometric mean of times, shift {{.Shift}} s, unsolved at the limit; wins: instances solved fastest; solved_only: instances no other backend solved; VBS: the virtual best solver; certified: runs whose proof was checked; correct / incorrect / unknown: verdicts against the expected optima, when given. Click a column to sort.</p>
{{template "table" .Aggregate}}
{{if .Pictures}}<h2 id="pictures">Comparison</h2>
{{range .Pictures}}<figure>{{.SVG}}<figcaption>{{.Title}} ({{.File}})</figcaption></figure>
{{end}}{{end}}
{{if .Anytime}}<h2 id="anytime">Anytime behaviour</h2>
{{range .Anytime}}<figure>{{.SVG}}<figcaption>{{.Title}} ({{.File}})</figcaption></figure>
{{end}}{{end}}
<h2 id="instances-h">Per instance</h2>
<p class="note">For each series: the best objective and lower bound over the repeats, the statuses and the mean time in {{.Clock}}. Click a column to sort.</p>
{{template "table" .Instances}}
<h2 id="cells-h">Per cell</h2>
{{template "table" .Cells}}
{{if .Formulation.Rows}}<h2 id="formulation-h">Formulation sizes</h2>
<p class="note">{{.FormulationNote}}.</p>
{{template "table" .Formulation}}{{end}}
{{if .Failures}}<h2 id="failures">Failed runs</h2>
<ul>{{range .Failures}}<li>{{.}}</li>{{end}}</ul>{{end}}
<script>
document.querySelectorAll("table.sortable").forEach(function (t) {
  t.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var dir = th.dataset.dir === "asc" ? -1 : 1;
      th.dataset.dir = dir === 1 ? "asc" : "desc";
      rows.sort(function (a, b) {
        var x = a.cells[col].textContent, y = b.cells[col].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        if (!isNaN(nx) && !isNaN(ny)) return dir * (nx - ny);
        return dir * x.localeCompare(y);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
</script>
</body>
</html>
{{define "table"}}<table class="sortable" id="{{.ID}}"><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td{{if .Class}} class="{{.Class}}"{{end}}>{{if .Links}}{{range $i, $l := .Links}}{{if $i}} {{end}}<a href="{{$l.Href}}">{{$l.Text}}</a>{{end}}{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}
`))
