#!/usr/bin/env python3
"""KeyIDKit's public API against the previous release's (make api-check).

    api-check.py              compare; exit 1 on a breaking change the version does not allow
    api-check.py --self-test  show that the check fails: in a copy of this tree, a public
                              method changes (must fail), then the major version goes up
                              (must pass)

The previous release is named in packaging/previous-release (its version and commit); the
current version is the one scripts/version.sh reads. SwiftPM's
`swift package diagnose-api-breaking-changes` compares the modules, offline (the baseline is
built from this repository's own history). The API digester behind it also reports changes to
`package` declarations, which KeyIDKit shares with keyid's other targets and promises no one:
each change it reports is looked up in the previous release's symbol graph
(`swift package dump-symbol-graph`), and only a change to a declaration that is public, in a
public type, counts. A change the lookup cannot place counts too. A counted change fails the
check unless the major version went up.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SWIFT = os.environ.get("SWIFT", "swift")
PRODUCT = "KeyIDKit"


def fail(message, status=2):
    print(f"api-check: {message}", file=sys.stderr)
    sys.exit(status)


def run(args, cwd, check=True):
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if check and result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        fail(f"{' '.join(args[:3])} failed (status {result.returncode})")
    return result


def previous_release(root):
    fields = {}
    for line in (root / "packaging/previous-release").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition(" ")
            fields[name] = value.strip()
    if not re.fullmatch(r"[0-9a-f]{40}", fields.get("commit", "")) or "version" not in fields:
        fail("packaging/previous-release needs a 'version X.Y.Z' line and a 'commit <40 hex digits>' line")
    return fields["version"], fields["commit"]


def version_tuple(version):
    parts = re.match(r"(\d+)\.(\d+)\.(\d+)", version)
    if not parts:
        fail(f"'{version}' is not MAJOR.MINOR.PATCH")
    return tuple(int(part) for part in parts.groups())


def version_at(root, commit):
    """The version the previous release's sources wrote down, as its scripts/version.sh read it."""
    source = run(["git", "grep", "-h", "-o", "-E", 'static let current = "[^"]*"', commit, "--",
                  "Sources/KeyIDKit"], root).stdout
    found = set(re.findall(r'"([^"]*)"', source))
    if len(found) != 1:
        fail(f"commit {commit[:12]} writes {len(found)} versions down, not one")
    return found.pop()


def baseline_symbols(root, commit, cache):
    """Path (a tuple of names) -> access level, for every symbol of KeyIDKit at `commit`."""
    graph_file = cache / f"{commit}.symbols.json"
    if not graph_file.exists():
        source = cache / "source"
        shutil.rmtree(source, ignore_errors=True)
        source.mkdir(parents=True)
        archive = subprocess.Popen(["git", "archive", commit], cwd=root, stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", str(source)], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            fail(f"git archive {commit[:12]} failed")
        # It also tries the test modules, which it did not build, and then exits 1: what counts
        # is KeyIDKit's graph.
        result = run([SWIFT, "package", "dump-symbol-graph", "--minimum-access-level", "package"], source,
                     check=False)
        written = re.search(r"Files written to (.*)", result.stdout + result.stderr)
        graph = written and Path(written.group(1).strip()) / f"{PRODUCT}.symbols.json"
        if not graph or not graph.exists():
            sys.stderr.write(result.stdout + result.stderr)
            fail(f"swift package dump-symbol-graph wrote no {PRODUCT}.symbols.json")
        shutil.copy(graph, graph_file)
        shutil.rmtree(source)
    symbols = {}
    for symbol in json.loads(graph_file.read_text())["symbols"]:
        path = tuple(symbol["pathComponents"])
        # Overloads share a path: the widest access decides (a public overload is API).
        if symbols.get(path) != "public":
            symbols[path] = symbol["accessLevel"]
    return symbols


def components(path):
    """`DeviceIDs.Options.init(a:b:)` -> ("DeviceIDs", "Options", "init(a:b:)"): dots outside
    parentheses separate the names."""
    names, depth, current = [], 0, ""
    for character in path:
        depth += {"(": 1, ")": -1}.get(character, 0)
        if character == "." and depth == 0 and current:
            names.append(current)
            current = ""
        else:
            current += character
    return tuple(names + [current])


KINDS = {"func", "constructor", "var", "let", "enum", "case", "enumelement", "struct", "class",
         "protocol", "typealias", "subscript", "accessor", "associatedtype", "operator", "macro",
         "static", "final", "extension", "import", "module"}


def classify(message, symbols):
    """'public', 'non-public' or 'unplaced' for one 'API breakage: ...' line."""
    words = message.split("API breakage:", 1)[1].split()
    subject = next((word for word in words if word not in KINDS), "")
    path = components(subject)
    # The longest prefix of the path that names a symbol: an accessor (`x.Get()`) or a
    # parameter names something under its declaration.
    for length in range(len(path), 0, -1):
        if path[:length] in symbols:
            break
    else:
        return "unplaced"
    return "public" if is_api(path[:length], symbols) else "non-public"


def is_api(path, symbols):
    """A symbol is API when it and every type it is declared in are public: a member of a
    package type is not, even where its own level reads public (synthesized conformances do)."""
    levels = (symbols.get(path[:prefix]) for prefix in range(1, len(path) + 1))
    return all(level in (None, "public", "open") for level in levels)


def check(root):
    previous, commit = previous_release(root)
    current = run([str(root / "scripts/version.sh")], root).stdout.strip()
    if run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], root, check=False).returncode != 0:
        fail(f"commit {commit[:12]} of {previous} is not in this clone (a shallow clone? git fetch --unshallow)")
    found = version_at(root, commit)
    if found != previous:
        fail(f"packaging/previous-release says {previous}, but commit {commit[:12]} is {found}")
    if version_tuple(current) <= version_tuple(previous):
        fail(f"the version {current} is not newer than the previous release {previous}", 1)
    cache = Path(os.environ.get("KEYID_API_CHECK_CACHE", root / ".build/api-check"))
    cache.mkdir(parents=True, exist_ok=True)
    symbols = baseline_symbols(root, commit, cache)
    result = run([SWIFT, "package", "diagnose-api-breaking-changes", commit, "--products", PRODUCT,
                  "--baseline-dir", str(cache / "baseline")], root, check=False)
    output = result.stdout + result.stderr
    breakages = [line.strip().lstrip("💔").strip() for line in output.splitlines() if "API breakage:" in line]
    if result.returncode != 0 and not breakages:
        sys.stderr.write(output)
        fail("swift package diagnose-api-breaking-changes failed")
    counted = [(message, kind) for message in breakages
               if (kind := classify(message, symbols)) != "non-public"]
    public = sum(1 for path in symbols if is_api(path, symbols))
    head = f"{PRODUCT} {current} against {previous} ({commit[:12]}), {public} public declarations"
    ignored = len(breakages) - len(counted)
    note = f"; {ignored} changes to package declarations, which are not API" if ignored else ""
    if not counted:
        print(f"api-check: {head}: no breaking change{note}")
        return 0
    allowed = version_tuple(current)[0] > version_tuple(previous)[0]
    print(f"api-check: {head}: {len(counted)} breaking changes{note}")
    for message, kind in counted:
        print(f"  {message}" + ("  (not found in the previous release's symbol graph)" if kind == "unplaced" else ""))
    if allowed:
        print(f"api-check: allowed, the major version went up ({previous} -> {current})")
        return 0
    print(f"api-check: a public declaration was removed or changed without a new major version "
          f"({previous} -> {current}); keep it, or raise the major version and say so in CHANGELOG.md",
          file=sys.stderr)
    return 1


def self_test(root):
    """In a copy of this tree (a clone with the working tree's files over it), give
    DeviceIDs.getOrCreate a third parameter (with a default, so that every caller still
    builds): the check must fail and name it; raise the major version: it must pass."""
    cache = root / ".build/api-check"
    copy = cache / "self-test"
    shutil.rmtree(copy, ignore_errors=True)
    run(["git", "clone", "--quiet", "--shared", str(root), str(copy)], root)
    files = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], root).stdout
    for name in filter(None, files.split("\0")):
        if (root / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, copy / name)
    operations = copy / "Sources/KeyIDKit/Library/DeviceIDs+Operations.swift"
    text = operations.read_text()
    declaration = "public func getOrCreate(service: String, account: String)"
    if declaration not in text:
        fail(f"self-test: DeviceIDs+Operations.swift has no '{declaration}'")
    operations.write_text(text.replace(declaration, declaration[:-1] + ", label: String? = nil)"))
    env = dict(os.environ, KEYID_API_CHECK_CACHE=str(cache))

    def check_copy():
        return subprocess.run([sys.executable, str(copy / "scripts/api-check.py")], cwd=copy, env=env,
                              capture_output=True, text=True)

    renamed = check_copy()
    if renamed.returncode != 1 or "getOrCreate(service:account:)" not in renamed.stdout:
        sys.stderr.write(renamed.stdout + renamed.stderr)
        fail("self-test: changing DeviceIDs.getOrCreate did not fail the check", 1)
    # The one file that writes the version down, found by its text as scripts/version.sh finds it.
    version_file = next(path for path in sorted((copy / "Sources/KeyIDKit").rglob("*.swift"))
                        if 'static let current = "' in path.read_text())
    current = version_tuple(run([str(root / "scripts/version.sh")], root).stdout.strip())
    major = f"{current[0] + 1}.0.0"
    version_file.write_text(re.sub(r'static let current = "[^"]*"', f'static let current = "{major}"',
                                   version_file.read_text()))
    raised = check_copy()
    if raised.returncode != 0 or "allowed, the major version went up" not in raised.stdout:
        sys.stderr.write(raised.stdout + raised.stderr)
        fail(f"self-test: with the version at {major}, the change still failed the check", 1)
    shutil.rmtree(copy)
    print("api-check self-test: a changed public method fails the check, and passes it with a new major version")
    return 0


if __name__ == "__main__":
    sys.exit(self_test(ROOT) if sys.argv[1:] == ["--self-test"] else check(ROOT))
