package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// checkOutputs refuses a run whose output files (flag name -> path) would
// overwrite one of its inputs (flag name -> path) or each other, before
// anything is read or written. Two paths are the same file when they clean
// to the same absolute path (./x and x) or, when both exist, os.SameFile
// says so (a symlink, a hard link), or, when neither exists, they name the
// same entry of the same directory (x and sub/x with sub a symlink to .). Empty paths are flags not given. A
// character device (/dev/null) may take several outputs.
func checkOutputs(inputs, outputs map[string]string) error {
	outs := sortedFlags(outputs)
	ins := sortedFlags(inputs)
	for i, o := range outs {
		for _, in := range ins {
			if sameFile(outputs[o], inputs[in]) {
				return usagef("--%s %s is the input of --%s (allowed: an output that is not an input of the run)", o, outputs[o], in)
			}
		}
		for _, o2 := range outs[i+1:] {
			if sameFile(outputs[o], outputs[o2]) && !isDevice(outputs[o]) {
				return usagef("--%s and --%s name the same file %s (allowed: a different file for each output)", o, o2, outputs[o2])
			}
		}
	}
	return nil
}

// sortedFlags lists the flags given a path, in order for stable messages.
func sortedFlags(m map[string]string) []string {
	var names []string
	for n, p := range m {
		if p != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

func sameFile(a, b string) bool {
	if absPath(a) == absPath(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	// A file not yet created is the same when both name it in the same
	// directory, however that directory is spelled (sub/x, sub -> .).
	if errA == nil || errB == nil || filepath.Base(a) != filepath.Base(b) {
		return false
	}
	da, err := os.Stat(filepath.Dir(a))
	if err != nil {
		return false
	}
	db, err := os.Stat(filepath.Dir(b))
	return err == nil && os.SameFile(da, db)
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

func isDevice(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode()&fs.ModeCharDevice != 0
}
