package dl85_test

import (
	"testing"

	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/model"
)

// TestConformance runs the backend conformance suite on generated data,
// once per objective.
func TestConformance(t *testing.T) {
	for _, obj := range (dl85.Backend{}).Info().Objectives {
		t.Run(string(obj), func(t *testing.T) {
			backendtest.Run(t, dl85.Backend{}, backendtest.Config{Objective: obj})
		})
	}
}

// TestConformanceAnytime runs the suite on CA-DL8.5 under each rule, and
// on its consistent-tree objectives (which no rule changes).
func TestConformanceAnytime(t *testing.T) {
	for _, rule := range []string{"purity", "gain", "discrepancy", "topk", "topk*"} {
		t.Run(rule, func(t *testing.T) {
			backendtest.Run(t, dl85.AnytimeBackend{}, backendtest.Config{Options: map[string]string{"rule": rule}, Objective: model.MinError})
		})
	}
	for _, obj := range []model.Objective{model.MinDepth, model.MinSize, model.MinNodes} {
		t.Run(string(obj), func(t *testing.T) {
			backendtest.Run(t, dl85.AnytimeBackend{}, backendtest.Config{Objective: obj})
		})
	}
}
