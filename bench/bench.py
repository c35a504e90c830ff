#!/usr/bin/python3
"""keyid's benchmark: keyid against secret-tool (and Python keyring), side by side.

Run inside a private keyring session (make bench does that). For each pair of commands it
alternates them run by run, times each with a monotonic clock around posix_spawn/wait4,
measures the peak resident set of each command in separate runs under GNU time (wait4's
rusage after posix_spawn reports the spawning Python process's own peak), and prints one
Markdown table of medians and ratios. The get/lookup rows also run the floor (bench/floor.c:
the fewest round trips a process can make to read a secret, on sd-bus), the libsecret floor
(bench/libsecret-floor.c: the same read through libsecret's SecretService as libsecret sets it
up, on GLib's shared connection) and the own-connection floor (bench/own-connection-floor.c:
the same read through libsecret's SecretService on a GDBus connection of its own, as keyid
makes it: what keyid get costs above it is keyid's own) and the Swift floor
(bench/swift-floor.swift: the own-connection floor's C code in a Swift executable linked like
keyid's release binary: what keyid get costs above it is keyid's code, without the Swift
runtime's start-up), and the Swift floor run with --attributes (it reads the item's Attributes
with GetSecrets, as keyid get does for its clone detection: what keyid get costs above it is
keyid's code alone, the same calls made by both).

A second table times gets in process: keyid-bench-loop (KeyIDKit, bench/LibraryLoop) and
bench/secretstorage-loop.py (Python SecretStorage, as it is used and with the two calls a get
needs) each make GETS gets on one connection; the programs are alternated for ROUNDS rounds,
and the figures are over all the gets of each.

  bench.py KEYID [--runs N] [--items N] [--floor PROGRAM] [--libsecret-floor PROGRAM]
           [--own-connection-floor PROGRAM] [--swift-floor PROGRAM] [--library-loop PROGRAM] [--python-keyring DIR] [--rounds ROUNDS] [--gets GETS]
           [--json FILE]
"""
import argparse
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time

SERVICE = "keyid-bench"
ACCOUNT = "device-id"
DEVNULL = os.open(os.devnull, os.O_RDWR)
# The floors, in the order of their columns: the key names the option (--own-connection-floor
# for own_connection_floor), the program (bench-own-connection-floor) and the JSON figures
# (own_connection_floor_ms, _ratio, _rss_mib); the title heads the columns. The last has no
# option of its own: it is the Swift floor run with --attributes, reading the item's Attributes
# with GetSecrets as keyid get does for its clone detection (one call more than the floor).
FLOORS = (("floor", "floor"), ("libsecret_floor", "libsecret floor"),
          ("own_connection_floor", "own-connection floor"), ("swift_floor", "Swift floor"),
          ("swift_floor_attributes", "Swift floor + Attributes"))
DERIVED_FLOORS = {"swift_floor_attributes": ("swift_floor", ["--attributes"])}


def floor_argv(args, key):
    """The command line of floor `key`, or None when its program was not given."""
    option, extra = DERIVED_FLOORS.get(key, (key, []))
    program = getattr(args, option)
    return [program] + extra + [SERVICE, ACCOUNT] if program else None


def peak_rss_kib(argv, stdin_path=None, runs=10, prepare=None):
    """The largest maximum resident set size of `runs` runs, from GNU time."""
    import tempfile

    peak = 0
    with tempfile.NamedTemporaryFile() as report:
        for _ in range(runs):
            if prepare:
                prepare()
            stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name] + argv, stdin=stdin,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            if stdin_path:
                stdin.close()
            with open(report.name) as handle:
                peak = max(peak, int(handle.read().strip().splitlines()[-1]))
    return peak


def spawn(argv, stdin_path=None):
    """Run argv once; return (seconds, exit status)."""
    stdin = os.open(stdin_path, os.O_RDONLY) if stdin_path else DEVNULL
    actions = [(os.POSIX_SPAWN_DUP2, stdin, 0), (os.POSIX_SPAWN_DUP2, DEVNULL, 1),
               (os.POSIX_SPAWN_DUP2, DEVNULL, 2)]
    start = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    elapsed = (time.perf_counter_ns() - start) / 1e9
    if stdin_path:
        os.close(stdin)
    return elapsed, os.waitstatus_to_exitcode(status)


def run_quiet(argv, stdin=None):
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


class Case:
    def __init__(self, name, argv, prepare=None, stdin_path=None):
        self.name, self.argv, self.prepare, self.stdin_path = name, argv, prepare, stdin_path
        self.times, self.rss_kib = [], 0

    def once(self):
        if self.prepare:
            self.prepare()
        seconds, status = spawn(self.argv, self.stdin_path)
        if status != 0:
            sys.exit(f"bench: {' '.join(self.argv)} exited {status}")
        self.times.append(seconds)

    def measure_memory(self, runs):
        self.rss_kib = peak_rss_kib(self.argv, self.stdin_path, runs, self.prepare)

    @property
    def median_ms(self):
        return statistics.median(self.times) * 1000

    @property
    def rss_mib(self):
        return self.rss_kib / 1024


def compare(cases, runs, warmup=3):
    """Alternate the cases run by run, each run in an order of its own (shuffled, with a fixed
    seed: the same orders every time), so that no case mostly follows the same one (a Python
    run leaves the caches cold for whatever comes next)."""
    shuffler = random.Random(len(cases))

    def shuffled():
        order = list(cases)
        shuffler.shuffle(order)
        return order
    for _ in range(warmup):
        for case in shuffled():
            case.once()
    for case in cases:
        case.times.clear()
    for _ in range(runs):
        for case in shuffled():
            case.once()
    for case in cases:
        case.measure_memory(min(runs, 10))
    return cases


class Loop:
    """An in-process loop program; its samples in microseconds, from every round."""

    def __init__(self, name, argv):
        self.name, self.argv, self.samples = name, argv, []

    def once(self):
        result = subprocess.run(self.argv, stdout=subprocess.PIPE, check=True)
        figures = json.loads(result.stdout)
        self.samples.extend(figures["samples_us"])
        self.calls_per_get = figures.get("calls_per_get")

    def figure(self, name):
        ordered = sorted(self.samples)
        return {"median": statistics.median(ordered), "p90": ordered[math.ceil(0.9 * len(ordered)) - 1],
                "mean": statistics.fmean(ordered)}[name]


def alternate(loops, rounds):
    """Run the loops in turn, `rounds` times: A B C A B C ..."""
    for _ in range(rounds):
        for loop in loops:
            loop.once()
    return loops


def populate(count):
    """Add unrelated items to the in-memory session collection, behind everyone's back."""
    import dbus

    bus = dbus.SessionBus()
    service = dbus.Interface(bus.get_object("org.freedesktop.secrets", "/org/freedesktop/secrets"),
                             "org.freedesktop.Secret.Service")
    _, session = service.OpenSession("plain", dbus.String("", variant_level=1))
    collection = dbus.Interface(bus.get_object("org.freedesktop.secrets",
                                               "/org/freedesktop/secrets/collection/session"),
                                "org.freedesktop.Secret.Collection")
    for index in range(count):
        props = {
            "org.freedesktop.Secret.Item.Label": dbus.String(f"unrelated {index}"),
            "org.freedesktop.Secret.Item.Attributes": dbus.Dictionary(
                {"service": f"unrelated-{index}", "account": "someone"}, signature="ss"),
        }
        secret = dbus.Struct((session, dbus.ByteArray(b""), dbus.ByteArray(b"x" * 36), "text/plain"))
        collection.CreateItem(props, secret, False)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("keyid")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--items", type=int, default=10000)
    parser.add_argument("--floor", help="bench/floor.c, built")
    parser.add_argument("--libsecret-floor", help="bench/libsecret-floor.c, built")
    parser.add_argument("--own-connection-floor", help="bench/own-connection-floor.c, built")
    parser.add_argument("--swift-floor", help="bench/swift-floor.swift with bench/own-connection-floor.c, built")
    parser.add_argument("--library-loop", help="keyid-bench-loop, built")
    parser.add_argument("--python-keyring", help="a virtualenv with keyring and secretstorage")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the in-process loops")
    parser.add_argument("--gets", type=int, default=1000, help="gets per in-process loop and round")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    keyid = args.keyid
    runs = args.runs
    workdir = os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    id_file = os.path.join(workdir, "bench-id")
    with open(id_file, "w") as handle:
        handle.write("0f8fad5b-d9cb-469f-a165-70867728950e")

    s = ["--service", SERVICE, "--account", ACCOUNT]
    attrs = ["service", SERVICE, "account", ACCOUNT]
    run_quiet([keyid, "get", "--create"] + s)

    def recreate():
        run_quiet([keyid, "get", "--create"] + s)

    rows, loop_rows = [], []
    floors = [(key, title) for key, title in FLOORS if floor_argv(args, key)]

    def row(label, mine, theirs, floor_cases=None, third=None):
        """floor_cases: (key, title, Case) for each of `floors`; without them, their columns are blank."""
        rows.append((label, mine, theirs, floor_cases or [(key, title, None) for key, title in floors], third))

    python_keyring = python = None
    if args.python_keyring:
        python_keyring = os.path.join(args.python_keyring, "bin", "keyring")
        python = os.path.join(args.python_keyring, "bin", "python")
        run_quiet([python_keyring, "set", SERVICE, ACCOUNT], stdin=b"0f8fad5b-d9cb-469f-a165-70867728950e\n")

    def lookup_row(label):
        cases = [Case("keyid get", [keyid, "get"] + s),
                 Case("secret-tool lookup", ["secret-tool", "lookup"] + attrs)]
        floor_cases = [(key, title, Case("bench-" + key.replace("_", "-"), floor_argv(args, key)))
                       for key, title in floors]
        cases += [case for _, _, case in floor_cases]
        third = None
        if python_keyring:
            third = Case("keyring get", [python_keyring, "get", SERVICE, ACCOUNT])
            cases.append(third)
        compare(cases, runs)
        row(label, cases[0], cases[1], floor_cases, third)

    def loop_row(label):
        if not args.library_loop:
            return
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "secretstorage-loop.py")
        gets = str(args.gets)
        loops = [Loop("KeyIDKit", [args.library_loop, SERVICE, ACCOUNT, gets])]
        if python:
            loops += [Loop("SecretStorage", [python, script, SERVICE, ACCOUNT, gets]),
                      Loop("SecretStorage GetSecrets",
                           [python, script, "--lean", SERVICE, ACCOUNT, gets])]
        loop_rows.append((label, alternate(loops, args.rounds)))

    lookup_row("get / lookup (1 item)")
    loop_row("1 item")
    cases = compare([Case("keyid rotate", [keyid, "rotate"] + s),
                     Case("secret-tool store", ["secret-tool", "store", "--label", "bench"] + attrs,
                          stdin_path=id_file)], runs)
    row("rotate / store", *cases)
    cases = compare([Case("keyid delete --force", [keyid, "delete", "--force"] + s, prepare=recreate),
                     Case("secret-tool clear", ["secret-tool", "clear"] + attrs, prepare=recreate)], runs)
    row("delete --force / clear", *cases)
    recreate()
    cases = compare([Case("keyid --version", [keyid, "--version"]), Case("/bin/true", ["/bin/true"])], runs)
    row("--version / /bin/true", *cases)
    if args.items:
        populate(args.items)
        lookup_row(f"get / lookup ({args.items:,} more items)")
        loop_row(f"{args.items:,} more items")

    lines = ["| operation | keyid median | peer median | ratio | keyid peak RSS | peer peak RSS |"
             + "".join(f" {title} median | {title} ratio | {title} peak RSS |" for _, title in floors)
             + (" Python keyring median | Python keyring peak RSS |" if python_keyring else ""),
             "|---|---:|---:|---:|---:|---:|" + "---:|---:|---:|" * len(floors)
             + ("---:|---:|" if python_keyring else "")]
    figures = []
    for label, mine, theirs, floor_cases, third in rows:
        ratio = mine.median_ms / theirs.median_ms
        line = (f"| {label} | {mine.median_ms:.2f} ms | {theirs.median_ms:.2f} ms | {ratio:.2f} | "
                f"{mine.rss_mib:.1f} MiB | {theirs.rss_mib:.1f} MiB |")
        entry = {"operation": label, "keyid_ms": mine.median_ms, "peer": theirs.name,
                 "peer_ms": theirs.median_ms, "ratio": ratio, "keyid_rss_mib": mine.rss_mib,
                 "peer_rss_mib": theirs.rss_mib}
        for key, _, bottom in floor_cases:
            if bottom:
                floor_ratio = bottom.median_ms / theirs.median_ms
                line += f" {bottom.median_ms:.2f} ms | {floor_ratio:.2f} | {bottom.rss_mib:.1f} MiB |"
                entry.update({f"{key}_ms": bottom.median_ms, f"{key}_ratio": floor_ratio,
                              f"{key}_rss_mib": bottom.rss_mib})
            else:
                line += " | | |"
        if python_keyring:
            if third:
                line += f" {third.median_ms:.2f} ms | {third.rss_mib:.1f} MiB |"
                entry.update(python_keyring_ms=third.median_ms, python_keyring_rss_mib=third.rss_mib)
            else:
                line += " | |"
        lines.append(line)
        figures.append(entry)
    print(f"{runs} alternating runs per command; {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.freedesktop_os_release().get('PRETTY_NAME', 'Linux')}, gnome-keyring in a private session\n")
    print("\n".join(lines))
    # keyid's get against the Swift floor, the limit a get is held to (doc/PERFORMANCE.md, "What
    # was cut from a get"), from the same alternation.
    # and against the Swift floor making the same calls, the Attributes read included: what keyid's
    # own code costs.
    for label, mine, _, floor_cases, _ in rows:
        cases = {key: case for key, _, case in floor_cases if case}
        if "swift_floor" in cases and label.startswith("get / lookup (1 item)"):
            ratio = mine.median_ms / cases["swift_floor"].median_ms
            print(f"\nkeyid get / Swift floor (1 item): {ratio:.3f} (target ≤ 1.05: {'met' if ratio <= 1.05 else 'not met'})")
            figures.append({"operation": "keyid get / Swift floor", "ratio": ratio, "target_met": ratio <= 1.05})
            if "swift_floor_attributes" in cases:
                read = cases["swift_floor_attributes"].median_ms
                print(f"keyid get / Swift floor + Attributes (1 item): {mine.median_ms / read:.3f}; "
                      f"Swift floor + Attributes / Swift floor: {read / cases['swift_floor'].median_ms:.3f}")
                figures += [{"operation": "keyid get / Swift floor + Attributes", "ratio": mine.median_ms / read},
                            {"operation": "Swift floor + Attributes / Swift floor",
                             "ratio": read / cases["swift_floor"].median_ms}]

    if loop_rows:
        names = [loop.name for loop in loop_rows[0][1]]
        header = (f"| in process: {args.gets:,} gets on one instance | KeyIDKit median | KeyIDKit p90 "
                  "| KeyIDKit mean |")
        rule = "|---|---:|---:|---:|"
        for loop in loop_rows[0][1][1:]:
            header += f" {loop.name} median ({loop.calls_per_get} calls) | ratio |"
            rule += "---:|---:|"
        lines = [header + " target: KeyIDKit median ≤ 1 ms |", rule + "---|"]
        for label, loops in loop_rows:
            mine = loops[0]
            line = (f"| {label} | {mine.figure('median'):.0f} µs | {mine.figure('p90'):.0f} µs | "
                    f"{mine.figure('mean'):.0f} µs |")
            entry = {"operation": f"in process: {args.gets:,} gets on one instance ({label})",
                     "rounds": args.rounds, "gets_per_round": args.gets}
            for loop in loops:
                key = {"KeyIDKit": "keyidkit", "SecretStorage": "secretstorage"}.get(loop.name, "secretstorage_lean")
                entry.update({f"{key}_{name}_us": loop.figure(name) for name in ("median", "p90", "mean")})
                if loop is not mine:
                    ratio = mine.figure("median") / loop.figure("median")
                    line += f" {loop.figure('median'):.0f} µs | {ratio:.2f} |"
                    entry[f"{key}_calls_per_get"] = loop.calls_per_get
                    entry[f"keyidkit_{key}_ratio"] = ratio
            met = mine.figure("median") <= 1000
            line += " met |" if met else " not met |"
            entry["target_met"] = met
            lines.append(line)
            figures.append(entry)
        print(f"\n{args.gets:,} gets per program and round, {args.rounds} rounds alternating "
              f"{', '.join(names)}; figures over all {args.gets * args.rounds:,} gets of each\n")
        print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(figures, handle, indent=2)

if __name__ == "__main__":
    main()
