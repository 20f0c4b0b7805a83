package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "dev"},
		{"go install @v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"},
		{"checkout build", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "4915330abcdef0123456789", "vcs.time", "2026-11-25T22:00:00Z", "vcs.modified", "false")}, true,
			"dev-4915330abcde (2026-11-25T22:00:00Z)"},
		{"checkout build with changes", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "4915330abcdef0123456789", "vcs.modified", "true")}, true, "dev-4915330abcde-dirty"},
		{"no vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "dev"},
	} {
		if got := versionFrom(c.info, c.ok); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// The binary under test has build info, and --version prints what
	// it says rather than a fixed "dev".
	info, ok := debug.ReadBuildInfo()
	out, _, code := loopgate(t, "--version")
	if code != exitOK || out != "loopgate version "+versionFrom(info, ok)+"\n" {
		t.Errorf("--version printed %q (exit %d)", out, code)
	}
}
