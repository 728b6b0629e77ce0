// Package interrupt stops orcs cleanly on Ctrl-C (SIGINT), SIGTERM
// (Slurm's scancel) and SIGHUP (a closed terminal or ssh session): by
// default the process drops the outputs it is writing (their targets keep
// their previous contents) and exits with 130, 143 or 129; a command that runs external tools takes the signal as a
// context cancellation instead, stops its tools and then exits the same
// way.
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"orcs/internal/outfile"
)

var (
	owned     atomic.Bool  // a Context takes the signals
	stoppedBy atomic.Value // the signal that cancelled a Context
)

// ExitCode is the exit status for a process stopped by sig: 128 + its
// number (130 for SIGINT, 143 for SIGTERM).
func ExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// Signals are the signals that stop orcs cleanly.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// Watch handles SIGINT, SIGTERM and SIGHUP for the whole process until a Context
// takes them over: it removes the temporary files of outputs being
// written, prints one line on standard error and exits. Call it once, at
// the start of main.
func Watch() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, Signals...)
	go func() {
		for sig := range ch {
			if owned.Load() {
				continue
			}
			outfile.RemovePending()
			fmt.Fprintf(os.Stderr, "orcs: stopped by %v; no output written\n", sig)
			os.Exit(ExitCode(sig))
		}
	}()
}

// Context returns a context that a signal cancels, for a command that
// must stop external tools before it exits; until its cancel function is
// called, Watch leaves the signals to it. Call the cancel function as soon
// as the tools are done, so that a signal during the rest of the command
// ends the process at once again.
func Context() (context.Context, context.CancelFunc) {
	owned.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, Signals...)
	go func() {
		select {
		case sig := <-ch:
			stoppedBy.Store(sig)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel(); owned.Store(false) }
}

// Stopped reports whether err is a cancellation by a signal, and the exit
// code for it.
func Stopped(err error) (code int, ok bool) {
	if !errors.Is(err, context.Canceled) {
		return 0, false
	}
	sig, _ := stoppedBy.Load().(os.Signal)
	return ExitCode(sig), true
}

// ReadyEnv names the environment variable that asks orcs to say when a
// signal would stop it cleanly: set to a file descriptor number that the
// parent opened for orcs (e.g. 3, the first of exec.Cmd.ExtraFiles), orcs
// writes the line "ready" to it once its command has started its long
// work, with the signal handling of that phase in place, and closes it.
// Tests that signal orcs wait for that line instead of sleeping.
const ReadyEnv = "ORCS_READY_FD"

var readyOnce sync.Once

// Ready tells the parent named by ReadyEnv, once per process, that the
// command has reached its long work and that a signal now stops it
// cleanly. Without ReadyEnv it does nothing.
func Ready() {
	readyOnce.Do(func() {
		fd, err := strconv.Atoi(os.Getenv(ReadyEnv))
		if err != nil || fd < 3 {
			return
		}
		f := os.NewFile(uintptr(fd), ReadyEnv)
		if f == nil {
			return
		}
		fmt.Fprintln(f, "ready")
		f.Close()
	})
}
