#!/usr/bin/python3
"""Every fault at every step: keyid and KeyIDKit against a Secret Service provider that fails
on cue (provider.py), with what the contract promises checked after every run.

  faults.py --keyid KEYID [--probe PROBE] [--sample] [--jobs N] [--timeout S]
            [--only SCENARIO]... [--fault FAULT --at-call MEMBER[#K]] [--report FILE] [--show]

For each operation that touches the keyring (the keyid subcommands and the same operations
through KeyIDKit, in keyid-library-probe), a run without a fault first counts the calls it
sends to the provider; then, for each of those calls, one run for each fault, struck when the
provider receives it:

  the provider exits before acting on it; acts and exits without replying; replies and then
  exits; each of the three with no successor, with a successor waiting in the name's queue
  that has an empty keyring, or with one that shares the keyring (a restart); the provider
  stalls; the bus drops every connection.

Each run has a bus, providers and directories of its own. After it, the invariants:

  time        the run ended within --timeout plus one second
  output      a failure has a documented status, one line on stderr ("keyid: ...", or the
              library's one error line) and nothing on stdout; a success prints the ID alone
  status      the status fits what happened (1, not found, only where an empty successor
              answered the search; never 3 after a create of a missing ID)
  once        each write (CreateItem, SetSecret, Set of a property, Delete) reached the
              providers at most once per item, counted across all of them
  vouched     a success was written and confirmed by one provider (one unique bus name): the
              write's reply came from the provider that made it, and a create's ID was read
              back from that same provider
  kept        after a success, a later `keyid get` against that provider's keyring returns the
              ID printed (after a delete: finds nothing)
  whole       no item is left without its value or its service and account
  unchanged   a failure that wrote nothing left every keyring as it was
  told        a failure after a provider made a write says that the change may have been made
  quiet       the library's host saw no GLib message (the probe's "glib:" lines)

--sample runs one call of each operation and fault (the call chosen in turn), which is what
`make test` runs; without it, every call: `make faults`. --fault (as the summary names it,
e.g. "exit-acted + empty successor") with --at-call runs that one fault at the Kth call (1st
by default) whose member ends with MEMBER (e.g. Properties.Set), in each --only operation.
Prints one line per failed run and a summary; exits 1 when any invariant failed, 2 when the
harness itself could not run.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
PROVIDER = os.path.join(HERE, "provider.py")
SESSION_CONF = os.path.join(ROOT, "Tests", "Harness", "session.conf")
PYTHON = "/usr/bin/python3"
DBUS_DAEMON = "/usr/bin/dbus-daemon"

SERVICE, ACCOUNT = "keyid", "device-id"
STORED_ID = "6f1c2a4e-8b3d-4e5f-9a7b-1c2d3e4f5a6b"
GIVEN_ID = "0b7e2d9c-51a4-4c3e-8f6d-2a9b8c7d6e5f"
WRITES = ("CreateItem", "SetSecret", "Delete", "Set")

# name: (runner, arguments, initial keyring, standard input, what it does)
SCENARIOS = {
    "create": ("cli", ["create"], "empty", None, "create"),
    "create --value -": ("cli", ["create", "--value", "-"], "empty", GIVEN_ID, "create"),
    "get": ("cli", ["get"], "keyid", None, "get"),
    "get --create": ("cli", ["get", "--create"], "empty", None, "create"),
    "rotate": ("cli", ["rotate"], "keyid", None, "rotate"),
    "rotate --value -": ("cli", ["rotate", "--value", "-"], "keyid", GIVEN_ID, "rotate"),
    "rotate (foreign item)": ("cli", ["rotate"], "foreign", None, "rotate"),
    "delete": ("cli", ["delete"], "keyid", None, "delete"),
    "KeyIDKit create": ("lib", ["create"], "empty", None, "create"),
    "KeyIDKit get": ("lib", ["get"], "keyid", None, "get"),
    "KeyIDKit getOrCreate": ("lib", ["getOrCreate"], "empty", None, "create"),
    "KeyIDKit rotate": ("lib", ["rotate"], "keyid", None, "rotate"),
    "KeyIDKit rotate (foreign item)": ("lib", ["rotate"], "foreign", None, "rotate"),
    "KeyIDKit delete": ("lib", ["delete"], "keyid", None, "delete"),
}

# (what the provider does at the call, the successor waiting in the name's queue)
FAULTS = [
    ("exit-before", None), ("exit-acted", None), ("exit-replied", None),
    ("exit-before", "empty"), ("exit-acted", "empty"), ("exit-replied", "empty"),
    ("exit-before", "shared"), ("exit-acted", "shared"), ("exit-replied", "shared"),
    ("stall", None), ("bus-drop", None),
]


def fault_name(fault):
    kind, successor = fault
    return kind + (" + %s successor" % successor if successor else "")


class HarnessError(Exception):
    """The harness itself could not run (not a finding about keyid)."""


class Run:
    """One run: a bus, a provider failing on cue (and its successor), the operation, the logs."""

    def __init__(self, args, scenario, fault, at, keyrings):
        self.args = args
        self.name = scenario
        self.runner, self.arguments, self.initial, self.stdin, self.kind = SCENARIOS[scenario]
        self.fault, self.at = fault, at
        self.keyrings = keyrings
        self.directory = tempfile.mkdtemp(prefix="keyid-fault-")
        self.processes = []

    # Processes

    def environment(self, address):
        environment = {k: v for k, v in os.environ.items()
                       if not k.startswith(("KEYID_", "DBUS_", "XDG_", "SECRET_", "GNOME_KEYRING"))}
        for name in ("DISPLAY", "WAYLAND_DISPLAY"):
            environment.pop(name, None)
        for name in ("home", "data", "config", "cache", "state", "run"):
            os.makedirs(os.path.join(self.directory, name), mode=0o700, exist_ok=True)
        environment.update(
            DBUS_SESSION_BUS_ADDRESS=address, HOME=self.path("home"), XDG_DATA_HOME=self.path("data"),
            XDG_CONFIG_HOME=self.path("config"), XDG_CACHE_HOME=self.path("cache"),
            XDG_STATE_HOME=self.path("state"), XDG_RUNTIME_DIR=self.path("run"))
        return environment

    def path(self, name):
        return os.path.join(self.directory, name)

    def start(self, command, environment, ready):
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment,
                                   cwd=self.directory, start_new_session=True)
        self.processes.append(process)
        line = process.stdout.readline().decode().strip()
        if ready and line != ready:
            raise HarnessError("%s printed %r, not %r: %s" % (command[1] if len(command) > 1 else command[0], line,
                                                              ready, process.stderr.read(2000).decode()))
        return process, line

    def start_bus(self):
        bus, address = self.start([DBUS_DAEMON, "--config-file=" + SESSION_CONF, "--print-address=1", "--nofork"],
                                  dict(os.environ), None)
        if not address.startswith("unix:"):
            raise HarnessError("dbus-daemon gave no address: %r" % address)
        return bus, address

    def start_provider(self, address, bus, storage, log, extra, ready):
        environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address, FAULT_BUS_PID=str(bus.pid))
        environment.pop("SECRET_SERVICE_BUS_NAME", None)
        self.start([PYTHON, PROVIDER, storage, log] + extra, environment, ready)

    def stop_all(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            process.wait()
            for stream in (process.stdout, process.stderr):
                if stream:
                    stream.close()
        self.processes = []

    def operate(self, address, arguments, stdin, timeout):
        """Runs keyid or the probe; returns (status, stdout, stderr, seconds)."""
        if self.runner == "cli":
            command = [self.args.keyid] + arguments + ["--timeout", str(timeout), "--no-prompt"]
        else:
            command = [self.args.probe, "op", arguments[0], SERVICE, ACCOUNT, str(int(timeout * 1000))]
        began = time.monotonic()
        try:
            done = subprocess.run(command, input=(stdin + "\n").encode() if stdin else b"", capture_output=True,
                                  env=self.environment(address), cwd=self.directory, timeout=timeout + 20)
            status, out, err = done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(
                errors="replace")
        except subprocess.TimeoutExpired as expired:
            status, out, err = None, (expired.stdout or b"").decode(errors="replace"), "hung"
        return status, out, err, time.monotonic() - began

    # The run

    def execute(self):
        try:
            return self.execute_in_directory()
        finally:
            self.stop_all()
            shutil.rmtree(self.directory, ignore_errors=True)

    def execute_in_directory(self):
        primary = self.path("keyring.json")
        initial = self.keyrings[self.initial]
        if initial is not None:
            with open(primary, "w") as out:
                json.dump(initial, out)
        log = self.path("log")
        open(log, "w").close()
        bus, address = self.start_bus()
        kind, successor = self.fault if self.fault else (None, None)
        self.start_provider(address, bus, primary, log, ["--fault", kind, "--at", str(self.at)] if kind else [],
                            "ready")
        if successor:
            storage = primary if successor == "shared" else self.path("empty.json")
            self.start_provider(address, bus, storage, log, ["--queue"], "queued")
        timeout = self.args.timeout
        status, out, err, seconds = self.operate(address, self.arguments, self.stdin, timeout)
        self.stop_all()
        events = [json.loads(line) for line in open(log) if line.strip()]
        outcome = Outcome(self, status, out, err, seconds, events, initial)
        outcome.check()
        if outcome.printed is not None or self.kind == "delete" and outcome.succeeded:
            self.check_kept(outcome)
        return outcome

    def check_kept(self, outcome):
        """A later get, by keyid, on a fresh bus with a provider on the keyring of the provider that
        took the write, returns what the run printed (a delete: nothing)."""
        storage = outcome.storage_of(outcome.writer) if outcome.writer else self.path("keyring.json")
        if not storage or not os.path.exists(storage):
            outcome.fail("kept", "no keyring to read back from")
            return
        bus, address = self.start_bus()
        self.start_provider(address, bus, storage, self.path("later.log"), [], "ready")
        status, out, err, _ = self.operate_later(address)
        self.stop_all()
        if self.kind == "delete":
            if status != 1:
                outcome.fail("kept", "a later get after the delete: exit %s %r %r" % (status, out, err))
        elif status != 0 or out.strip() != outcome.printed:
            outcome.fail("kept", "a later get: exit %s %r %r, printed %s" % (status, out, err, outcome.printed))

    def operate_later(self, address):
        runner, self.runner = self.runner, "cli"
        try:
            return self.operate(address, ["get"], None, 5)
        finally:
            self.runner = runner


class Outcome:
    """What a run did, and the invariants it broke."""

    def __init__(self, run, status, out, err, seconds, events, initial):
        self.run = run
        self.status, self.out, self.err, self.seconds = status, out, err, seconds
        self.events = events
        self.initial = initial
        self.failures = []
        self.printed = None
        self.writer = None
        self.glib = []

    @property
    def succeeded(self):
        return self.status == 0

    def fail(self, invariant, detail):
        self.failures.append((invariant, detail))

    def storage_of(self, who):
        for event in self.events:
            if event["event"] == "start" and event["who"] == who:
                return event["storage"]
        return None

    def keyrings(self):
        """Every keyring file the providers used, as it is now."""
        paths = sorted({e["storage"] for e in self.events if e["event"] == "start"})
        found = {}
        for path in paths:
            try:
                with open(path) as source:
                    found[path] = json.load(source)
            except FileNotFoundError:
                found[path] = None
        return found

    def check(self):
        run = self.run
        if self.status is None:
            self.fail("time", "hung: still running %d s after the timeout" % 20)
            return
        if self.seconds > run.args.timeout + 1:
            self.fail("time", "took %.2f s with a timeout of %s s" % (self.seconds, run.args.timeout))
        self.read_output()
        self.check_status()
        self.check_once()
        if self.succeeded:
            self.check_vouched()
        self.check_whole()
        wrote = any(e["event"] == "write" for e in self.events)
        if not self.succeeded and not wrote:
            self.check_unchanged()
        if not self.succeeded and wrote and "may have been made" not in self.err + self.out:
            self.fail("told", "a write was made, and the failure does not say so: %r" % (self.err or self.out))
        if self.glib:
            self.fail("quiet", "GLib logged in the host: %r" % self.glib)

    def read_output(self):
        run = self.run
        if run.runner == "cli":
            message = self.err
            if self.succeeded:
                if self.err:
                    self.fail("output", "success with stderr %r" % self.err)
                if run.kind == "delete":
                    if self.out:
                        self.fail("output", "delete printed %r" % self.out)
                elif not is_id_line(self.out):
                    self.fail("output", "success without one ID line: %r" % self.out)
                else:
                    self.printed = self.out.strip()
            else:
                if self.out:
                    self.fail("output", "failure with stdout %r" % self.out)
                if not (message.startswith("keyid: ") and message.endswith("\n") and message.count("\n") == 1):
                    self.fail("output", "failure without one 'keyid: ' line: %r" % message)
            return
        lines = self.out.splitlines()
        self.glib = [line for line in lines if line.startswith("glib: ")]
        results = [line for line in lines if not line.startswith("glib: ")]
        if self.status != 0 or len(results) != 1:
            self.fail("output", "the probe: exit %s, stdout %r, stderr %r" % (self.status, self.out, self.err))
            self.status = -1
            return
        if self.err:
            self.fail("output", "the host's stderr: %r" % self.err)
        result = results[0]
        if result.startswith("error "):
            parts = result.split(" ", 2)
            self.status = int(parts[1]) if parts[1].isdigit() else -1
            if len(parts) < 3 or not parts[2]:
                self.fail("output", "an error without a message: %r" % result)
        elif result == "ok" and run.kind == "delete" or result.startswith("ok ") and is_id_line(result[3:] + "\n"):
            self.status = 0
            self.printed = result[3:] if run.kind != "delete" else None
        else:
            self.fail("output", "the probe printed %r" % result)
            self.status = -1

    def check_status(self):
        run = self.run
        allowed = {0, 5, 6, 8}
        searched_empty = any(e["event"] == "call" and e["member"].endswith(".SearchItems")
                             and self.storage_of(e["who"]) and self.storage_of(e["who"]).endswith("empty.json")
                             for e in self.events)
        if run.kind in ("get", "rotate", "delete") and searched_empty:
            allowed.add(1)
        if self.status not in allowed:
            self.fail("status", "exit %s is not one this fault may end with (%s): %r" % (
                self.status, sorted(allowed), self.err or self.out))
        if run.fault and run.fault[0] == "stall" and self.status not in (0, 6):
            self.fail("status", "a stalled provider ended with exit %s, not 6: %r" % (self.status, self.err or self.out))

    def check_once(self):
        seen = {}
        for event in self.events:
            if event["event"] != "call":
                continue
            member = event["member"].rsplit(".", 1)[1]
            if member not in WRITES or member == "Set" and not event["member"].endswith("Properties.Set"):
                continue
            key = (event["member"], event.get("detail", ""), event["path"])
            seen[key] = seen.get(key, 0) + 1
        for key, count in seen.items():
            if count > 1:
                self.fail("once", "%s %s of %s reached the providers %d times" % (key[0], key[1], key[2], count))

    def check_vouched(self):
        run = self.run
        writes = [e for e in self.events if e["event"] == "write"]
        replies = [e for e in self.events if e["event"] == "reply" and not e["error"]]
        if run.kind == "get":
            if self.printed != STORED_ID:
                self.fail("vouched", "get printed %s, not the stored %s" % (self.printed, STORED_ID))
            if writes:
                self.fail("vouched", "get wrote %r" % writes)
            return
        expected = {"create": "CreateItem", "rotate": "SetSecret", "delete": "Delete"}[run.kind]
        made = [w for w in writes if w["member"] == expected]
        if run.kind != "delete":
            made = [w for w in made if w.get("value") == self.printed]
        if not made:
            self.fail("vouched", "no provider made the write of %s it reported (%s)" % (
                self.printed or "the delete", [(w["who"], w["member"], w.get("value")) for w in writes]))
            return
        write = made[-1]
        self.writer = write["who"]
        if not any(r["who"] == self.writer and r["n"] == write["n"] for r in replies):
            self.fail("vouched", "%s by %s was never answered, yet reported done" % (expected, self.writer))
        if run.stdin and self.printed != GIVEN_ID:
            self.fail("vouched", "printed %s, not the ID given on stdin" % self.printed)
        if run.kind == "rotate" and self.printed == STORED_ID:
            self.fail("vouched", "rotate printed the ID it replaced")
        if run.kind == "create":
            confirmed = [r for r in replies if r["who"] == self.writer and r["n"] > write["n"]
                         and self.printed in (r.get("secrets") or {}).values()]
            if not confirmed:
                readers = sorted({r["who"] for r in replies if r.get("secrets") and r["n"] > 0})
                self.fail("vouched", "the ID %s was written by %s but never read back from it (read from %s)" % (
                    self.printed, self.writer, readers))
        if run.initial == "foreign" and run.kind == "rotate":
            keyring = self.keyrings().get(self.storage_of(self.writer)) or {"items": {}}
            item = keyring["items"].get(write["path"], {})
            attributes = item.get("attributes", {})
            if attributes.get("note") != "kept" or attributes.get("keyid") != "1":
                self.fail("vouched", "the rotated foreign item's attributes are %r" % attributes)

    def check_whole(self):
        for path, keyring in self.keyrings().items():
            for item_path, item in (keyring or {"items": {}})["items"].items():
                attributes = item.get("attributes") or {}
                if not item.get("secret") or "service" not in attributes or "account" not in attributes:
                    self.fail("whole", "%s in %s is half-made: %r" % (item_path, os.path.basename(path), item))

    def check_unchanged(self):
        for path, keyring in self.keyrings().items():
            before = self.initial if path.endswith("keyring.json") else None
            if (keyring or {"items": {}})["items"] != (before or {"items": {}})["items"]:
                self.fail("unchanged", "%s changed though nothing was written" % os.path.basename(path))

    def describe(self):
        run = self.run
        where = "%s, %s at call %d" % (run.name, fault_name(run.fault), run.at) if run.fault else run.name + ", no fault"
        calls = [(e["n"], e["who"], e["member"].rsplit(".", 1)[1]) for e in self.events if e["event"] == "call"]
        return "%s: exit %s in %.2f s, %r%r; calls %s" % (
            where, self.status, self.seconds, self.out.strip(), self.err.strip(), calls)


def is_id_line(text):
    import re
    return re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n", text) is not None


def keyrings(args):
    """The keyrings runs start from: empty; one holding an ID keyid stored (made by keyid itself,
    so that it carries keyid's attributes and this machine's binding); one holding an item
    another program stored, without keyid's attributes."""
    holder = Run(args, "create --value -", None, 0, {"empty": None})
    try:
        bus, address = holder.start_bus()
        storage = holder.path("keyring.json")
        holder.start_provider(address, bus, storage, holder.path("log"), [], "ready")
        status, out, err, _ = holder.operate(address, ["create", "--value", "-"], STORED_ID, 5)
        if status != 0:
            raise HarnessError("keyid could not store the first ID: exit %s %r" % (status, err))
        with open(storage) as source:
            stored = json.load(source)
    finally:
        holder.stop_all()
        shutil.rmtree(holder.directory, ignore_errors=True)
    path = "/org/freedesktop/secrets/collection/login/1"
    foreign = {"next": 2, "items": {path: {
        "label": "stored by another program", "secret": STORED_ID, "created": 1700000000, "modified": 1700000000,
        "attributes": {"service": SERVICE, "account": ACCOUNT, "xdg:schema": "org.example.Password",
                       "note": "kept"}}}}
    return {"empty": None, "keyid": stored, "foreign": foreign}


def main():
    parser = argparse.ArgumentParser(description="every fault at every step")
    parser.add_argument("--keyid", required=True)
    parser.add_argument("--probe")
    parser.add_argument("--sample", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=2)
    parser.add_argument("--only", action="append")
    parser.add_argument("--fault", choices=[fault_name(fault) for fault in FAULTS])
    parser.add_argument("--at-call")
    parser.add_argument("--report")
    parser.add_argument("--show", action="store_true", help="print every run, not only the failed ones")
    args = parser.parse_args()
    args.keyid = os.path.abspath(args.keyid)
    args.probe = os.path.abspath(args.probe) if args.probe else None
    for tool in (args.keyid, DBUS_DAEMON, PYTHON):
        if not os.access(tool, os.X_OK):
            print("faults.py: %s is missing" % tool, file=sys.stderr)
            return 2
    scenarios = [name for name in SCENARIOS if (args.only is None or name in args.only)
                 and (SCENARIOS[name][0] == "cli" or args.probe)]
    began = time.monotonic()
    try:
        initial = keyrings(args)
        # The calls each operation sends when nothing fails.
        clean = {name: Run(args, name, None, 0, initial).execute() for name in scenarios}
    except HarnessError as error:
        print("faults.py: %s" % error, file=sys.stderr)
        return 2
    runs = []
    for index, name in enumerate(scenarios):
        calls = [e["n"] for e in clean[name].events if e["event"] == "call"]
        if args.fault:
            member, _, nth = args.at_call.partition("#")
            chosen = [e["n"] for e in clean[name].events if e["event"] == "call" and e["member"].endswith(member)]
            if len(chosen) < int(nth or 1):
                print("faults.py: %s sends no call %s" % (name, args.at_call), file=sys.stderr)
                return 2
            fault = next(fault for fault in FAULTS if fault_name(fault) == args.fault)
            runs.append((name, fault, chosen[int(nth or 1) - 1]))
            continue
        for fault_index, fault in enumerate(FAULTS):
            steps = calls if not args.sample else [calls[(index + fault_index) % len(calls)]] if calls else []
            runs += [(name, fault, step) for step in steps]
    lock = threading.Lock()
    results = list(clean.values())
    failures = [outcome for outcome in results if outcome.failures]

    def one(spec):
        name, fault, step = spec
        try:
            outcome = Run(args, name, fault, step, initial).execute()
        except HarnessError as error:
            print("faults.py: %s" % error, file=sys.stderr)
            raise
        with lock:
            results.append(outcome)
            if args.show:
                print("run %s" % outcome.describe(), flush=True)
            if outcome.failures:
                failures.append(outcome)
                for invariant, detail in outcome.failures:
                    print("FAIL [%s] %s\n    %s" % (invariant, outcome.describe(), detail), flush=True)
        return outcome

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        try:
            list(pool.map(one, runs))
        except HarnessError:
            return 2
    for outcome in clean.values():
        for invariant, detail in outcome.failures:
            print("FAIL [%s] %s\n    %s" % (invariant, outcome.describe(), detail), flush=True)
    broken = {}
    for outcome in failures:
        for invariant, _ in outcome.failures:
            broken[invariant] = broken.get(invariant, 0) + 1
    invariants = ["time", "output", "status", "once", "vouched", "kept", "whole", "unchanged", "told", "quiet"]
    summary = {
        "operations": len(scenarios), "faults": len(FAULTS), "runs": len(results),
        "failed_runs": len(failures), "invariants": len(invariants),
        "checks": len(results) * len(invariants), "broken": broken,
        "seconds": round(time.monotonic() - began, 1), "sample": args.sample,
    }
    print(json.dumps(summary, sort_keys=True))
    if args.report:
        with open(args.report, "w") as out:
            json.dump(summary, out, sort_keys=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
