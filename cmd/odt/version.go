package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/odtkit/odtkit"
)

// versionInfo describes the running binary.
type versionInfo struct {
	Module, Version, Go string
	Revision            string // VCS revision, "" when unknown
	Modified            bool   // built from a modified checkout
	Tags                []string
	HiGHS               bool
}

func buildVersion() versionInfo {
	v := versionInfo{Module: "github.com/odtkit/odtkit", Version: "unknown", Go: runtime.Version(), HiGHS: odtkit.HiGHSEnabled}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "-tags":
			v.Tags = strings.FieldsFunc(s.Value, func(r rune) bool { return r == ',' || r == ' ' })
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func runVersion(e env, args []string) error {
	c := newFlags("version", "odt version", "Prints the module version, the VCS revision, the Go version and the build tags\n"+
		"(whether the HiGHS MILP adapter is compiled in).", 0, 0)
	if _, err := c.parse(e.stdout, args); err != nil {
		return err
	}
	v := buildVersion()
	rev := v.Revision
	if rev == "" {
		rev = "unknown"
	}
	if v.Modified {
		rev += " (modified)"
	}
	tags := strings.Join(v.Tags, ",")
	if tags == "" {
		tags = "none"
	}
	highs := "without HiGHS (milp-odd and milp-odt need a build with -tags highs)"
	if v.HiGHS {
		highs = "with HiGHS"
	}
	fmt.Fprintf(e.stdout, "odt %s (module %s)\nrevision:   %s\ngo:         %s\nbuild tags: %s\nmilp:       %s\n",
		v.Version, v.Module, rev, v.Go, tags, highs)
	return nil
}
