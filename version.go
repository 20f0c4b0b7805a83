package main

import "runtime/debug"

// The version --version prints: set with -ldflags "-X main.version=...",
// else taken from the build info Go records in the binary (the module
// version for `go install ...@vX.Y.Z`, the commit for a build in a
// checkout), "dev" only when neither is known.
func init() {
	if version == "dev" {
		info, ok := debug.ReadBuildInfo()
		version = versionFrom(info, ok)
	}
}

// versionFrom words a build's version: the main module's version when it
// has one, else its commit (12 hex digits, "-dirty" with local changes,
// and its time), else "dev".
func versionFrom(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	v := "dev-" + rev[:min(12, len(rev))]
	if dirty {
		v += "-dirty"
	}
	if at != "" {
		v += " (" + at + ")"
	}
	return v
}
