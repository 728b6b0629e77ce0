package interrupt

import (
	"context"
	"syscall"
	"testing"
	"time"
)

func TestExitCode(t *testing.T) {
	if ExitCode(syscall.SIGINT) != 130 || ExitCode(syscall.SIGTERM) != 143 {
		t.Error("exit codes")
	}
}

// TestContextTakesTheSignal checks that a signal cancels a Context and
// gives the signal's exit code, without ending the process.
func TestContextTakesTheSignal(t *testing.T) {
	ctx, stop := Context()
	defer stop()
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
		t.Fatal("SIGTERM did not cancel the context")
	}
	if code, ok := Stopped(ctx.Err()); !ok || code != 143 {
		t.Errorf("Stopped = %d, %v", code, ok)
	}
	if _, ok := Stopped(context.DeadlineExceeded); ok {
		t.Error("a deadline taken for a signal")
	}
}
