package satodt_test

import (
	"testing"

	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/encode/satodt"
)

// TestConformance runs the backend conformance suite on generated data,
// with each in-process solver and both searches.
func TestConformance(t *testing.T) {
	for _, opts := range []map[string]string{
		{},
		{"sat-solver": "gini"},
		{"search": "bisect"},
		{"search": "rows"},
		{"per-root": "false"},
	} {
		t.Run(opts["sat-solver"]+opts["search"]+opts["per-root"], func(t *testing.T) {
			backendtest.Run(t, satodt.Backend{}, backendtest.Config{Options: opts})
		})
	}
}
