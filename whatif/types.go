package whatif

import "orcs/whatif/result"

// The result types live in package result (readers need not import the
// emulation).
type (
	// File is the result of Run (see result.File).
	File = result.File
	// EngineResult is one engine's part of a File.
	EngineResult = result.EngineResult
	// Baseline is the intact fabric routed by an engine.
	Baseline = result.Baseline
	// Row is one failure set routed by one engine.
	Row = result.Row
	// HostLoss is a host and its changed or broken routes.
	HostLoss = result.HostLoss
)

// Row statuses (see result.StatusOK).
const (
	StatusOK       = result.StatusOK
	StatusFallback = result.StatusFallback
	StatusError    = result.StatusError
	// FileVersion is the format_version of the whatif file.
	FileVersion = result.FileVersion
)

// Merge joins shard files (see result.Merge).
func Merge(files []*File) (*File, error) { return result.Merge(files) }
