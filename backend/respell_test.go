package backend

import (
	"errors"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// renamedInfo has an option whose old values are now another option's.
func renamedInfo() Info {
	return Info{Name: "t", Objectives: []model.Objective{model.MinError}, Params: []Param{
		EnumParam("formulation", "strengthened", []string{"strengthened", "published"}, "form").
			Renamed("flow", "method=flow").Renamed("benders", "method=benders"),
		EnumParam("method", "flow", []string{"flow", "benders"}, "method"),
	}}
}

func TestRenamedSpellingIsReadAsTheNewOne(t *testing.T) {
	info := renamedInfo()
	raw := map[string]string{"formulation": "benders"}
	v, err := info.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if v.String("method") != "benders" || v.String("formulation") != "strengthened" || v.IsSet("formulation") || !v.IsSet("method") {
		t.Errorf("formulation=benders read as method=%q formulation=%q (set %v, %v)", v.String("method"), v.String("formulation"), v.IsSet("formulation"), v.IsSet("method"))
	}
	if raw["formulation"] != "benders" || len(raw) != 1 {
		t.Errorf("Parse changed its argument: %v", raw)
	}
	out, notes := info.Respell(raw)
	if out["method"] != "benders" || len(out) != 1 {
		t.Errorf("Respell: %v", out)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "formulation=benders") || !strings.Contains(notes[0], "method=benders") || !strings.Contains(notes[0], "deprecated") {
		t.Errorf("notes %q", notes)
	}
	// The new spellings need no note; the old one beside the same new
	// value is taken.
	for _, raw := range []map[string]string{{"method": "benders"}, {"formulation": "published"}, {"formulation": "flow", "method": "flow"}} {
		if _, err := info.Parse(raw); err != nil {
			t.Errorf("%v: %v", raw, err)
		}
		if _, notes := info.Respell(raw); len(notes) != 0 && raw["formulation"] != "flow" {
			t.Errorf("%v: notes %q", raw, notes)
		}
	}
}

func TestRenamedSpellingAgainstTheNewKeyIsRefused(t *testing.T) {
	_, err := renamedInfo().Parse(map[string]string{"formulation": "benders", "method": "flow"})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "method") || !strings.Contains(err.Error(), "formulation=benders") {
		t.Errorf("err %v", err)
	}
	_, err = renamedInfo().Parse(map[string]string{"formulation": "oct"})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "old spellings still taken: benders, flow") {
		t.Errorf("err %v", err)
	}
}
