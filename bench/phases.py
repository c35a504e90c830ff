#!/usr/bin/python3
"""The instructions of a keyid get, phase by phase, beside the floors', and a check of them.

Run inside a private keyring session (make bench-phases does that). Each program reads the same
item once under valgrind's callgrind, which counts the instructions of the whole process (all
its threads together) and writes its counters out, and starts them again, each time a boundary
function below is entered: the counts between two boundaries are a phase's. The Swift floor
runs twice: as it is, and with --attributes, making keyid's calls (the Attributes read with
GetSecrets), so that keyid's own instructions stand apart from those of the call its clone
detection adds. Then keyid --version, keyid get --help and a usage error (keyid get --bogus) are counted whole, beside the
Swift floor run without arguments (it stops at its usage line).

The counts are checked against those kept in bench/phases.json: the run fails when keyid's get,
or its --version, --help or usage error, runs more than 5% more instructions than kept there, and
warns when a phase of the get grew by more than 5% and by more than PHASE_NOISE. --record writes
the file again from this run.

  phases.py KEYID [--swift-floor PROGRAM] [--own-connection-floor PROGRAM]
            [--libsecret-floor PROGRAM] [--runs N] [--figures FILE] [--record] [--json FILE]
"""
import argparse
import fnmatch
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

from bench import ACCOUNT, SERVICE, run_quiet

# The phases of a get, in order: each begins where the first function matching one of its
# patterns is entered after the previous phase began (a pattern takes callgrind's `*`; Swift
# functions go by their mangled names, as `nm` lists them). A program without a pattern for a
# phase has no such phase: what it does there belongs to the phase before. When a refactor
# renames a function, change its pattern here: a phase whose boundary never runs fails the run.
PHASES = (
    "start-up",  # exec to main: the dynamic loader, the libraries' and the Swift runtime's initialisers
    "parsing",  # the command line read and parsed (the floors: their argument check)
    "settings",  # keyid's settings, deadline and library instance, up to the connect
    "connecting",  # the connection and Hello, the SecretService set-up with its Collections read
    "search",  # the round trip of SearchItems and OpenSession, and decoding its replies
    "read",  # the round trip of GetSecrets (with keyid's Attributes read), and decoding its replies
    "clone check",  # the machine's signals read and hashed, compared with the item's
    "output",  # the ID written, and what follows up to exit (the floors let their objects go)
    "exit",  # exit: atexit handlers, the libraries' destructors
)
MAIN = ("main", "keyid_main")  # SwiftPM names an executable's main keyid_main; callgrind shows either
CONNECT = ("keyid_connection_new_sync",)  # Sources/CSecretConnection/connection.c, shared with the floors
FLOOR_PHASES = {"parsing": MAIN, "connecting": CONNECT, "search": ("floor_search*",), "read": ("floor_read*",),
                "output": ("print_secret",), "exit": ("exit",)}
# A batch of requests sent and waited for: the method itself (its mangled name ends in YKF, for
# its typed throws), not the closures inside it, whose names go on after it.
PERFORM = "$s8KeyIDKit19LibSecretConnectionC7perform*YKF"
BOUNDARIES = {
    "keyid": {"parsing": MAIN, "settings": ("$s8KeyIDKit8SettingsV_7options11environment*",),
              "connecting": CONNECT, "search": (PERFORM,), "read": (PERFORM,),
              "clone check": ("$s8KeyIDKit13SystemMachineV*machineID2at*",),
              "output": ("$s8KeyIDKit18FileDescriptorSinkC*write*",), "exit": ("exit",)},
    "Swift floor": FLOOR_PHASES,
    "Swift floor + Attributes": FLOOR_PHASES,
    "own-connection floor": FLOOR_PHASES,
    "libsecret floor": dict(FLOOR_PHASES, connecting=("secret_service_open_sync",)),
}
# The whole-process counts: (name, the program's option or "keyid", arguments, exit status).
COMMANDS = (
    ("keyid --version", "keyid", ["--version"], 0),
    ("keyid get --help", "keyid", ["get", "--help"], 0),
    ("keyid get --bogus", "keyid", ["get", "--bogus"], 2),
    ("Swift floor usage", "swift_floor", [], 2),
)
LIMIT = 0.05  # growth over the kept figure that fails the run
PHASE_NOISE = 50_000  # a phase's growth below this many instructions is not worth a warning
# The programs see only these variables, whoever runs this (make, a test, a shell): the
# environment's size moves the start-up's count. Runs are slow under valgrind: keyid's deadline
# is pushed out of the way.
ENVIRONMENT = dict({name: os.environ[name] for name in ("PATH", "HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS")
                    if name in os.environ}, KEYID_TIMEOUT="3600")
FIGURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "phases.json")


def callgrind(argv, expected, patterns):
    """Runs argv once under callgrind, dumping before each pattern's functions; returns the parts
    in order, each (the function whose entry ended it, or None for the last, instructions)."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "callgrind.out")
        options = ["--tool=callgrind", "--combine-dumps=yes", "--demangle=no", f"--callgrind-out-file={out}",
                   f"--log-file={folder}/log"] + [f"--dump-before={pattern}" for pattern in sorted(set(patterns))]
        run = subprocess.run(["valgrind"] + options + argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=ENVIRONMENT)
        if run.returncode != expected:
            sys.exit(f"phases.py: {' '.join(argv)} exited {run.returncode}, not {expected}: "
                     f"{run.stderr.decode(errors='replace').strip()}")
        if expected == 0 and not run.stdout.strip():
            sys.exit(f"phases.py: {' '.join(argv)} printed nothing")
        parts, trigger = [], None
        with open(out) as profile:
            for line in profile:
                if line.startswith("desc: Trigger: "):
                    reason = line[len("desc: Trigger: "):].strip()
                    trigger = reason.split("=", 1)[1] if reason.startswith("--dump-before=") else None
                elif line.startswith("summary: "):
                    parts.append((trigger, int(line.split()[1])))
        return parts


def cut(program, parts, boundaries):
    """The parts' instructions summed by phase ({phase: count}, None for a phase the program
    does not have). Fails when a boundary never ran, or ran out of order."""
    mine = [(PHASES[0], ())] + [(name, boundaries[name]) for name in PHASES[1:] if name in boundaries]

    def matches(function, index):
        return any(fnmatch.fnmatchcase(function, pattern) for pattern in mine[index][1])
    counts, current = [0] * len(mine), 0
    for function, instructions in parts:
        counts[current] += instructions
        if function is None:
            continue
        if current + 1 < len(mine) and matches(function, current + 1):
            current += 1
        elif not any(matches(function, index) for index in range(current + 1)):
            later = [mine[index][0] for index in range(current + 2, len(mine)) if matches(function, index)]
            sys.exit(f"phases.py: {program}: {function} ran before the {mine[current + 1][0]} phase began"
                     + (f", and begins the later {later[0]} phase: out of order" if later else ""))
    if current + 1 < len(mine):
        name, patterns = mine[current + 1]
        sys.exit(f"phases.py: {program}: the {name} phase never began: no function matching "
                 f"{' or '.join(patterns)} ran (renamed? find the new name with nm and change "
                 "BOUNDARIES at the top of bench/phases.py)")
    found = dict(zip((name for name, _ in mine), counts))
    return {name: found.get(name) for name in PHASES}


def measure(program, argv, expected, boundaries, runs):
    """Each phase's median over `runs` runs, the total's, and the totals' spread."""
    patterns = [pattern for names in boundaries.values() for pattern in names]
    cuts = [cut(program, callgrind(argv, expected, patterns), boundaries) for _ in range(runs)]
    totals = [sum(count or 0 for count in phases.values()) for phases in cuts]
    phases = {name: None if cuts[0][name] is None else int(statistics.median(c[name] for c in cuts))
              for name in PHASES}
    return {"total": int(statistics.median(totals)), "phases": phases,
            "spread": (max(totals) - min(totals)) / statistics.median(totals),
            "phase_spread": {name: max(c[name] for c in cuts) - min(c[name] for c in cuts)
                             for name in PHASES if phases[name] is not None}}


def versions():
    """What the counts depend on beside keyid's code: valgrind, GLib, libsecret."""
    found = {"valgrind": subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()}
    for module in ("glib-2.0", "libsecret-1"):
        version = subprocess.run(["pkg-config", "--modversion", module], capture_output=True, text=True)
        if version.returncode == 0:
            found[module] = version.stdout.strip()
    return found


def thousands(count):
    return "—" if count is None else f"{round(count / 1000):,}k"


def change(now, kept):
    return "" if not kept else f"{100 * (now / kept - 1):+.1f}%"


def report(gets, commands, kept, runs):
    """Prints the phases table and the commands table; the kept figures' columns when there are any."""
    programs = list(gets)
    keyid = gets["keyid"]
    kept_get = kept.get("keyid get", {})

    def against(now, kept_count):
        return f" {thousands(kept_count)} | {change(now, kept_count)} |" if kept else ""
    print(f"Instructions (valgrind --tool=callgrind, the whole process), {runs} run(s) each, median; "
          f"{platform.machine()}, {platform.freedesktop_os_release().get('PRETTY_NAME', 'Linux')}\n")
    # keyid against the Swift floor, and against it making the same calls (the Attributes read).
    references = [name for name in ("Swift floor", "Swift floor + Attributes") if name in gets]
    print("| phase | " + " | ".join(programs)
          + "".join(f" | keyid − {name} | keyid / {name}" for name in references)
          + " |" + (" keyid kept | change |" if kept else ""))
    print("|---|" + "---:|" * (len(programs) + 2 * len(references) + (2 if kept else 0)))
    rows = [(name, {p: gets[p]["phases"][name] for p in programs}, kept_get.get("phases", {}).get(name))
            for name in PHASES]
    rows.append(("total", {p: gets[p]["total"] for p in programs}, kept_get.get("total")))
    for name, counts, kept_count in rows:
        line = f"| {name} | " + " | ".join(thousands(counts[p]) for p in programs)
        for reference in references:
            mine, floor = counts["keyid"] or 0, counts[reference] or 0
            # A ratio to a phase the floor hardly has (its argument check) says nothing.
            line += f" | {thousands(mine - floor)} | " + (f"{mine / floor:.2f}" if floor >= 10_000 else "—")
        print(line + " |" + against(counts["keyid"] or 0, kept_count))
    if runs > 1:
        print("\nSpread of the totals between runs (max − min over the median): "
              + ", ".join(f"{p} {100 * gets[p]['spread']:.2f}%" for p in programs)
              + "; keyid's phases: " + ", ".join(f"{name} {thousands(spread)}"
                                                  for name, spread in keyid["phase_spread"].items()))
    print("\n| command | instructions | start-up | after main | / Swift floor usage |"
          + (" kept | change |" if kept else ""))
    print("|---|---:|---:|---:|---:|" + ("---:|---:|" if kept else ""))
    reference = commands.get("Swift floor usage", {}).get("total")
    for name, figures in commands.items():
        start = figures["phases"]["start-up"]
        ratio = f"{figures['total'] / reference:.2f}" if reference else "—"
        print(f"| {name} | {thousands(figures['total'])} | {thousands(start)} | "
              f"{thousands(figures['total'] - start)} | {ratio} |"
              + against(figures["total"], kept.get(name, {}).get("total")))


def check(gets, commands, kept, figures_path):
    """Failure lines for keyid's totals over the kept ones, warnings for its phases."""
    failures, warnings = [], []
    measured = dict(commands, **{"keyid get": gets["keyid"]})
    floor_now = gets.get("Swift floor", {}).get("total")
    floor_kept = kept.get("Swift floor get", {}).get("total")
    moved = ""
    if floor_now and floor_kept and abs(floor_now / floor_kept - 1) > 0.02:
        moved = (f" (the Swift floor moved by {change(floor_now, floor_kept)} too: the libraries or the "
                 "toolchain differ from the recording's; record again on this machine)")
    for name, figures in measured.items():
        if not name.startswith("keyid"):
            continue
        kept_total = kept.get(name, {}).get("total")
        if not kept_total:
            warnings.append(f"{name}: no figure kept in {figures_path}")
            continue
        growth = figures["total"] / kept_total - 1
        if growth > LIMIT:
            failures.append(f"{name} runs {figures['total']:,} instructions, {100 * growth:.1f}% more than the "
                            f"{kept_total:,} kept in {figures_path} (at most {100 * LIMIT:.0f}%){moved}")
        elif growth < -LIMIT:
            warnings.append(f"{name} runs {-100 * growth:.1f}% fewer instructions than kept: record the figure "
                            "again (make bench-phases RECORD=1) so that the check follows it")
    for name, count in gets["keyid"]["phases"].items():
        kept_count = kept.get("keyid get", {}).get("phases", {}).get(name)
        if count is not None and kept_count and count > kept_count * (1 + LIMIT) \
                and count - kept_count > PHASE_NOISE:
            warnings.append(f"keyid get's {name} phase runs {thousands(count - kept_count)} more instructions "
                            f"than kept ({change(count, kept_count)})")
    return failures, warnings


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("keyid")
    parser.add_argument("--swift-floor", help="bench/swift-floor.swift with bench/own-connection-floor.c, built")
    parser.add_argument("--own-connection-floor", help="bench/own-connection-floor.c, built")
    parser.add_argument("--libsecret-floor", help="bench/libsecret-floor.c, built")
    parser.add_argument("--runs", type=int, default=1, help="runs of each program; the figures are medians")
    parser.add_argument("--figures", default=FIGURES, help="the kept figures (bench/phases.json)")
    parser.add_argument("--record", action="store_true", help="write this run's figures to --figures")
    parser.add_argument("--json", help="also write this run's figures here")
    args = parser.parse_args()
    run_quiet([args.keyid, "get", "--create", "--service", SERVICE, "--account", ACCOUNT])
    programs = {"keyid": [args.keyid, "get", "--service", SERVICE, "--account", ACCOUNT]}
    for name in ("Swift floor", "own-connection floor", "libsecret floor"):
        path = getattr(args, name.replace(" ", "_").replace("-", "_").lower())
        if path:
            programs[name] = [path, SERVICE, ACCOUNT]
        if path and name == "Swift floor":
            # The same calls as keyid's get: GetSecrets with the item's Attributes (clone detection).
            programs["Swift floor + Attributes"] = [path, "--attributes", SERVICE, ACCOUNT]
    gets = {name: measure(name, argv, 0, BOUNDARIES[name], args.runs) for name, argv in programs.items()}
    commands = {}
    for name, program, arguments, status in COMMANDS:
        path = args.keyid if program == "keyid" else getattr(args, program)
        if path:
            commands[name] = measure(name, [path] + arguments, status, {"parsing": MAIN}, args.runs)
    kept = {}
    if os.path.exists(args.figures):
        with open(args.figures) as handle:
            kept = json.load(handle)
    figures = {f"{name} get": {"total": g["total"], "phases": g["phases"]}
               for name, g in gets.items()}
    figures.update({name: {"total": c["total"]} for name, c in commands.items()})
    figures["recorded with"] = {"system": platform.freedesktop_os_release().get("PRETTY_NAME", "Linux"),
                                "runs": args.runs, **versions()}
    report(gets, commands, {} if args.record else kept, args.runs)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(figures, handle, indent=2)
    if args.record:
        with open(args.figures, "w") as handle:
            json.dump(figures, handle, indent=2)
            handle.write("\n")
        print(f"\nphases.py: recorded in {args.figures}")
        return
    sys.stdout.flush()
    root = os.path.dirname(os.path.dirname(FIGURES))
    shown = os.path.abspath(args.figures)
    shown = os.path.relpath(shown, root) if shown.startswith(root + os.sep) else shown
    failures, warnings = check(gets, commands, kept, shown)
    for warning in warnings:
        print(f"phases.py: warning: {warning}", file=sys.stderr)
    if failures:
        sys.exit("\n".join(f"phases.py: {failure}" for failure in failures))


if __name__ == "__main__":
    main()
