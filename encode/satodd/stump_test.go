package satodd

import (
	"context"
	"testing"

	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// TestStumpStopsWithTheContext: the root stump's pass over the tests
// (over a million on big numeric data) ends with the context, with the
// best stump among the tests tried; on a live context it is the best
// split.
func TestStumpStopsWithTheContext(t *testing.T) {
	d := modeltest.Numeric(300, 4, 1)
	p, err := satjob.Prepare(context.Background(), model.Binarize(d))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tests) < 2 {
		t.Fatalf("%d kept tests; want several", len(p.Tests))
	}
	live := stump(context.Background(), p)
	if live.Size() != 3 {
		t.Fatalf("stump on a live context has %d nodes; want a split and two leaves", live.Size())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if g := stump(ctx, p); g.Size() != 1 {
		t.Fatalf("stump on an ended context has %d nodes; want the single leaf (no test tried)", g.Size())
	}
}
