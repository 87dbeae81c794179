package bench

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// instanceTimes gathers, per series, the time of each instance (its time
// on clock when solved, +Inf when not) and its outcome (see outcome) over
// the runs without a learning protocol, and the grid's time limit.
func instanceTimes(runs []Run, clock Clock) (series []string, times map[string]map[string]float64, outcomes map[string]map[string]string, keys []string, limit float64) {
	times, outcomes = map[string]map[string]float64{}, map[string]map[string]string{}
	for i := range runs {
		r := &runs[i]
		if r.Protocol != "" {
			continue
		}
		s := r.Series()
		if times[s] == nil {
			times[s], outcomes[s] = map[string]float64{}, map[string]string{}
			series = append(series, s)
		}
		k := instanceKey(r)
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		t := math.Inf(1)
		if solvedRun(r) {
			t = math.Max(clock.of(r), minTime)
		}
		times[s][k], outcomes[s][k] = t, outcome(r)
		limit = math.Max(limit, r.TimeLimit)
	}
	return series, times, outcomes, keys, limit
}

// newPlot returns a plot with a title, a grid and a legend at the top.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

// styleLine gives series i its colour (dashed past the palette).
func styleLine(l *plotter.Line, i int) {
	l.Color = palette[i%len(palette)]
	l.Width = vg.Points(2)
	if i >= len(palette) {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
}

// pictureFormats are the file formats of every picture: SVG (inlined in
// report.html) and PNG, and PDF with pdf set (for papers).
func pictureFormats(pdf bool) []string {
	if pdf {
		return []string{".svg", ".png", ".pdf"}
	}
	return []string{".svg", ".png"}
}

// savePlot writes p under base in each of the formats (extensions) and
// returns the files.
func savePlot(p *plot.Plot, dir, base string, w, h vg.Length, formats []string) ([]string, error) {
	var files []string
	for _, ext := range formats {
		f := filepath.Join(dir, base+ext)
		if err := p.Save(w, h, f); err != nil {
			return files, fmt.Errorf("picture %s: %w", f, err)
		}
		files = append(files, f)
	}
	return files, nil
}

// limitLine is a dashed grey line through pts (a time limit).
func limitLine(pts plotter.XYs) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color = color.Gray{Y: 110}
	l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	l.Width = vg.Points(1)
	return l, nil
}

// WriteComparePictures writes the cactus plot (instances solved within a
// time), the Dolan–Moré performance profile and a log–log scatter of the
// times of each pair of series (pairs; nil: every pair) into dir, times on
// clock, in each of the formats, and returns the files written. Runs of
// learning protocols are left out; a grid with no plain run writes
// nothing.
func WriteComparePictures(dir string, runs []Run, pairs [][2]string, clock Clock, formats []string) ([]string, error) {
	series, times, outcomes, keys, limit := instanceTimes(runs, clock)
	if len(keys) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = minTime
		for _, s := range series {
			for _, t := range times[s] {
				if !math.IsInf(t, 1) {
					limit = math.Max(limit, t)
				}
			}
		}
	}
	var files []string
	axis := "time (s, log scale)"
	if clock == CPU {
		axis = "CPU time (s, log scale)"
	}
	more, err := cactusPlot(dir, series, times, len(keys), limit, axis, formats)
	files = append(files, more...)
	if err != nil {
		return files, err
	}
	more, err = profilePlot(dir, series, times, keys, formats)
	files = append(files, more...)
	if err != nil {
		return files, err
	}
	if pairs == nil {
		for i := range series {
			for j := i + 1; j < len(series); j++ {
				pairs = append(pairs, [2]string{series[i], series[j]})
			}
		}
	}
	for _, pr := range pairs {
		if times[pr[0]] == nil || times[pr[1]] == nil {
			return files, fmt.Errorf("scatter %s:%s: the grid has no series %q", pr[0], pr[1], pr[slices.IndexFunc(pr[:], func(s string) bool { return times[s] == nil })])
		}
		more, err := scatterPlot(dir, pr[0], pr[1], times, outcomes, keys, limit, axis, formats)
		files = append(files, more...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// cactusPlot: for each series, the number of instances solved (x) within
// a time (y, log scale); the time limit drawn.
func cactusPlot(dir string, series []string, times map[string]map[string]float64, n int, limit float64, axis string, formats []string) ([]string, error) {
	p := newPlot(fmt.Sprintf("cactus: instances solved (of %d) within a time", n))
	p.X.Label.Text = "instances solved"
	p.Y.Label.Text = axis
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Min, p.X.Max = 0, float64(n)+0.5
	p.Y.Min, p.Y.Max = minTime, 2*math.Max(limit, minTime)
	for i, s := range series {
		var ts []float64
		for _, t := range times[s] {
			if !math.IsInf(t, 1) {
				ts = append(ts, t)
			}
		}
		sort.Float64s(ts)
		pts := plotter.XYs{{X: 0, Y: minTime}}
		for j, t := range ts {
			pts = append(pts, plotter.XY{X: float64(j + 1), Y: t})
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("cactus plot: %w", err)
		}
		styleLine(l, i)
		sc.Color = l.Color
		sc.Shape = draw.CircleGlyph{}
		p.Add(l, sc)
		p.Legend.Add(fmt.Sprintf("%s (%d)", s, len(ts)), l)
	}
	if limit > minTime {
		l, err := limitLine(plotter.XYs{{X: 0, Y: limit}, {X: float64(n) + 0.5, Y: limit}})
		if err != nil {
			return nil, err
		}
		p.Add(l)
		p.Legend.Add("time limit", l)
	}
	return savePlot(p, dir, "cactus", 7*vg.Inch, 5*vg.Inch, formats)
}

// profilePlot is the Dolan–Moré performance profile: for each series,
// the fraction of instances it solved within a factor τ of the fastest
// series (x: log₂ τ).
func profilePlot(dir string, series []string, times map[string]map[string]float64, keys []string, formats []string) ([]string, error) {
	ratios := map[string][]float64{}
	maxLog := 1.0
	for _, k := range keys {
		best := math.Inf(1)
		for _, s := range series {
			if t, ok := times[s][k]; ok {
				best = math.Min(best, t)
			}
		}
		if math.IsInf(best, 1) {
			continue
		}
		for _, s := range series {
			t, ok := times[s][k]
			if !ok || math.IsInf(t, 1) {
				continue
			}
			lr := math.Log2(t / best)
			ratios[s] = append(ratios[s], lr)
			maxLog = math.Max(maxLog, lr)
		}
	}
	p := newPlot("performance profile")
	p.Legend.Left = false
	p.Legend.Top = false
	p.X.Label.Text = "log₂ τ (time within a factor τ of the fastest)"
	p.Y.Label.Text = "fraction of instances"
	p.Y.Min, p.Y.Max = 0, 1.02
	xmax := math.Ceil(maxLog*1.05 + 0.1)
	p.X.Min, p.X.Max = 0, xmax
	for i, s := range series {
		// The fraction is of the instances the series ran (a grid mixing
		// objectives runs each series on its own instances).
		n := float64(len(times[s]))
		rs := ratios[s]
		sort.Float64s(rs)
		pts := plotter.XYs{{X: 0, Y: 0}}
		for j, r := range rs {
			pts = append(pts, plotter.XY{X: r, Y: float64(j+1) / n})
		}
		pts = append(pts, plotter.XY{X: xmax, Y: float64(len(rs)) / n})
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("performance profile: %w", err)
		}
		l.StepStyle = plotter.PostStep
		styleLine(l, i)
		p.Add(l)
		p.Legend.Add(s, l)
	}
	return savePlot(p, dir, "profile", 7*vg.Inch, 5*vg.Inch, formats)
}

// scatterKinds are the kinds of points of a scatter plot, each with its
// marker: both series solved the instance, or at least one did not — ran
// out of time, out of memory, failed, or contradicted an expected optimum
// (the worst of the two decides). Unsolved times sit on the limit line.
var scatterKinds = []struct {
	outcome, label string
	glyph          draw.GlyphDrawer
	colour         color.RGBA
}{
	{"solved", "both solved", draw.CircleGlyph{}, palette[0]},
	{"time-out", "time-out", draw.CrossGlyph{}, palette[3]},
	{"memory-out", "memory-out", draw.TriangleGlyph{}, palette[4]},
	{"failed", "failed", draw.SquareGlyph{}, palette[5]},
	{Incorrect, "incorrect", draw.PlusGlyph{}, palette[1]},
}

// scatterKind is the index in scatterKinds of a point whose two runs had
// outcomes a and b.
func scatterKind(a, b string) int {
	k := 0
	for i, sk := range scatterKinds {
		if sk.outcome == a || sk.outcome == b {
			k = max(k, i)
		}
	}
	return k
}

// scatterPlot compares two series' times instance by instance on log–log
// axes, the diagonal and the time limit drawn; solved instances, time-outs,
// memory-outs, failures and incorrect results each have their marker, the
// unsolved times on the limit line.
func scatterPlot(dir, a, b string, times map[string]map[string]float64, outcomes map[string]map[string]string, keys []string, limit float64, axis string, formats []string) ([]string, error) {
	p := newPlot(fmt.Sprintf("%s vs %s: time per instance", a, b))
	p.X.Label.Text = a + " " + axis
	p.Y.Label.Text = b + " " + axis
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Scale = plot.LogScale{}
		ax.Tick.Marker = plot.LogTicks{Prec: -1}
		ax.Min, ax.Max = minTime, 2*math.Max(limit, minTime)
	}
	pts := make([]plotter.XYs, len(scatterKinds))
	for _, k := range keys {
		ta, okA := times[a][k]
		tb, okB := times[b][k]
		if !okA || !okB {
			continue
		}
		i := scatterKind(outcomes[a][k], outcomes[b][k])
		pts[i] = append(pts[i], plotter.XY{X: math.Min(ta, limit), Y: math.Min(tb, limit)})
	}
	hi := 2 * math.Max(limit, minTime)
	diag, err := plotter.NewLine(plotter.XYs{{X: minTime, Y: minTime}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.Color = color.Gray{Y: 160}
	p.Add(diag)
	lim, err := limitLine(plotter.XYs{{X: minTime, Y: limit}, {X: limit, Y: limit}, {X: limit, Y: minTime}})
	if err != nil {
		return nil, err
	}
	p.Add(lim)
	p.Legend.Add("time limit", lim)
	for i, kind := range scatterKinds {
		if len(pts[i]) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts[i])
		if err != nil {
			return nil, fmt.Errorf("scatter %s-%s: %w", a, b, err)
		}
		sc.Color = kind.colour
		sc.Shape = kind.glyph
		sc.Radius = vg.Points(3)
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("%s (%d)", kind.label, len(pts[i])), sc)
	}
	return savePlot(p, dir, "scatter-"+fileSafe(a)+"-"+fileSafe(b), 5.5*vg.Inch, 5.5*vg.Inch, formats)
}

// fileSafe makes a name usable in a file name: letters (any script),
// digits, '-' and '.' are kept, anything else becomes '_' ("dl85 t2" →
// "dl85_t2", "sa/d/d2" → "sa-d-d2": '/' becomes '-'). Two names may
// share a safe form: see uniqueNames.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '.':
			return r
		case r == '/':
			return '-'
		}
		return '_'
	}, s)
}

// ParsePairs reads a --scatter list: A:B pairs separated by commas.
func ParsePairs(s string) ([][2]string, error) {
	var out [][2]string
	for _, p := range ParseList(s) {
		a, b, ok := strings.Cut(p, ":")
		if !ok || a == "" || b == "" || a == b {
			return nil, fmt.Errorf("%q: want A:B, two different backends or configurations", p)
		}
		out = append(out, [2]string{a, b})
	}
	return out, nil
}
