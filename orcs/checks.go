package main

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"
)

// threads reads -j/--threads: 0 means every core, a negative count is an
// error.
func threads(c *cli.Context) (int, error) {
	n := c.Int("threads")
	switch {
	case n < 0:
		return 0, fmt.Errorf("-j/--threads %d: want 0 (all cores) or more", n)
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
