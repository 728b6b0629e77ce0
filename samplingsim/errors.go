package samplingsim

import "fmt"

// errorf is fmt.Errorf; workloads use it for their parameter errors.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
