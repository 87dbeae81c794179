package satodt_test

import (
	"testing"

	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/encode/satodt"
)

// TestConformance runs the backend conformance suite on generated data
// with every search option (searchOptions), and with the other
// in-process solver.
func TestConformance(t *testing.T) {
	for _, opts := range append(searchOptions(), map[string]string{"sat-solver": "gini"}) {
		name := opts["sat-solver"]
		if name == "" {
			name = "search=" + opts["search"] + ",per-root=" + opts["per-root"] + ",counter=" + opts["counter"]
		}
		t.Run(name, func(t *testing.T) {
			backendtest.Run(t, satodt.Backend{}, backendtest.Config{Options: opts})
		})
	}
}
