package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/hxbar/hxbar/internal/outfile"
)

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// progress reports a sweep's progress on stderr: a bar redrawn in place on
// a terminal; elsewhere (a log file, a SLURM task's output) a plain line
// every 10 s once the run has taken 5 s, and one at the end of such a run,
// so that a short run (and its one-line error, docs/config.md) prints none.
type progress struct {
	w        io.Writer
	tty      bool
	start    time.Time
	last     time.Time
	drawn    bool
	done, of int
}

func newProgress(w io.Writer, start time.Time) *progress {
	p := &progress{w: w, start: start}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb" {
			p.tty = true
		}
	}
	return p
}

// update is called with the points done and to do; the first call (0 done)
// starts the clock of the estimate.
func (p *progress) update(done, of int) {
	p.done, p.of = done, of
	now := time.Now()
	if of == 0 {
		return
	}
	el := now.Sub(p.start)
	every := 10 * time.Second
	if p.tty {
		every = 100 * time.Millisecond
	} else if el < 5*time.Second || done == 0 || done == of && !p.drawn {
		return
	}
	if done != of && done != 0 && now.Sub(p.last) < every {
		return
	}
	p.last = now
	eta := ""
	if done > 0 && done < of {
		eta = fmt.Sprintf(", ~%s left", (el * time.Duration(of-done) / time.Duration(done)).Round(time.Second))
	}
	if p.tty {
		const width = 30
		n := width * done / of
		fmt.Fprintf(p.w, "\rsweep [%s%s] %d/%d %3d%% %s%s\033[K", strings.Repeat("#", n), strings.Repeat("-", width-n), done, of, 100*done/of, el.Round(time.Second), eta)
		p.drawn = true
		return
	}
	p.drawn = true
	fmt.Fprintf(p.w, "sweep: %d/%d points run, %s%s\n", done, of, el.Round(time.Second), eta)
}

// finish ends the bar's line.
func (p *progress) finish() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
	}
}

// heartbeat prints what and the time taken on w every period, from the
// first period on, until stop is called: a long silent child (Verilator's
// build, about 80 s) shows it is working. A run shorter than one period
// prints nothing.
func heartbeat(w io.Writer, what string, period time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				fmt.Fprintf(w, "%s: %s\n", what, now.Sub(start).Round(time.Second))
			}
		}
	}()
	return func() { close(done); <-finished }
}

// abortOnSignal removes the temporary files of outputs when SIGINT,
// SIGTERM or SIGHUP ends the run (the old files stay whole, and no hidden
// .NAME.tmp* is left beside them), then exits as the signal would. stop
// ends the watch once the outputs are committed or aborted.
func abortOnSignal(outputs []outfile.Output) (stop func()) {
	if len(outputs) == 0 {
		return func() {}
	}
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case sig := <-ch:
			for _, f := range outputs {
				f.Abort()
			}
			os.Exit(128 + int(sig.(syscall.Signal)))
		case <-done:
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
