#!/usr/bin/python3
"""Record the order in which keyid's runs first execute each function of the release binary.

Run inside a private keyring session (make order does that). Each command below runs once
under valgrind's lackey tool, which reports every instruction executed; the addresses are
mapped onto the binary's function symbols, and the names are written one per line in order
of first execution, the commands' lists merged in turn. The linker lays those functions out
together in that order (lld --symbol-ordering-file), so a run faults in fewer pages.

  startup-order.py [--first N] KEYID OUT

--first N records only the first N commands (the test suite's smoke run uses 2).
"""
import argparse
import bisect
import os
import subprocess
import sys

S = ["--service", "keyid-order", "--account", "device-id"]
# The commands whose start-up matters most come first: their functions lead the file. Each
# comes with the exit status it must end with, so that a run cut short cannot pass for one.
COMMANDS = [
    (["--version"], 0),
    (["get"] + S, 0),
    (["delete", "--force"] + S, 0),
    (["get", "--create"] + S, 0),
    (["rotate"] + S, 0),
    (["create", "--service", "keyid-order-2", "--account", "device-id"], 0),
    (["get", "--format", "hex", "--json"] + S, 0),
    (["list"], 0),
    (["derive", "0f8fad5b-d9cb-469f-a165-70867728950e"], 0),
    (["doctor"], 0),
    (["--help"], 0),
    (["get", "--bogus"], 2),
    (["get", "--service", "keyid-order-missing", "--account", "none"], 1),
]
# valgrind loads a position-independent executable at this address.
VALGRIND_BASE = 0x108000


def functions(binary):
    """(address, name) of the binary's functions, sorted by address."""
    listing = subprocess.run(["nm", "-n", "--defined-only", binary], capture_output=True, text=True,
                             check=True).stdout
    symbols = []
    for line in listing.splitlines():
        parts = line.split(maxsplit=2)
        if len(parts) == 3 and parts[1] in "tTwW":
            symbols.append((int(parts[0], 16), parts[2]))
    return symbols


def first_executed(binary, arguments, expected, symbols):
    """Names of the functions the run executes, in order of first execution."""
    starts = [address for address, _ in symbols]
    end = starts[-1] + 0x10000
    seen = set()
    order = []
    # The trace (every instruction and memory access) comes through a pipe, not a file: a
    # single run writes hundreds of megabytes of it.
    reader, writer = os.pipe()
    environment = dict(os.environ, KEYID_TIMEOUT="3600")  # runs are slow under valgrind
    run = subprocess.Popen(["valgrind", "--tool=lackey", "--trace-mem=yes", f"--log-fd={writer}", binary]
                           + arguments, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, pass_fds=[writer], env=environment)
    os.close(writer)
    with os.fdopen(reader) as trace:
        for line in trace:
            if not line.startswith("I "):
                continue
            offset = int(line[3:].split(",", 1)[0], 16) - VALGRIND_BASE
            if not 0 <= offset < end:
                continue
            index = bisect.bisect_right(starts, offset) - 1
            if index >= 0 and index not in seen:
                seen.add(index)
                order.append(symbols[index][1])
    status = run.wait()
    if status != expected:
        sys.exit(f"startup-order.py: keyid {' '.join(arguments)} exited {status}, not {expected}")
    return order


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--first", type=int, default=len(COMMANDS))
    parser.add_argument("keyid")
    parser.add_argument("out")
    args = parser.parse_args()
    binary, out = args.keyid, args.out
    symbols = functions(binary)
    merged = []
    listed = set()
    leftovers = (["delete", "--force"] + S, ["delete", "--force", "--service", "keyid-order-2",
                                             "--account", "device-id"])
    for arguments in leftovers:
        subprocess.run([binary] + arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([binary, "get", "--create"] + S, stdout=subprocess.DEVNULL, check=True)
    for arguments, expected in COMMANDS[:args.first]:
        order = first_executed(binary, arguments, expected, symbols)
        if "main" not in order and "keyid_main" not in order:
            sys.exit(f"startup-order.py: no keyid function ran for {' '.join(arguments)}: "
                     "is valgrind loading the binary where expected?")
        # Two local functions can share a name (a thunk in two files): an order file names
        # each once.
        new = []
        for name in order:
            if name not in listed:
                listed.add(name)
                new.append(name)
        merged += new
        print(f"{' '.join(arguments)[:50]:50} {len(order):5} functions, {len(new):4} new", file=sys.stderr)
    for arguments in leftovers:
        subprocess.run([binary] + arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out + ".tmp", "w") as handle:
        handle.write("\n".join(merged) + "\n")
    os.replace(out + ".tmp", out)
    print(f"{out}: {len(merged)} functions", file=sys.stderr)


if __name__ == "__main__":
    main()
