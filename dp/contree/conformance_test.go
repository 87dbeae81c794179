package contree_test

import (
	"testing"

	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/dp/contree"
)

// TestConformance runs the backend conformance suite on generated data.
func TestConformance(t *testing.T) {
	backendtest.Run(t, contree.Backend{}, backendtest.Config{})
}
