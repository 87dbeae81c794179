package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/cmd/odt/internal/bench"
	"github.com/odtkit/odtkit/model"
)

// IndexFile is the table of an instance folder written by odt export.
const IndexFile = "index.csv"

// instance is one file of an instance family.
type instance struct {
	data, backend string
	depth         int // bench.NoDepth: none given
	file          string
}

// instanceName is an instance's file name: DATA-BACKEND-dDEPTH.EXT, the
// same for the same inputs on every run.
func instanceName(data, backend string, depth int, format string) string {
	name := bench.DatasetName(data) + "-" + backend
	if depth != bench.NoDepth {
		name += "-d" + strconv.Itoa(depth)
	}
	return name + formatExt(format)
}

// formatExt is the usual file extension of an export format.
func formatExt(format string) string {
	if format == "dimacs" {
		return ".cnf"
	}
	return "." + format
}

// exportMany writes the formulations of every backend × data file × depth
// into the folder dir, then index.csv. Each file is written through a
// temporary file and renamed only when complete, so a failed or
// interrupted export leaves no partial file (the files of the instances
// written before it stay, and are listed in no index).
func exportMany(ctx context.Context, intr *interrupts, e env, ef *encodingFlags, to string, backends []string, depths []int, datas []string, dir string, memCapMB int) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usagef("-o %s: several instances are written to a folder, and this is a file", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	type req struct {
		name    string
		problem model.Problem
		opts    map[string]string
	}
	var reqs []req
	for _, b := range backends {
		ef.backend = b
		name, p, opts, err := ef.request(to)
		if err != nil {
			return err
		}
		noteRespelled(e.stderr, "export", name, opts)
		reqs = append(reqs, req{name, p, opts})
	}
	// Every data file is read before anything is written: bad input
	// leaves the folder as it was.
	sets := make([]*model.Dataset, len(datas))
	for i, data := range datas {
		d, err := ef.df.readContext(ctx, data)
		if err != nil {
			return err
		}
		sets[i] = d
	}
	var done []instance
	// A failure part way, or an interrupt, removes the files this export
	// wrote: a folder holds a whole family, with its index, or none of it.
	var mu sync.Mutex
	ok := false
	cleanup := func() {
		mu.Lock()
		defer mu.Unlock()
		if !ok {
			for _, in := range done {
				os.Remove(filepath.Join(dir, in.file))
			}
			done = nil
		}
	}
	defer cleanup()
	intr.atQuit(cleanup)
	setHeapLimit(memCapMB)
	for i, data := range datas {
		d := sets[i]
		for _, r := range reqs {
			ds := depths
			switch {
			case len(r.problem.Skeleton) > 0: // a skeleton fixes a diagram's depth
				ds = []int{bench.NoDepth}
			case len(ds) == 1 && ds[0] == bench.NoDepth: // --depth not given: the backend's default
				ds = []int{r.problem.MaxDepth}
			}
			for _, depth := range ds {
				p := r.problem
				if depth != bench.NoDepth {
					p.MaxDepth = depth
				}
				in := instance{data: data, backend: r.name, depth: depth, file: instanceName(data, r.name, depth, to)}
				path := filepath.Join(dir, in.file)
				err := writeResult(path, io.Discard, func(w io.Writer) error {
					s := odtkit.Settings{Backend: r.name, Options: r.opts, MemoryLimitMB: memCapMB}
					_, err := odtkit.DefaultRegistry().ExportAs(ctx, ctxWriter{ctx, w}, d, p, s, to)
					return err
				})
				if err != nil {
					return fmt.Errorf("%s (%s, %s): %w", in.file, data, r.name, err)
				}
				mu.Lock()
				done = append(done, in)
				mu.Unlock()
			}
		}
	}
	if err := writeIndex(dir, to, done); err != nil {
		return err
	}
	ok = true
	fmt.Fprintf(e.stderr, "odt export: wrote %d instances and %s in %s\n", len(done), IndexFile, dir)
	return nil
}

// writeIndex writes dir/index.csv: for each instance its data file, depth,
// backend, format, file, its size as the file's header states it, and the
// odt decode command its header gives (DATA and the solution's name
// filled in).
func writeIndex(dir, format string, done []instance) error {
	return writeResult(filepath.Join(dir, IndexFile), io.Discard, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"dataset", "depth", "backend", "format", "file", "variables", "constraints", "nonzeros", "decode"})
		for _, in := range done {
			sz, decode, err := bench.FileSizes(filepath.Join(dir, in.file), format)
			if err != nil {
				return err
			}
			depth := ""
			if in.depth != bench.NoDepth {
				depth = strconv.Itoa(in.depth)
			}
			decode = strings.Replace(decode, " DATA ", " "+in.data+" ", 1)
			for _, placeholder := range []string{"SOLVER_OUTPUT", "SOL"} {
				if strings.HasSuffix(decode, " "+placeholder) {
					decode = strings.TrimSuffix(decode, placeholder) + strings.TrimSuffix(in.file, formatExt(format)) + ".sol"
					break
				}
			}
			cw.Write([]string{in.data, depth, in.backend, format, in.file, sz[0], sz[1], sz[2], decode})
		}
		cw.Flush()
		return cw.Error()
	})
}
