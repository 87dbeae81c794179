package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/cmd/odt/internal/bench"
	"github.com/odtkit/odtkit/learn"
	"github.com/odtkit/odtkit/model"
)

// protocolFlags are odt bench's flags for learning protocols and grids.
type protocolFlags struct {
	split, seedList, alphas, skeletons, minSupports, leafCosts, classWeight string
	cv, tuneFolds                                                           int
	tune                                                                    bool
	// data says how to read the data files (--label, --weight,
	// --data-format) when writing split files.
	data *dataFlags

	// parsed
	protocol  string
	fractions []float64
	seeds     []int64
	depths    []int
	grid      learn.Grid
	diagrams  map[string]bool // backend -> its main objective is the diagram
}

func (p *protocolFlags) declare(c *cmdFlags) {
	c.StringVar(&p.split, "split", "", "stratified `TRAIN/VALID/TEST` split per seed, e.g. 50/25/25 (or TRAIN/TEST, e.g. 80/20)")
	c.IntVar(&p.cv, "cv", 0, "stratified `K`-fold cross-validation per seed (one run per fold)")
	c.StringVar(&p.seedList, "seeds", "1", "split seeds: a `LIST` or range, e.g. 1-5 or 1,3,7")
	c.BoolVar(&p.tune, "tune", false, "tune every run over the --depth, --min-support, --alpha and --skeleton lists on validation rows (or inner folds), then refit on train+valid")
	c.IntVar(&p.tuneFolds, "tune-folds", 3, "inner folds `K` when tuning without validation rows (--cv, or a TRAIN/TEST split)")
	c.StringVar(&p.minSupports, "min-support", "", "least rows in a leaf: `LIST` (a list needs --tune)")
	c.StringVar(&p.leafCosts, "leaf-cost", "", "sparse error objective errors/rows + λ·leaves: `LIST` of λ (tree backends; a list needs --tune)")
	c.StringVar(&p.alphas, "alpha", "", "diagram objective's node weight: `LIST` (diagram backends; a list needs --tune)")
	c.StringVar(&p.skeletons, "skeleton", "", "diagram skeletons `S1:S2`, e.g. 1,2,2:1,2,4 (diagram backends; several need --tune)")
	c.StringVar(&p.classWeight, "class-weight", "", "class weights `MODE` of every run: balanced or none")
}

// check parses the flags; depths are the --depth list.
func (p *protocolFlags) check(depths []int, repeat int) error {
	p.depths = depths
	var err error
	switch {
	case p.split != "" && p.cv != 0:
		return usagef("--split and --cv exclude each other")
	case p.split != "":
		if p.fractions, err = learn.ParseFractions(p.split); err != nil {
			return usagef("--split: %v", err)
		}
		p.protocol = "split " + learn.FormatFractions(p.fractions)
	case p.cv != 0:
		if p.cv < 2 {
			return usagef("--cv %d: want at least 2 folds", p.cv)
		}
		p.protocol = "cv " + strconv.Itoa(p.cv)
	}
	if p.seeds, err = learn.ParseSeeds(p.seedList); err != nil {
		return usagef("--seeds: %v", err)
	}
	if p.protocol == "" && (p.tune || p.seedList != "1") {
		return usagef("--tune and --seeds need a protocol: --split or --cv")
	}
	if p.protocol != "" && repeat != 1 {
		return usagef("--repeat is for plain runs; a protocol repeats over --seeds")
	}
	if p.tuneFolds < 2 {
		return usagef("--tune-folds %d: want at least 2", p.tuneFolds)
	}
	if p.classWeight != "" && p.classWeight != "balanced" && p.classWeight != "none" {
		return usagef("--class-weight %q: want balanced or none", p.classWeight)
	}
	if p.tune {
		p.grid.Depths = depths
	}
	if p.minSupports != "" {
		if p.grid.MinSupports, err = learn.ParseInts(p.minSupports, 0); err != nil {
			return usagef("--min-support: %v", err)
		}
	}
	if p.alphas != "" {
		if p.grid.Alphas, err = learn.ParseFloats(p.alphas); err != nil {
			return usagef("--alpha: %v", err)
		}
	}
	if p.leafCosts != "" {
		if p.grid.LeafCosts, err = learn.ParseFloats(p.leafCosts); err != nil {
			return usagef("--leaf-cost: %v", err)
		}
		if err := checkLeafCosts(p.grid.LeafCosts); err != nil {
			return err
		}
	}
	if p.skeletons != "" {
		if p.grid.Skeletons, err = learn.ParseSkeletons(p.skeletons); err != nil {
			return usagef("--skeleton: %v", err)
		}
	}
	if !p.tune && (len(p.grid.MinSupports) > 1 || len(p.grid.Alphas) > 1 || len(p.grid.Skeletons) > 1 || len(p.grid.LeafCosts) > 1) {
		return usagef("lists of --min-support, --leaf-cost, --alpha or --skeleton values need --tune")
	}
	// Which runs get no depth by their objective is decided per cell
	// (odt bench); here, the diagram backends: their skeleton fixes it.
	p.diagrams = map[string]bool{}
	for _, in := range odtkit.DefaultRegistry().List() {
		if len(in.Objectives) > 0 && in.Objectives[0] == model.DiagramError {
			p.diagrams[in.Name] = true
		}
	}
	return nil
}

// depthless gives the runs of diagram backends no depth
// (model.NoDepthLimit: the skeleton fixes a diagram's depth, and odt
// solve refuses a depth limit beside it), nor those of min-depth and
// min-size backends unless --depth was given, keeping one run per
// combination that is left.
func (p *protocolFlags) depthless(cells []bench.Cell) []bench.Cell {
	seen := map[string]bool{}
	var out []bench.Cell
	for _, c := range cells {
		if p.diagrams[c.Backend] {
			c.Depth = bench.NoDepth
		}
		if seen[c.Key()] {
			continue
		}
		seen[c.Key()] = true
		c.Index = len(out)
		out = append(out, c)
	}
	return out
}

func (p *protocolFlags) describe(repeat int) string {
	if p.protocol == "" {
		return strconv.Itoa(repeat) + " repeats"
	}
	s := fmt.Sprintf("%d seeds, %s", len(p.seeds), p.protocol)
	if p.tune {
		s += ", tuned"
	}
	return s
}

// splitPath is where the split of a dataset (by its label, see
// bench.Labels) and seed is written.
func splitPath(dir, label string, seed int64) string {
	return filepath.Join(dir, "splits", fmt.Sprintf("%s-seed%d.json", strings.ReplaceAll(label, "/", "-"), seed))
}

// writeSplits writes the split file of every dataset and seed the cells
// use (each shard writes the same files for its cells) and records it in
// the cells.
func (p *protocolFlags) writeSplits(cells []bench.Cell, dir string) error {
	if p.protocol == "" {
		return nil
	}
	names := map[string]string{}
	written := map[string]bool{}
	data := map[string]*model.Dataset{}
	for i := range cells {
		c := &cells[i]
		c.Split = splitPath(dir, c.Name(), c.Seed)
		if other, ok := names[c.Split]; ok && other != c.Dataset {
			return usagef("data files %s and %s would have the same split file %s", other, c.Dataset, c.Split)
		}
		names[c.Split] = c.Dataset
		if written[c.Split] {
			continue
		}
		d := data[c.Dataset]
		if d == nil {
			var err error
			if p.data != nil {
				d, err = p.data.read(c.Dataset)
			} else {
				d, err = model.ReadFile(c.Dataset, model.ReadOptions{})
			}
			if err != nil {
				return badInput(err)
			}
			data[c.Dataset] = d
		}
		var sf *learn.SplitFile
		var err error
		if p.cv > 0 {
			sf, err = learn.NewFoldsFile(d, p.cv, c.Seed)
		} else {
			sf, err = learn.NewSplitFile(d, p.fractions, c.Seed)
		}
		if err != nil {
			return badInput(err)
		}
		sf.Data = c.Dataset
		if err := os.MkdirAll(filepath.Dir(c.Split), 0o755); err != nil {
			return err
		}
		if err := sf.WriteFile(c.Split); err != nil {
			return err
		}
		written[c.Split] = true
	}
	return nil
}

// prepare gives a cell's own solve arguments: its split and fold, and
// the grid its backend takes (skeletons and alphas for diagram backends,
// depths and min supports otherwise), with the number of solves the run
// makes.
func (p *protocolFlags) prepare(c bench.Cell) ([]string, int) {
	var args []string
	if c.Split != "" {
		args = append(args, "--split", c.Split)
		if c.Fold > 0 {
			args = append(args, "--fold", strconv.Itoa(c.Fold))
		}
	}
	if p.classWeight != "" {
		args = append(args, "--class-weight", p.classWeight)
	}
	points := 1
	list := func(flag string, n int, vals string) {
		if n > 0 {
			args = append(args, flag, vals)
			points *= n
		}
	}
	if p.diagrams[c.Backend] {
		list("--skeleton", len(p.grid.Skeletons), p.skeletons)
		list("--alpha", len(p.grid.Alphas), p.alphas)
	} else {
		if c.Tuned {
			list("--depth", len(p.depths), joinInts(p.depths))
		}
		list("--min-support", len(p.grid.MinSupports), p.minSupports)
		list("--leaf-cost", len(p.grid.LeafCosts), p.leafCosts)
	}
	solves := 1
	if points > 1 {
		perPoint := 1
		if p.cv > 0 || len(p.fractions) == 2 {
			perPoint = p.tuneFolds
			args = append(args, "--tune-folds", strconv.Itoa(p.tuneFolds))
		}
		solves = points*perPoint + 1
	}
	return args, solves
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
