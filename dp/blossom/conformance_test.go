package blossom_test

import (
	"testing"

	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/dp/blossom"
)

// TestConformance runs the backend conformance suite on generated data.
func TestConformance(t *testing.T) {
	backendtest.Run(t, blossom.Backend{}, backendtest.Config{})
}
