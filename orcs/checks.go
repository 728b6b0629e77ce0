package main

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"
)

// maxThreads bounds -j/--threads: more goroutines than this only cost
// memory (2^31 of them never started).
const maxThreads = 1024

// threadsFlag checks -j/--threads: 0 (all cores) up to maxThreads.
func threadsFlag(c *cli.Context) error {
	if n := c.Int("threads"); n < 0 || n > maxThreads {
		return fmt.Errorf("-j/--threads %d: want 0 (all cores) to %d", n, maxThreads)
	}
	return nil
}

// threads reads -j/--threads: 0 means every core; a negative count or
// one above maxThreads is an error.
func threads(c *cli.Context) (int, error) {
	n := c.Int("threads")
	switch {
	case threadsFlag(c) != nil:
		return 0, threadsFlag(c)
	case n == 0:
		return runtime.NumCPU(), nil
	}
	return n, nil
}

// hostsList reads --hosts: a flag given with an empty list is an error
// (it would otherwise be taken as every host).
func hostsList(c *cli.Context) (string, error) {
	s := c.String("hosts")
	if c.IsSet("hosts") && strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("--hosts %q: an empty host list (leave the flag out to use every host)", s)
	}
	return s, nil
}
