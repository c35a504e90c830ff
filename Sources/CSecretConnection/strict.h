/*
 * Included by each of this target's .c files after its other headers: every warning of -Wall
 * and -Wextra is an error in the target's own code, whoever builds it. (Package.swift gives
 * the target no -Werror flag: unsafeFlags would keep programs from depending on a tagged
 * release of keyid.) Not under GCC, which compiles these files for make bench-floors with
 * -Wall -Werror of its own.
 */
#if defined(__clang__)
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#endif
