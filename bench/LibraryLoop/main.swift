// The in-process benchmark's loop: filled in by the benchmark's own change.
