package opensm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// proc is a started tool. It is stopped by its PID: SIGTERM first, SIGKILL
// after a grace period.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has been reaped
	err  error         // Wait's result, valid after done
}

// startProc starts cmd with its output in logPath and standard input from
// /dev/null, or from cmd.Stdin when set (a console). The process gets its own process group, so that a Ctrl-C at a
// terminal reaches only orcs (which then stops it in order), and the kernel
// kills it should orcs die without stopping it.
func startProc(name string, cmd *exec.Cmd, logPath string) (*proc, error) {
	out, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child keeps its own descriptor
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the process: SIGTERM, then SIGKILL if it is still there after
// grace. It returns once the process is reaped.
func (p *proc) stop(grace time.Duration) {
	if p == nil || p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// errTimeout marks a tool that ran out of time.
var errTimeout = errors.New("time limit reached")

// wait waits for the process to end, for at most limit (and while ctx is
// live); poll, when not nil, is called every tick and may end the wait
// early with an error. On a timeout, cancellation or poll error the process
// is stopped.
func (p *proc) wait(ctx context.Context, limit, grace time.Duration, poll func() error) error {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.done:
			return nil
		case <-ctx.Done():
			p.stop(grace)
			return ctx.Err()
		case <-deadline.C:
			p.stop(grace)
			return fmt.Errorf("%s: %w (%s)", p.name, errTimeout, limit)
		case <-tick.C:
			if poll != nil {
				if err := poll(); err != nil {
					p.stop(grace)
					return err
				}
			}
		}
	}
}

// errExited marks a tool that ended before it was ready.
var errExited = errors.New("exited before it was ready")

// until waits, for at most limit and while ctx is live, until ready
// reports true while the process runs. If the process ends first, it
// returns an error; on a timeout or cancellation it stops the process.
func (p *proc) until(ctx context.Context, limit, grace time.Duration, ready func() bool) error {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if ready() {
			return nil
		}
		select {
		case <-p.done:
			if ready() {
				return fmt.Errorf("%s %w (right after saying so)", p.name, errExited)
			}
			return fmt.Errorf("%s %w: %v", p.name, errExited, p.err)
		case <-ctx.Done():
			p.stop(grace)
			return ctx.Err()
		case <-deadline.C:
			p.stop(grace)
			return fmt.Errorf("%s: %w (%s)", p.name, errTimeout, limit)
		case <-tick.C:
		}
	}
}
