package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/sim/pictures"
)

// pictureFlags are the flags of 'hxbar sim' that draw a run
// (docs/pictures.md): --plot, --plot-load and --trace-format.
type pictureFlags struct {
	plot, plotLoad, traceFormat *string
}

// traceFormats are the values of --trace-format.
var traceFormats = []string{"text", "chrome"}

func bindPictureFlags(fs *flag.FlagSet) *pictureFlags {
	return &pictureFlags{
		plot:        fs.String("plot", "", "draw the run's timeline (ranks x cycles; a density view above 64 ranks) as SVG to `FILE`"),
		plotLoad:    fs.String("plot-load", "", "draw the network channels' load over the run as an SVG heat map to `FILE`"),
		traceFormat: fs.String("trace-format", "text", "format of the --trace file: text (the event trace) or chrome (trace-event JSON for Perfetto and chrome://tracing)"),
	}
}

// check refuses a --trace-format that does not exist, or that was given
// without --trace.
func (p *pictureFlags) check(fs *flag.FlagSet, trace string) error {
	ok := false
	for _, f := range traceFormats {
		ok = ok || *p.traceFormat == f
	}
	if !ok {
		return usagef("invalid --trace-format: %q (allowed: text, chrome)", *p.traceFormat)
	}
	if trace == "" {
		return refuseFlags(fs, "a run without --trace", notApplicable{[]string{"trace-format"}, "it is the format of the --trace FILE"})
	}
	return nil
}

// checkSVG refuses a --plot or --plot-load FILE whose extension says
// another format than the SVG they draw (a .png of SVG bytes opens in
// no image viewer); a name without an extension is taken as it is.
func (p *pictureFlags) checkSVG() error {
	for _, f := range []struct{ flag, name string }{{"plot", *p.plot}, {"plot-load", *p.plotLoad}} {
		if ext := filepath.Ext(f.name); ext != "" && !strings.EqualFold(ext, ".svg") {
			return usagef("invalid --%s: %s: the picture is SVG, not %s (allowed: a FILE ending in .svg)", f.flag, f.name, ext)
		}
	}
	return nil
}

// outputs are the picture files, for checkOutputs.
func (p *pictureFlags) outputs() map[string]string {
	return map[string]string{"plot": *p.plot, "plot-load": *p.plotLoad}
}

// pictureFlagsNotApplicable refuses the picture flags in a command that
// binds them only to say so.
var pictureFlagsNotApplicable = notApplicable{[]string{"plot", "plot-load", "trace-format"},
	"pictures are drawn from the barrier units' events and the run's channel loads: see hxbar sim"}

// picturesRun draws the pictures of one run of 'hxbar sim'.
type picturesRun struct {
	title    string
	timeline *pictures.Timeline
	chrome   *pictures.Chrome
	load     *sim.ChannelLoad
	plotW    io.Writer
	loadW    io.Writer
}

// startPictures sets opt up for the pictures asked for: the timeline and
// the Chrome trace take the events, --plot-load the channel loads. A Chrome
// trace takes over the --trace file from the text trace. plotW and loadW
// are the created --plot and --plot-load files (nil when not given).
func startPictures(p *pictureFlags, opt *sim.Options, s *sim.System, plotW, loadW io.Writer) *picturesRun {
	sys := s.Sys
	r := &picturesRun{plotW: plotW, loadW: loadW,
		title: fmt.Sprintf("%s: %d ranks on %s %s", sys.Title(), s.Table.Ranks, dimsString(sys.Dims), topologyNames[sys.Topology])}
	run := pictures.RunOf(s, r.title)
	if plotW != nil {
		r.timeline = pictures.NewTimeline(run)
	}
	if *p.traceFormat == "chrome" && opt.Trace != nil {
		r.chrome = pictures.NewChrome(opt.Trace, run)
		opt.Trace = nil
	}
	if r.timeline != nil || r.chrome != nil {
		opt.Events = func(evs []barrierunit.Event) {
			if r.timeline != nil {
				r.timeline.Add(evs)
			}
			if r.chrome != nil {
				r.chrome.Add(evs)
			}
		}
	}
	if loadW != nil {
		r.load = &sim.ChannelLoad{}
		opt.Load = r.load
	}
	return r
}

// finish writes the pictures of the run whose result is res.
func (r *picturesRun) finish(res *sim.Result) error {
	if r.chrome != nil {
		if err := r.chrome.Close(res); err != nil {
			return fmt.Errorf("trace: %w", err)
		}
	}
	if r.timeline != nil {
		if err := r.timeline.WriteSVG(r.plotW, res); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	if r.load != nil && r.load.Flits != nil {
		if err := pictures.LoadSVG(r.loadW, r.load, res, r.title); err != nil {
			return fmt.Errorf("--plot-load: %w", err)
		}
	}
	return nil
}

// terminalProgress returns a progress report for a long run (sim.Options
// Progress) that rewrites one line on stderr when stderr is a terminal,
// from 2 s into the run on, and a function that clears the line at the
// end; nil, nil when stderr is not a terminal.
func terminalProgress(stderr io.Writer) (func(cycle int64, released, ranks int), func()) {
	f, ok := stderr.(*os.File)
	if !ok {
		return nil, nil
	}
	if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err != nil {
		return nil, nil
	}
	start := time.Now()
	shown := false
	report := func(cycle int64, released, ranks int) {
		if time.Since(start) < 2*time.Second {
			return
		}
		shown = true
		fmt.Fprintf(f, "\r\033[Ksim: cycle %d, %d of %d ranks released, %.0f s", cycle, released, ranks, time.Since(start).Seconds())
	}
	done := func() {
		if shown {
			fmt.Fprint(f, "\r\033[K")
		}
	}
	return report, done
}
