#!/usr/bin/python3
"""Record the order in which keyid's runs first execute each function of the release binary.

Run inside a private keyring session (make order does that). Each command below runs once
under valgrind's lackey tool, which reports every instruction executed; the addresses are
mapped onto the binary's function symbols, and the names are written one per line in order
of first execution, the commands' lists merged in turn. The linker lays those functions out
together in that order (lld --symbol-ordering-file), so a run faults in fewer pages.

  startup-order.py [--first N] KEYID OUT

--first N records only the first N commands (the test suite's smoke run uses 1).
"""
import argparse
import bisect
import os
import subprocess
import sys
import tempfile

S = ["--service", "keyid-order", "--account", "device-id"]
# The commands whose start-up matters most come first: their functions lead the file.
COMMANDS = [
    ["--version"],
    ["get"] + S,
    ["delete", "--force"] + S,
    ["get", "--create"] + S,
    ["rotate"] + S,
    ["create", "--service", "keyid-order-2", "--account", "device-id"],
    ["get", "--format", "hex", "--json"] + S,
    ["list"],
    ["derive", "keyid-order"],
    ["doctor"],
    ["--help"],
    ["get", "--bogus"],
    ["get", "--service", "keyid-order-missing", "--account", "none"],
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


def first_executed(binary, arguments, symbols):
    """Names of the functions the run executes, in order of first execution."""
    starts = [address for address, _ in symbols]
    end = starts[-1] + 0x10000
    with tempfile.NamedTemporaryFile(suffix=".log") as log:
        subprocess.run(["valgrind", "--tool=lackey", "--trace-mem=yes", "--log-file=" + log.name, binary]
                       + arguments, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        seen = set()
        order = []
        with open(log.name) as trace:
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
    subprocess.run([binary, "delete", "--force"] + S, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([binary, "get", "--create"] + S, stdout=subprocess.DEVNULL, check=True)
    for arguments in COMMANDS[:args.first]:
        order = first_executed(binary, arguments, symbols)
        if "main" not in order and "keyid_main" not in order:
            sys.exit(f"startup-order.py: no keyid function ran for {' '.join(arguments)}: "
                     "is valgrind loading the binary where expected?")
        new = [name for name in order if name not in listed]
        listed.update(new)
        merged += new
        print(f"{' '.join(arguments)[:50]:50} {len(order):5} functions, {len(new):4} new", file=sys.stderr)
    for arguments in (["delete", "--force"] + S, ["delete", "--force", "--service", "keyid-order-2",
                                                  "--account", "device-id"]):
        subprocess.run([binary] + arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out + ".tmp", "w") as handle:
        handle.write("\n".join(merged) + "\n")
    os.replace(out + ".tmp", out)
    print(f"{out}: {len(merged)} functions", file=sys.stderr)


if __name__ == "__main__":
    main()
