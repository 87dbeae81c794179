package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/odtkit/odtkit/model"
)

// Learning is the held-out evaluation of a protocol run (--split, --cv);
// every field is nil for a plain run.
type Learning struct {
	TrainAccuracy        *float64 `json:"train_accuracy,omitempty"`
	ValidAccuracy        *float64 `json:"valid_accuracy,omitempty"`
	TestAccuracy         *float64 `json:"test_accuracy,omitempty"`
	TestBalancedAccuracy *float64 `json:"test_balanced_accuracy,omitempty"`
	// Chosen is the problem of the final model: the grid point chosen on
	// validation when tuned.
	Chosen *model.Problem `json:"chosen,omitempty"`
}

func learningOf(res *model.Result) Learning {
	var l Learning
	acc := func(ev *model.Evaluation) *float64 {
		if ev == nil {
			return nil
		}
		a := ev.Accuracy
		return &a
	}
	l.TrainAccuracy, l.ValidAccuracy, l.TestAccuracy = acc(res.Train), acc(res.Validation), acc(res.Test)
	if res.Test != nil {
		b := res.Test.BalancedAccuracy
		l.TestBalancedAccuracy = &b
	}
	if res.Train != nil {
		p := res.Problem
		l.Chosen = &p
	}
	return l
}

// group names the runs whose proven optima must agree: same data, depth
// and, for protocol runs, the same training rows and the same problem.
func (r *Run) group() string {
	g := groupKey(r.Name(), r.Depth, r.ObjectiveName)
	if r.Protocol == "" {
		return g
	}
	g += fmt.Sprintf("/seed %d", r.Seed)
	if r.Fold > 0 {
		g += fmt.Sprintf("/fold %d", r.Fold)
	}
	if r.Chosen != nil {
		b, _ := json.Marshal(r.Chosen)
		g += "/" + string(b)
	}
	return g
}

// entryName is the dataset column of the run's row in the summary table:
// protocol runs on different seeds and folds train on different rows,
// so each seed and fold gets its own row ("iris/s1", "iris/s1/f2").
func (r *Run) entryName() string {
	if r.Protocol == "" {
		return r.Name()
	}
	n := fmt.Sprintf("%s/s%d", r.Name(), r.Seed)
	if r.Fold > 0 {
		n += fmt.Sprintf("/f%d", r.Fold)
	}
	return n
}

// label is the row of the accuracy table a run belongs to.
func (r *Run) label() string {
	if r.Tuned {
		return r.Name()
	}
	return fmt.Sprintf("%s d%s", r.Name(), depthText(r.Depth))
}

// AccuracyEntry summarises the test accuracy of one backend on one
// dataset (and depth, when not tuned) over seeds and folds; Dataset "all"
// pools every dataset.
type AccuracyEntry struct {
	Dataset, Backend string
	Runs, Failed     int
	// Means over the runs with a model (NaN when none).
	Train, Valid, Test, TestSD, TestMin, TestMax, TestBalanced float64
	// Chosen counts the chosen grid points ("depth 3" → runs).
	Chosen map[string]int
	tests  []float64
}

// Accuracy builds the accuracy table of the protocol runs (nil when there
// are none): per dataset and backend, then per backend over all datasets.
func Accuracy(runs []Run, backends []string) []AccuracyEntry {
	type key struct{ data, backend string }
	byKey := map[key]*AccuracyEntry{}
	var order []key
	var sums = map[key][3]float64{} // train, valid, balanced sums
	var counts = map[key][3]int{}
	add := func(k key, r *Run) {
		e := byKey[k]
		if e == nil {
			e = &AccuracyEntry{Dataset: k.data, Backend: k.backend, Chosen: map[string]int{}}
			byKey[k] = e
			order = append(order, k)
		}
		e.Runs++
		if r.TestAccuracy == nil {
			e.Failed++
			return
		}
		e.tests = append(e.tests, *r.TestAccuracy)
		s, c := sums[k], counts[k]
		for i, p := range []*float64{r.TrainAccuracy, r.ValidAccuracy, r.TestBalancedAccuracy} {
			if p != nil {
				s[i] += *p
				c[i]++
			}
		}
		sums[k], counts[k] = s, c
		if r.Chosen != nil && r.Tuned {
			e.Chosen[describeChoice(*r.Chosen)]++
		}
	}
	for i := range runs {
		r := &runs[i]
		if r.Protocol == "" {
			continue
		}
		add(key{r.label(), r.Series()}, r)
	}
	if len(order) == 0 {
		return nil
	}
	for i := range runs {
		if r := &runs[i]; r.Protocol != "" {
			add(key{"all", r.Series()}, r)
		}
	}
	rank := map[string]int{}
	for i, b := range backends {
		rank[b] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if (a.data == "all") != (b.data == "all") {
			return b.data == "all"
		}
		if a.data != b.data {
			return a.data < b.data
		}
		return rank[a.backend] < rank[b.backend]
	})
	out := make([]AccuracyEntry, 0, len(order))
	for _, k := range order {
		e := byKey[k]
		s, c := sums[k], counts[k]
		mean := func(i int) float64 {
			if c[i] == 0 {
				return math.NaN()
			}
			return s[i] / float64(c[i])
		}
		e.Train, e.Valid, e.TestBalanced = mean(0), mean(1), mean(2)
		e.Test, e.TestSD = meanSD(e.tests)
		e.TestMin, e.TestMax = math.NaN(), math.NaN()
		if len(e.tests) > 0 {
			e.TestMin, e.TestMax = slices.Min(e.tests), slices.Max(e.tests)
		}
		out = append(out, *e)
	}
	return out
}

// meanSD is the mean and sample standard deviation (NaN when undefined).
func meanSD(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	if len(xs) == 1 {
		return m, math.NaN()
	}
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)-1))
}

func describeChoice(p model.Problem) string {
	var parts []string
	if len(p.Skeleton) > 0 {
		sk := make([]string, len(p.Skeleton))
		for i, w := range p.Skeleton {
			sk[i] = strconv.Itoa(w)
		}
		parts = append(parts, "sk "+strings.Join(sk, ","), "a "+strconv.FormatFloat(p.Alpha, 'g', -1, 64))
	} else if k, ok := p.DepthLimit(); ok {
		parts = append(parts, "d"+strconv.Itoa(k))
	}
	if p.MinSupport > 1 {
		parts = append(parts, "ms "+strconv.Itoa(p.MinSupport))
	}
	if p.LeafCost > 0 {
		parts = append(parts, "λ "+strconv.FormatFloat(p.LeafCost, 'g', -1, 64))
	}
	return strings.Join(parts, " ")
}

func fmtAcc(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}

// accuracyRows renders the accuracy table.
func accuracyRows(entries []AccuracyEntry) ([]string, [][]string) {
	head := []string{"dataset", "backend", "runs", "train_acc", "valid_acc", "test_acc", "test_sd", "test_min", "test_max", "test_balanced_acc", "chosen"}
	var rows [][]string
	for _, e := range entries {
		var ch []string
		for c, n := range e.Chosen {
			ch = append(ch, fmt.Sprintf("%s×%d", c, n))
		}
		sort.Strings(ch)
		runs := strconv.Itoa(e.Runs)
		if e.Failed > 0 {
			runs += fmt.Sprintf(" (%d failed)", e.Failed)
		}
		rows = append(rows, []string{e.Dataset, e.Backend, runs, fmtAcc(e.Train), fmtAcc(e.Valid), fmtAcc(e.Test),
			fmtAcc(e.TestSD), fmtAcc(e.TestMin), fmtAcc(e.TestMax), fmtAcc(e.TestBalanced), strings.Join(ch, " ")})
	}
	return head, rows
}

// writeAccuracy writes accuracy.txt, accuracy.md and accuracy.csv (the
// text table also to out) and the box plot; it returns the files.
func writeAccuracy(dir string, runs []Run, entries []AccuracyEntry, backends []string, out io.Writer, formats []string) ([]string, error) {
	head, rows := accuracyRows(entries)
	var txt, md, cs strings.Builder
	writeAligned(&txt, head, rows)
	writeMarkdownTable(&md, head, rows)
	cw := csv.NewWriter(&cs)
	cw.Write(head)
	cw.WriteAll(rows)
	var files []string
	for name, body := range map[string]string{"accuracy.txt": txt.String(), "accuracy.md": md.String(), "accuracy.csv": cs.String()} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return files, err
		}
		files = append(files, p)
	}
	sort.Strings(files)
	pics, err := accuracyPicture(dir, runs, backends, formats)
	files = append(files, pics...)
	if err != nil {
		return files, err
	}
	_, err = io.WriteString(out, "\ntest accuracy over seeds and folds:\n"+txt.String())
	return files, err
}

// writeAligned writes a table with aligned columns.
func writeAligned(sb *strings.Builder, head []string, rows [][]string) {
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = len([]rune(h))
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, cells := range append([][]string{head}, rows...) {
		var line strings.Builder
		for i, c := range cells {
			if i > 0 {
				line.WriteString("  ")
			}
			line.WriteString(c + strings.Repeat(" ", width[i]-len([]rune(c))))
		}
		sb.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// accuracyPicture draws test-accuracy.svg/.png: for every dataset (and
// "all"), one box per backend over the seeds and folds (median, quartiles,
// whiskers to 1.5 IQR, outliers as points).
func accuracyPicture(dir string, runs []Run, backends []string, formats []string) ([]string, error) {
	var labels []string
	vals := map[string]map[string][]float64{} // label -> backend -> test accuracies
	for i := range runs {
		r := &runs[i]
		if r.Protocol == "" || r.TestAccuracy == nil {
			continue
		}
		for _, l := range []string{r.label(), "all"} {
			if vals[l] == nil {
				vals[l] = map[string][]float64{}
				if l != "all" {
					labels = append(labels, l)
				}
			}
			vals[l][r.Series()] = append(vals[l][r.Series()], *r.TestAccuracy)
		}
	}
	if len(labels) == 0 {
		return nil, nil
	}
	sort.Strings(labels)
	labels = append(labels, "all")
	p := plot.New()
	p.Title.Text = "test accuracy over seeds and folds"
	p.Y.Label.Text = "test accuracy"
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	nb := float64(len(backends))
	w := vg.Points(math.Max(4, math.Min(18, 320/(nb*float64(len(labels))))))
	for j, b := range backends {
		c := palette[j%len(palette)]
		fill := color.NRGBA{c.R, c.G, c.B, 110}
		drawn := false
		for i, l := range labels {
			v := vals[l][b]
			if len(v) == 0 {
				continue
			}
			loc := float64(i) + (float64(j)-(nb-1)/2)*0.8/nb
			box, err := plotter.NewBoxPlot(w, loc, plotter.Values(v))
			if err != nil {
				return nil, fmt.Errorf("test accuracy picture: %w", err)
			}
			box.FillColor = fill
			box.BoxStyle.Color, box.MedianStyle.Color, box.WhiskerStyle.Color = c, c, c
			box.MedianStyle.Width = vg.Points(2)
			box.GlyphStyle.Color = c
			box.GlyphStyle.Shape = draw.CircleGlyph{}
			p.Add(box)
			drawn = true
		}
		if drawn {
			p.Legend.Add(b, swatch{fill})
		}
	}
	// Headroom above the boxes for the legend (top left).
	lo, hi := 1.0, 0.0
	for _, per := range vals {
		for _, v := range per {
			lo, hi = math.Min(lo, slices.Min(v)), math.Max(hi, slices.Max(v))
		}
	}
	span := math.Max(hi-lo, 0.05)
	p.Y.Min, p.Y.Max = lo-0.03*span, hi+(0.08*nb)*span
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.6, float64(len(labels))-0.4
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	width := vg.Length(math.Max(8, 0.9*float64(len(labels)))) * vg.Inch
	return savePlot(p, dir, "test-accuracy", width, 5*vg.Inch, formats)
}

// swatch is a legend entry: a filled rectangle of the backend's colour.
type swatch struct{ fill color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(s.fill, c.ClipPolygonY(pts))
}
