#!/usr/bin/python3
"""Hostile input for keyid: argv, standard input and environment nobody checked.

Runs inside a private keyring session. Every case must end with the documented exit
status, exactly one line on standard error, nothing on standard output where it fails, no
crash, and the keyring's full dump unchanged. Prints one JSON object with the counts and
any failures.

  hostile.py KEYID KEYRING_TOOL [--cases N] [--seed S]
"""
import json
import os
import random
import subprocess
import sys

keyid, tool = sys.argv[1], sys.argv[2]
cases = int(sys.argv[sys.argv.index("--cases") + 1]) if "--cases" in sys.argv else 200
seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
rng = random.Random(seed)
workdir = os.getcwd()


def dump():
    return subprocess.run(["/usr/bin/python3", tool, "dump"], capture_output=True, check=True).stdout


def junk():
    kind = rng.choice(["bytes", "control", "newline", "huge", "empty", "invalid-utf8", "long"])
    if kind == "bytes":
        return bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 40)))
    if kind == "control":
        return b"a" + bytes([rng.choice([1, 7, 8, 9, 10, 13, 27, 127])]) + b"b"
    if kind == "newline":
        return b"line1\nline2"
    if kind == "huge":
        # Linux refuses a single argument or variable of 128 KiB or more (MAX_ARG_STRLEN).
        return b"x" * (128 * 1024 - 32)
    if kind == "empty":
        return b""
    if kind == "invalid-utf8":
        return b"ok\xff\xfe\xc3"
    return b"y" * 256


subcommands = [b"create", b"get", b"rotate", b"delete"]
stored = subprocess.run([keyid, "get", "--create"], capture_output=True, check=True).stdout.strip()
subprocess.run([keyid, "create", "--service", "other"], capture_output=True, check=True)
foreign = os.path.join(workdir, "foreign")
os.makedirs(foreign, exist_ok=True)
if os.geteuid() == 0:
    os.chown(foreign, 65534, 65534)
plain_file = os.path.join(workdir, "plain-file")
open(plain_file, "w").close()
planted = os.path.join(workdir, "planted")
os.makedirs(planted, mode=0o700, exist_ok=True)
if not os.path.islink(os.path.join(planted, "keyid")):
    os.symlink("/tmp", os.path.join(planted, "keyid"))

before = dump()
failures = []
counts = {}


def run(label, argv, expected, stdin=b"", env=None):
    environment = dict(os.environ)
    environment.update(env or {})
    result = subprocess.run(argv, input=stdin, capture_output=True, env=environment, timeout=30)
    counts[label] = counts.get(label, 0) + 1
    problems = []
    if result.returncode not in expected:
        problems.append(f"exit {result.returncode}, expected {sorted(expected)}")
    if result.returncode != 0 and result.stdout:
        problems.append("stdout not empty on failure")
    lines = result.stderr.count(b"\n")
    if result.returncode != 0 and lines != 1:
        problems.append(f"stderr has {lines} lines")
    if stored in result.stderr:
        problems.append("the ID appeared on stderr")
    if problems:
        failures.append({"case": label, "argv": [a[:80].decode("latin-1") for a in argv[1:]],
                         "problems": problems, "stderr": result.stderr[:200].decode("latin-1")})


for index in range(cases):
    sub = rng.choice(subcommands)
    kind = index % 6
    if kind == 0:
        option = rng.choice([b"--service", b"--account"])
        value = junk()
        # A value starting with "--" is taken as a missing value: still a usage error.
        run("argv: bad name", [keyid.encode(), sub, option, value], {2})
    elif kind == 1:
        run("argv: junk argument", [keyid.encode(), sub, junk()], {2})
    elif kind == 2:
        stdin = rng.choice([b"", b"\n", b"not a uuid", os.urandom(64), b"z" * (10 << 20),
                            b"\x00" * 36, b"00000000-0000-0000-0000-000000000000"])
        run("stdin: rotate --value -", [keyid.encode(), b"rotate", b"--value", b"-"], {2}, stdin=stdin)
    elif kind == 3:
        variable = rng.choice(["KEYID_SERVICE", "KEYID_ACCOUNT", "KEYID_TIMEOUT"])
        value = junk().replace(b"\x00", b"")
        if variable == "KEYID_TIMEOUT":
            value = rng.choice([b"", b"0", b"-5", b"never", b"1e9", b"9999999"]) if value else b"abc"
            expected = {2} if value else {0, 1}
        else:
            expected = {2}
        if variable == "KEYID_TIMEOUT" and value == b"":
            expected = {0, 3} if sub == b"create" else {0, 1}
        run(f"env: {variable}", [keyid.encode(), sub], expected, env={variable: value})
    elif kind == 4:
        backend = rng.choice([b"kwallet", b"", b"Service", b"file2", junk().replace(b"\x00", b"")])
        run("env: SECRET_BACKEND", [keyid.encode(), sub], {2}, env={"SECRET_BACKEND": backend})
    else:
        runtime = rng.choice([plain_file, planted, foreign])
        # Only commands that write take the lock; reads never touch the lock directory.
        argv = [keyid.encode(), rng.choice([b"create", b"rotate", b"delete"]), b"--service", b"hostile-lock"]
        run("env: XDG_RUNTIME_DIR", argv, {8}, env={"XDG_RUNTIME_DIR": runtime})

after = dump()
print(json.dumps({"cases": sum(counts.values()), "counts": counts, "failures": failures[:20],
                  "failed": len(failures), "keyring_unchanged": before == after}))
