package patterns

import "orcs/rng"

func init() {
	Register("null", "no communication at all (0 levels); the noiseless second pattern of ptrnvsptrn", genNull, false)
}

// genNull returns the pattern without levels.
func genNull(int, *rng.Stream, []Level) []Level { return []Level{} }
