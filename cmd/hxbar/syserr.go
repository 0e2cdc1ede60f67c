package main

import (
	"errors"
	"flag"
	"strings"

	"github.com/hxbar/hxbar/hw"
)

// explainSystemError names the source of an error found in a system after
// it was read (too many nodes for the model or the check, max_cycles below
// the run's lower bound): the flag when the key it names was given as one,
// else the line of the --config file that sets it.
func explainSystemError(fs *flag.FlagSet, err error) error {
	if _, ok := errors.AsType[*hw.ParseError](err); ok {
		return err
	}
	if _, ok := errors.AsType[*hw.FlagError](err); ok {
		return err
	}
	key := hw.ErrorKey(err)
	if key == "" {
		return err
	}
	if name := hw.KeyFlag(key); name != "" && flagGiven(fs, name) {
		return &hw.FlagError{Flag: name, Err: err}
	}
	if c := fs.Lookup("config"); c != nil {
		return hw.LocateInFile(c.Value.String(), err)
	}
	return err
}

// flagSpelled spells the setting a library call refused as the flag that
// gave it, the spelling of every message ("invalid rate: 2" becomes
// "invalid --rate: 2"), for the first of flags the message starts with;
// any other error is returned as it is.
func flagSpelled(err error, flags ...string) error {
	for _, f := range flags {
		if rest, ok := strings.CutPrefix(err.Error(), "invalid "+f+": "); ok {
			return &respelled{"invalid --" + f + ": " + rest, err}
		}
	}
	return err
}

// respelled is an error with its message spelled for the command line.
type respelled struct {
	msg string
	err error
}

func (e *respelled) Error() string { return e.msg }
func (e *respelled) Unwrap() error { return e.err }

// explainUsage is explainSystemError for a usage error a later stage
// found (the model refusing a fault's channel): it names the flag or the
// file's line as the first check would; other errors pass unchanged.
func explainUsage(fs *flag.FlagSet, err error) error {
	if ue, ok := errors.AsType[usageError](err); ok {
		return usageError{explainSystemError(fs, ue.err)}
	}
	return err
}
