package dl85_test

import (
	"testing"

	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/dp/dl85"
)

// TestConformance runs the backend conformance suite on generated data.
func TestConformance(t *testing.T) {
	backendtest.Run(t, dl85.Backend{}, backendtest.Config{})
}

// TestConformanceAnytime runs the suite on CA-DL8.5 under each rule.
func TestConformanceAnytime(t *testing.T) {
	for _, rule := range []string{"purity", "gain", "discrepancy", "topk", "topk*"} {
		t.Run(rule, func(t *testing.T) {
			backendtest.Run(t, dl85.AnytimeBackend{}, backendtest.Config{Options: map[string]string{"rule": rule}})
		})
	}
}
