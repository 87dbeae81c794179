package backend

import (
	"errors"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/model"
)

func testInfo() Info {
	return Info{Name: "t", Objectives: []model.Objective{model.MinError}, Params: []Param{
		IntParam("n", 3, "count").AtLeast(1),
		FloatParam("gap", 0, "gap").AtLeast(0).AtMost(1),
		FloatParam("eps", 1e-4, "margin").Above(0),
		BoolParam("on", true, "switch"),
		EnumParam("rule", "gain", []string{"gain", "purity"}, "rule"),
		FloatParam("start", 0, "start").Unset("rule's"),
		StringParam("cmd", "", "command").Checked(func(s string) error {
			if strings.HasPrefix(s, "bad") {
				return errors.New("not a solver")
			}
			return nil
		}),
	}}
}

func TestParseDefaultsAndValues(t *testing.T) {
	info := testInfo()
	v, err := info.Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Int("n") != 3 || v.Float("gap") != 0 || v.Float("eps") != 1e-4 || !v.Bool("on") || v.String("rule") != "gain" || v.Has("start") || v.IsSet("n") {
		t.Errorf("defaults: %+v", v)
	}
	v, err = info.Parse(map[string]string{"n": " 7", "gap": "0.5", "on": "off", "rule": "purity", "start": "0.25", "cmd": "minisat"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Int("n") != 7 || v.Float("gap") != 0.5 || v.Bool("on") || v.String("rule") != "purity" || v.Float("start") != 0.25 || !v.IsSet("start") || v.String("cmd") != "minisat" {
		t.Errorf("values: %+v", v)
	}
	if r := v.Raw(); r["n"] != "7" || r["rule"] != "purity" || len(r) != 6 {
		t.Errorf("Raw = %v", r)
	}
	if p, _ := info.Param("start"); p.ShownDefault() != "rule's" {
		t.Errorf("shown default %q", p.ShownDefault())
	}
}

func TestParseRefuses(t *testing.T) {
	info := testInfo()
	for _, c := range []struct{ key, val, msg string }{
		{"n", "0", "an integer of at least 1"},
		{"n", "x", "an integer"},
		{"gap", "1.5", "from 0 to 1"},
		{"gap", "NaN", "a number"},
		{"eps", "0", "above 0"},
		{"on", "maybe", "true or false"},
		{"rule", "bogus", "one of gain, purity"},
		{"cmd", "bad one", "not a solver"},
		{"zzz", "1", "has no option zzz (it knows: n, gap"},
	} {
		_, err := info.Parse(map[string]string{c.key: c.val})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s=%s: %v; want ErrInvalid with %q", c.key, c.val, err, c.msg)
		}
	}
}

func TestBudget(t *testing.T) {
	var none *Budget
	if none.Reserve(1<<50, "x") != nil || !none.Fits(1<<50) || none.Limit() != 0 {
		t.Error("a nil budget caps")
	}
	b := NewBudget(100)
	if err := b.Reserve(60, "a"); err != nil {
		t.Fatal(err)
	}
	err := b.Reserve(50, "table")
	if !errors.Is(err, model.ErrMemoryLimit) || !strings.Contains(err.Error(), "table") {
		t.Errorf("over the cap: %v", err)
	}
	if b.Used() != 60 || b.Fits(41) || !b.Fits(40) {
		t.Errorf("used %d after a refused reservation", b.Used())
	}
	b.Release(60)
	if b.Used() != 0 || b.Peak() != 60 {
		t.Errorf("used %d peak %d", b.Used(), b.Peak())
	}
}
