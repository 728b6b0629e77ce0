package opensm

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"syscall"
)

// PathSLLogFile is the file Route writes (and keeps with Keep) for an
// engine that logs every path's SL (dfsssp): the lines of OpenSM's log
// with those SLs ("route from src_lid=S to dest_lid=D on vl=V"), gzipped.
// orcs deadlock reads it as an SL file and finds it beside the tables.
const PathSLLogFile = "dfsssp-sl.txt.gz"

// logFIFO is the FIFO in the work directory that OpenSM logs into when
// its log is split (see logSplit).
const logFIFO = "opensm-log.fifo"

// logEnd ends the stream of OpenSM's log through the FIFO: Route writes it
// once OpenSM has exited, after all of OpenSM's lines.
var logEnd = []byte("\x00orcs: end of the log\n")

// logSplit reads OpenSM's log from a FIFO while OpenSM writes it: the lines
// with path SLs go to PathSLLogFile, the engine's other debug lines (its
// graphs, several GB on a large fabric) are dropped, and every other line
// goes to opensm.log as OpenSM would have written it.
type logSplit struct {
	fifo *os.File
	done chan error
}

// startLogSplit makes the FIFO at fifoPath (OpenSM's -f) and starts copying
// it. The FIFO is opened for reading and writing, so that neither OpenSM's
// open nor ours waits for the other; finish ends the copy.
func startLogSplit(fifoPath, logPath, slPath string) (*logSplit, error) {
	if err := syscall.Mkfifo(fifoPath, 0o600); err != nil {
		return nil, fmt.Errorf("OpenSM's log FIFO: %w", err)
	}
	fifo, err := os.OpenFile(fifoPath, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("OpenSM's log FIFO: %w", err)
	}
	logOut, err := os.Create(logPath)
	if err != nil {
		fifo.Close()
		return nil, err
	}
	slOut, err := os.Create(slPath)
	if err != nil {
		fifo.Close()
		logOut.Close()
		return nil, err
	}
	s := &logSplit{fifo: fifo, done: make(chan error, 1)}
	go func() {
		err := split(fifo, logOut, slOut)
		for _, f := range []*os.File{logOut, slOut} {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		s.done <- err
	}()
	return s, nil
}

// split copies OpenSM's log lines until logEnd (see logSplit). Lines to
// opensm.log are written at once, so that its readers see the progress.
func split(r io.Reader, logOut, slOut io.Writer) error {
	in := bufio.NewReaderSize(r, 1<<20)
	zw, _ := gzip.NewWriterLevel(slOut, gzip.BestSpeed)
	sl := bufio.NewWriterSize(zw, 1<<20)
	var werr error
	for {
		line, err := in.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: pass it on in pieces.
			if _, werr2 := logOut.Write(line); werr == nil {
				werr = werr2
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("reading OpenSM's log: %w", err)
		}
		if bytes.HasSuffix(line, logEnd) {
			// The end, after a last line OpenSM may have left unfinished
			// (when it was killed).
			if rest := line[:len(line)-len(logEnd)]; len(rest) > 0 {
				if _, err := logOut.Write(append(rest[:len(rest):len(rest)], '\n')); werr == nil {
					werr = err
				}
			}
			break
		}
		switch {
		case bytes.Contains(line, []byte("route from src_lid=")):
			if _, err := sl.Write(line); werr == nil {
				werr = err
			}
		case bytes.Contains(line, []byte("] 0x08 -> ")) || bytes.Contains(line, []byte("] 0x10 -> ")):
			// the engine's other debug lines and function traces
		default:
			if _, err := logOut.Write(line); werr == nil {
				werr = err
			}
		}
	}
	if err := sl.Flush(); werr == nil {
		werr = err
	}
	if err := zw.Close(); werr == nil {
		werr = err
	}
	return werr
}

// finish waits for the copy of everything OpenSM wrote (call it once
// OpenSM has exited or been stopped) and closes the FIFO.
func (s *logSplit) finish() error {
	_, err := s.fifo.Write(logEnd)
	if err == nil {
		err = <-s.done
	}
	if cerr := s.fifo.Close(); err == nil {
		err = cerr
	}
	return err
}
