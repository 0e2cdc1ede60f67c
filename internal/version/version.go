// Package version is hxbar's provenance: the module version and the VCS
// revision the binary was built from (runtime/debug.ReadBuildInfo). Sweeps
// record it with every row and refuse to mix rows of two versions.
package version

import (
	"runtime/debug"
	"sync"
)

// Info is what the build info says; empty fields are unknown.
type Info struct {
	Module   string // "(devel)" for a build from a work tree
	Revision string // VCS revision, "" when the build has none (go test, go run)
	Modified bool   // the work tree had uncommitted changes
}

// Read is the build info of this binary.
var Read = sync.OnceValue(func() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{}
	}
	info := Info{Module: bi.Main.Version}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
})

// String is the version as rows record it: "MODULE REVISION[-dirty]", with
// "unknown" for what the build info lacks. A 'go test' binary has neither a
// module version nor a revision, so its string is the same on every run.
func (i Info) String() string {
	mod, rev := i.Module, i.Revision
	if mod == "" {
		mod = "unknown"
	}
	if rev == "" {
		rev = "unknown"
	} else if i.Modified {
		rev += "-dirty"
	}
	return mod + " " + rev
}

// String is this binary's version (Read().String()).
func String() string { return Read().String() }
