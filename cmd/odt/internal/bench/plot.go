package bench

import (
	"fmt"
	"hash/fnv"
	"image/color"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/odtkit/odtkit/model"
)

// Curve is a step function of primal gap over time: Gap[i] holds on
// [T[i], T[i+1]).
type Curve struct {
	T, Gap []float64
}

// gapCurve is the primal gap of one run over [0, horizon] against ref.
func gapCurve(r Run, ref, horizon float64, haveRef bool) Curve {
	c := Curve{T: []float64{0}, Gap: []float64{1}}
	if !haveRef {
		return c
	}
	for _, inc := range r.Incumbents {
		if inc.Seconds >= horizon {
			break
		}
		g := model.PrimalGap(inc.Objective, ref)
		if inc.Seconds <= c.T[len(c.T)-1] {
			c.Gap[len(c.Gap)-1] = g
			continue
		}
		c.T = append(c.T, inc.Seconds)
		c.Gap = append(c.Gap, g)
	}
	return c
}

// boundCurve is the dual gap of one run's lower bound over [0, horizon]
// against ref, on the primal gap's scale: 1 before its first bound, then
// (ref − bound) / ref after each rise (0 once the bound meets the best
// known objective). The run's final bound counts from its end, so a run
// that proves its optimum ends at 0 even if it traced no rise.
func boundCurve(r Run, ref, horizon float64, haveRef bool) Curve {
	c := Curve{T: []float64{0}, Gap: []float64{1}}
	if !haveRef {
		return c
	}
	pts := r.Bounds
	if r.LowerBound != nil && (len(pts) == 0 || *r.LowerBound > pts[len(pts)-1].LowerBound) {
		pts = append(slices.Clip(pts), model.BoundPoint{Seconds: r.Seconds, LowerBound: *r.LowerBound})
	}
	for _, b := range pts {
		if b.Seconds >= horizon {
			break
		}
		g := 1.0
		if b.LowerBound <= ref {
			g = model.PrimalGap(b.LowerBound, ref)
		}
		if b.Seconds <= c.T[len(c.T)-1] {
			c.Gap[len(c.Gap)-1] = g
			continue
		}
		c.T = append(c.T, b.Seconds)
		c.Gap = append(c.Gap, g)
	}
	return c
}

// tracesBound tells whether a run traced a lower bound above 0 while it
// searched (backends that know their bound only at the end trace none,
// and get no bound curve).
func (r Run) tracesBound() bool {
	for _, b := range r.Bounds {
		if b.LowerBound > 0 {
			return true
		}
	}
	return false
}

// boundSeries names the bound curve of a series in Pictures' maps.
func boundSeries(series string) string { return series + " lower bound" }

// at evaluates the step function at t.
func (c Curve) at(t float64) float64 {
	i := sort.SearchFloat64s(c.T, t)
	if i < len(c.T) && c.T[i] == t {
		return c.Gap[i]
	}
	return c.Gap[max(i-1, 0)]
}

// averageCurves averages step functions pointwise.
func averageCurves(cs []Curve) Curve {
	var ts []float64
	for _, c := range cs {
		ts = append(ts, c.T...)
	}
	sort.Float64s(ts)
	ts = compactFloats(ts)
	out := Curve{T: ts, Gap: make([]float64, len(ts))}
	for i, t := range ts {
		s := 0.0
		for _, c := range cs {
			s += c.at(t)
		}
		out.Gap[i] = s / float64(len(cs))
	}
	return out
}

func compactFloats(xs []float64) []float64 {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// Pictures builds the anytime curves: one picture per dataset and depth
// (one line per backend, averaged over repeats) and, per depth, the
// average over datasets. It returns picture name → per-backend curves
// and the horizon of each picture. A backend whose runs of a picture
// prove lower bounds also has the curve of their dual gap, under
// boundSeries of its name.
func Pictures(runs []Run, s Summary) (map[string]map[string]Curve, map[string]float64) {
	type key struct{ group, backend string }
	per := map[key][]Curve{}
	horizon := map[string]float64{}
	avgOf := map[string]string{} // group -> its average picture
	for _, r := range runs {
		g := r.group()
		h := r.TimeLimit
		if h <= 0 {
			h = r.Seconds
		}
		horizon[g] = math.Max(horizon[g], h)
		avgOf[g] = groupKey("average", r.Depth, r.ObjectiveName)
	}
	for _, r := range runs {
		g := r.group()
		ref, ok := s.Best[g]
		per[key{g, r.Series()}] = append(per[key{g, r.Series()}], gapCurve(r, ref, horizon[g], ok))
	}
	// Bound curves for the series that traced a bound in some run of
	// the picture, averaged over all its runs (1 for a run without).
	withBound := map[key]bool{}
	for _, r := range runs {
		if r.tracesBound() {
			withBound[key{r.group(), r.Series()}] = true
		}
	}
	for _, r := range runs {
		g := r.group()
		if !withBound[key{g, r.Series()}] {
			continue
		}
		ref, ok := s.Best[g]
		k := key{g, boundSeries(r.Series())}
		per[k] = append(per[k], boundCurve(r, ref, horizon[g], ok))
	}
	pics := map[string]map[string]Curve{}
	hz := map[string]float64{}
	avg := map[key][]Curve{}
	for k, cs := range per {
		c := averageCurves(cs)
		if pics[k.group] == nil {
			pics[k.group] = map[string]Curve{}
		}
		pics[k.group][k.backend] = c
		hz[k.group] = horizon[k.group]
		a := avgOf[k.group]
		avg[key{a, k.backend}] = append(avg[key{a, k.backend}], c)
		hz[a] = math.Max(hz[a], horizon[k.group])
	}
	for k, cs := range avg {
		if pics[k.group] == nil {
			pics[k.group] = map[string]Curve{}
		}
		pics[k.group][k.backend] = averageCurves(cs)
	}
	return pics, hz
}

// pictureTitle turns a picture's group name ("iris/d3", "average/d-/min-depth")
// into its title ("iris, depth 3", "average over datasets, no depth limit, min-depth").
// A dataset's label may hold "/" itself ("sa/d/d2": data file sa/d at
// depth 2): the depth is the last part that reads as one.
func pictureTitle(name string) string {
	parts := strings.Split(name, "/")
	at := -1
	for i := len(parts) - 1; i >= 1; i-- {
		if d, ok := strings.CutPrefix(parts[i], "d"); ok && (d == "-" || d != "" && strings.Trim(d, "0123456789") == "") {
			at = i
			break
		}
	}
	if at < 0 {
		return strings.Join(parts, ", ")
	}
	head := strings.Join(parts[:at], "/")
	if head == "average" {
		head = "average over datasets"
	}
	depth := "depth " + strings.TrimPrefix(parts[at], "d")
	if parts[at] == "d-" {
		depth = "no depth limit"
	}
	return strings.Join(append([]string{head, depth}, parts[at+1:]...), ", ")
}

// uniqueNames gives each of names (sorted, distinct) a file name made
// with fileSafe, unique among them: a name whose safe form another name
// shares gets a short hash of itself appended ("x_ü" and "x_ö" stay
// apart, and so do "sa/d" and "sa_d").
func uniqueNames(names []string) map[string]string {
	count := map[string]int{}
	for _, n := range names {
		count[fileSafe(n)]++
	}
	out := make(map[string]string, len(names))
	for _, n := range names {
		f := fileSafe(n)
		if count[f] > 1 {
			h := fnv.New32a()
			h.Write([]byte(n))
			f += fmt.Sprintf("-%08x", h.Sum32())
		}
		out[n] = f
	}
	return out
}

// minTime is the left end of the log time axis; earlier times are drawn there.
const minTime = 1e-3

// palette gives each backend a distinct, readable colour.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 255}, {0xd6, 0x27, 0x28, 255}, {0x2c, 0xa0, 0x2c, 255}, {0xff, 0x7f, 0x0e, 255},
	{0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255}, {0xe3, 0x77, 0xc2, 255}, {0x17, 0xbe, 0xcf, 255},
}

// curveLine draws step function c up to xMax on the log time axis.
func curveLine(c Curve, xMax float64) (*plotter.Line, error) {
	xy := make(plotter.XYs, 0, len(c.T)+1)
	for j := range c.T {
		xy = append(xy, plotter.XY{X: math.Max(c.T[j], minTime), Y: c.Gap[j]})
	}
	xy = append(xy, plotter.XY{X: xMax, Y: c.Gap[len(c.Gap)-1]})
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	l.StepStyle = plotter.PostStep
	return l, nil
}

// hasBoundCurve tells whether a picture draws a lower bound.
func hasBoundCurve(curves map[string]Curve) bool {
	for n := range curves {
		if strings.HasSuffix(n, boundSeries("")) {
			return true
		}
	}
	return false
}

// WritePictures writes every anytime picture into dir in each of the
// formats (extensions) and returns the files written.
func WritePictures(dir string, runs []Run, s Summary, formats []string) ([]string, error) {
	// Protocol runs train on different rows per seed and fold: their
	// anytime curves are not comparable, their accuracy has its own picture.
	var plain []Run
	for _, r := range runs {
		if r.Protocol == "" {
			plain = append(plain, r)
		}
	}
	pics, hz := Pictures(plain, s)
	names := make([]string, 0, len(pics))
	for n := range pics {
		names = append(names, n)
	}
	sort.Strings(names)
	file := uniqueNames(names)
	var files []string
	for _, name := range names {
		p := plot.New()
		title := pictureTitle(name)
		p.Title.Text = "anytime: " + title
		// Runs span milliseconds to minutes: a log time axis from 1 ms.
		p.X.Label.Text = "time (s, log scale)"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Label.Text = "primal gap (0 = best known objective)"
		p.Y.Min, p.Y.Max = 0, 1.3
		p.X.Min, p.X.Max = minTime, math.Max(hz[name], 10*minTime)
		p.Add(plotter.NewGrid())
		p.Legend.Top = true
		if hasBoundCurve(pics[name]) {
			p.Y.Label.Text = "primal gap (solid), dual gap of the lower bound (dotted)"
		}
		for i, b := range s.Backends {
			for _, bound := range []bool{false, true} {
				series := b
				if bound {
					series = boundSeries(b)
				}
				c, ok := pics[name][series]
				if !ok {
					continue
				}
				l, err := curveLine(c, p.X.Max)
				if err != nil {
					return files, fmt.Errorf("picture %s: %w", name, err)
				}
				l.Color = palette[i%len(palette)]
				l.Width = vg.Points(2)
				switch {
				case bound:
					// The bound beside its backend's incumbents: same
					// colour, dotted, thinner.
					l.Width = vg.Points(1.5)
					l.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
				case i >= len(palette):
					l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
				}
				p.Add(l)
				p.Legend.Add(series, l)
			}
		}
		more, err := savePlot(p, dir, "anytime-"+file[name], 8*vg.Inch, 5*vg.Inch, formats)
		files = append(files, more...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}
