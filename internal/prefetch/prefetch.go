// Package prefetch asks the processor to bring a cache line closer ahead of
// its use, without waiting for it: an event loop that knows which cold
// lines its next events read can overlap their misses with this event's
// work. A plain load would do the same but holds up the instructions
// behind it until the line arrives.
package prefetch
