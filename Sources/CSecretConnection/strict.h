/*
 * Included by each of this target's .c files after its other headers: every warning of -Wall
 * and -Wextra is an error in the target's own code, unless the build turns warnings off with
 * -w (doc/ARCHITECTURE.md says why not a flag in Package.swift). Not under GCC, which compiles
 * these files for make bench-floors with -Wall -Werror of its own.
 */
#if defined(__clang__)
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#endif
