#!/bin/sh
# Sourced by the checks that run inside the Debian 13 root (scripts/arm64-checks.sh): check
# NAME COMMAND... runs one check and prints "ok NAME", or "FAIL NAME" and what the command
# printed; checks_done prints the counts and fails if any check failed. uuid matches a version 4 UUID as keyid prints it.
# shellcheck disable=SC2034 # uuid is the sourcing script's to use
uuid="^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"
passed=0 failed=0
check() {
    name=$1
    shift
    if out=$("$@" 2>&1); then
        echo "ok    $name"
        passed=$((passed + 1))
    else
        echo "FAIL  $name"
        printf "%s\n" "$out" | sed "s/^/        /"
        failed=$((failed + 1))
    fi
}
checks_done() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
