package infile

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckVersion: absent (0) and known versions pass; a newer one is
// refused with the file, the kind and both versions; a negative one too.
func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		got, known int
		want       string // "" = accepted
		newer      bool
	}{
		{0, 1, "", false},
		{1, 1, "", false},
		{1, 2, "", false},
		{2, 1, "run.json: deadlock result of format_version 2, but this orcs reads up to version 1", true},
		{-1, 1, "run.json: deadlock result with format_version -1: want 1 to 1", false},
	} {
		err := CheckVersion("run.json", "deadlock result", tc.got, tc.known)
		if tc.want == "" {
			if err != nil {
				t.Errorf("version %d of %d: %v", tc.got, tc.known, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("version %d of %d: got %v, want %q…", tc.got, tc.known, err, tc.want)
		}
		if errors.Is(err, ErrNewerVersion) != tc.newer {
			t.Errorf("version %d of %d: errors.Is(ErrNewerVersion) = %v", tc.got, tc.known, !tc.newer)
		}
	}
}
