# keyid: make run | make test | make check | make lint | make fuzz | make sanitize | make faults | make bench | make bench-phases
#        make install | make deb | make dist | make api-docs | make api-check | make apt-repo | make debian-source
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
SWIFTC ?= $(shell command -v swiftc 2>/dev/null || echo /opt/swift/usr/bin/swiftc)
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

# The release binary links the Swift runtime, libstdc++ and libgcc statically: it runs
# without the toolchain, and starts without loading and relocating libstdc++.so (about 1 ms a
# run). It is linked by lld with packed relative relocations (DT_RELR: 3 KB to read at start-up
# instead of 370 KB) and with the functions a run uses laid out together, in the order
# bench/startup.order lists them (`make order` records it), so that a run touches a third as
# many pages of the binary. Source paths in its debug information are written relative to the
# checkout (-file-prefix-map, for its Swift and its C), its debug information names no clang
# module cache (whose folder names hash the checkout's path), and the compiler's per-object
# .swift_modhash sections are left out (packaging/release-link.ld): two checkouts of one
# commit build the same binary. Its C's debug information is DWARF 4, as its Swift's is: Debian
# 12's valgrind 3.19 (make order) gives up on clang's DWARF 5 there. It carries no RUNPATH:
# with the runtime linked in it needs none. Its code reaches the metadata of a generic type at
# a concrete type (an array of keyid's items, say) through the type's accessor rather than by its
# mangled name (-disable-concrete-type-metadata-mangled-name-accessors): the runtime builds each
# such type on first use without demangling its name, 50,000 instructions less in a get
# (doc/PERFORMANCE.md). The Swift floor is compiled with the same flag (bench-floors).
CONCRETE_METADATA_FLAG = -Xfrontend -disable-concrete-type-metadata-mangled-name-accessors
STATIC_CXX = .build/static-libstdcxx/libstdc++.a
STARTUP_ORDER = $(CURDIR)/bench/startup.order
RELEASE_LINK_SCRIPT = $(CURDIR)/packaging/release-link.ld
RELEASE_FLAGS = -c release --product keyid --static-swift-stdlib --disable-local-rpath \
	-Xlinker -L$(CURDIR)/.build/static-libstdcxx \
	-Xswiftc -use-ld=lld -Xswiftc -Xclang-linker -Xswiftc -static-libgcc \
	-Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
	-Xlinker --symbol-ordering-file=$(STARTUP_ORDER) -Xlinker --no-warn-symbol-ordering \
	-Xswiftc -file-prefix-map -Xswiftc $(CURDIR)=. -Xswiftc -Xfrontend -Xswiftc -no-clang-module-breadcrumbs \
	$(addprefix -Xswiftc ,$(CONCRETE_METADATA_FLAG)) \
	-Xcc -ffile-prefix-map=$(CURDIR)=. -Xcc -gdwarf-4 $(RELEASE_LINK_SCRIPT_FLAGS)
# Swift 6.0's ld.lld (Debian 13's swiftlang 6.0.3) crashes on the link script: with that
# toolchain the binary keeps its .swift_modhash sections, and is the same only when built at
# the same path (as scripts/cross-arm64.sh builds, at /src in a Debian 13 root).
SWIFT_LANGUAGE_VERSION := $(shell $(SWIFT) --version 2>/dev/null | sed -n 's/.*Swift version \([0-9]*\.[0-9]*\).*/\1/p' | head -n 1)
RELEASE_LINK_SCRIPT_FLAGS = $(if $(filter 6.0,$(SWIFT_LANGUAGE_VERSION)),,-Xlinker -T -Xlinker $(RELEASE_LINK_SCRIPT))
DEBUG_BIN = .build/debug/keyid
RELEASE_BIN = .build/release/keyid
# examples/swift-package, a program that depends on this package by path.
EXAMPLE_BIN = $(CURDIR)/.build/example/debug/DeviceIDExample

.PHONY: all deps build release run test check stress soak faults fuzz sanitize lint format bench bench-floors bench-phases order docs api-docs \
	api-check install install-files uninstall deb dist arm64 arm64-check debian13 debian13-keyring debian-source apt-repo \
	package-check repro-check clean

all: release

deps:
	@scripts/install-deps.sh build

build: deps
	$(SWIFT) build

# SwiftPM does not know the order file and the link script are inputs of the link: relink when
# either is newer.
RELINK_IF_STALE = for input in $(STARTUP_ORDER) $(RELEASE_LINK_SCRIPT); do \
	[ ! $$input -nt $(RELEASE_BIN) ] || rm -f $(RELEASE_BIN); done

release: deps $(STATIC_CXX)
	@$(RELINK_IF_STALE)
	$(SWIFT) build $(RELEASE_FLAGS)

$(STATIC_CXX):
	mkdir -p $(dir $@)
	ln -sf "$$(c++ -print-file-name=libstdc++.a)" $@

## make run: print this machine's device ID (creating it on first use).
run:
	@scripts/install-deps.sh run
	@$(MAKE) --no-print-directory release >&2
	@scripts/run.sh $(RELEASE_BIN)

## make test: the API reference rendered, then every tier against a real gnome-keyring in a
## private D-Bus session (with the API reference's tests), then the keyring tiers (the store,
## end to end, reliability, the library) against each of $(PROVIDERS), then the Ansible
## collection (scripts/test-ansible.sh), the API check, the package check on Debian 12 and 13
## (make dist builds both architectures), the arm64 binary and package under qemu-user (make
## arm64-check), the build by Debian 13's Swift with the unit tests (make debian13) and the
## Debian source package (make debian-source).
PROVIDERS ?= kwallet keepassxc
PROVIDER_SUITES = SecretServiceStoreTests|EndToEndTests|ReliabilityTests|CollectionTests|LibraryKeyringTests
test:
	@scripts/install-deps.sh test
	@# The Debian 13 root, the arm64 sysroot and the Debian source package's build and test
	@# roots (mmdebstrap: downloads and unpacking) are made in the background while Swift
	@# compiles; the test tiers wait for them, so that no timed test shares the machine with them.
	@mkdir -p .build && { flock .build/debian13-prepare.lock sh -c \
		'scripts/cross-arm64.sh prepare && scripts/debian-source.sh prepare' >.build/debian13-prepare.log 2>&1 & }
	$(SWIFT) build --build-tests
	@# SwiftPM 6.3 keeps the build plan of a path dependency (debug.yaml) when files are added
	@# to it, and then compiles this package's sources from the old list: plan afresh.
	rm -f .build/example/debug.yaml
	$(SWIFT) build --package-path examples/swift-package --scratch-path $(CURDIR)/.build/example
	$(MAKE) --no-print-directory release
	$(MAKE) --no-print-directory bench-floors
	SWIFT=$(SWIFT) scripts/api-docs.sh $(API_DOCS)
	@flock .build/debian13-prepare.lock true; sed -n 's/^making /made /p' .build/debian13-prepare.log 2>/dev/null || true
	KEYID_BIN=$(CURDIR)/$(DEBUG_BIN) KEYID_RELEASE_BIN=$(CURDIR)/$(RELEASE_BIN) KEYID_EXAMPLE_BIN=$(EXAMPLE_BIN) \
		KEYID_API_DOCS=$(CURDIR)/$(API_DOCS)/site KEYID_SWIFT=$(SWIFT) KEYID_BENCH_FLOORS=$(CURDIR)/.build \
		Tests/Harness/keyring-session.sh --provider gnome-keyring -- $(SWIFT) test --skip-build
	@for provider in $(PROVIDERS); do \
		echo "== the keyring tests against $$provider"; \
		KEYID_BIN=$(CURDIR)/$(DEBUG_BIN) KEYID_RELEASE_BIN=$(CURDIR)/$(RELEASE_BIN) \
			Tests/Harness/keyring-session.sh --provider $$provider -- \
			$(SWIFT) test --skip-build --filter '$(PROVIDER_SUITES)' || exit 1; \
	done
	@echo "== the Ansible collection keyid.core: ansible-test sanity, units and integration (gnome-keyring, the file backend, a locked keyring)"
	KEYID_BIN=$(CURDIR)/$(DEBUG_BIN) scripts/test-ansible.sh
	@echo "== KeyIDKit's public API against the previous release"
	@$(MAKE) --no-print-directory api-check
	@echo "== the package and the tarball on fresh Debian 12 and 13 roots"
	@$(MAKE) --no-print-directory package-check
	@echo "== the arm64 keyid and its package under qemu-user against Debian 13's gnome-keyring"
	@$(MAKE) --no-print-directory arm64-check
	@echo "== keyid and its tests built by Debian 13's Swift, and the unit tests run there"
	@$(MAKE) --no-print-directory debian13
	@echo "== the Debian source package: built twice by Debian 13's Swift, lintian, autopkgtest, upgrades"
	@$(MAKE) --no-print-directory debian-source

## make check: the fast loop, the unit and in-process command tests (KeyIDKitTests): no
## packages to install, no keyring, well under a minute after the build.
check:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter 'KeyIDKitTests\.'

## make bench: keyid against secret-tool and C floors on sd-bus, on libsecret, and on libsecret
## with a connection of its own, that last one also in a Swift executable linked like keyid's
## (the Swift floor), and Python keyring, when pip can install it; then KeyIDKit's gets in
## process against Python SecretStorage's; then make bench-phases's counts and check.
BENCH_ARGS ?=
# The loop is built with the release binary's flags, the product aside: with flags of its own,
# SwiftPM would compile KeyIDKit again for the loop and again for keyid on every run.
BENCH_LOOP_FLAGS = $(patsubst keyid,keyid-bench-loop,$(RELEASE_FLAGS))
BENCH_FLOOR = .build/bench-floor
BENCH_LIBSECRET_FLOOR = .build/bench-libsecret-floor
BENCH_OWN_FLOOR = .build/bench-own-connection-floor
BENCH_SWIFT_FLOOR = .build/bench-swift-floor
bench:
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory release >&2
	$(SWIFT) build $(BENCH_LOOP_FLAGS) >&2
	@$(MAKE) --no-print-directory bench-floors >&2
	@venv=$$(bench/python-keyring.sh $(CURDIR)/.build/bench-venv) || echo "bench: Python keyring not available; its columns are left out" >&2; \
	Tests/Harness/keyring-session.sh -- /usr/bin/python3 bench/bench.py $(CURDIR)/$(RELEASE_BIN) \
		--floor $(CURDIR)/$(BENCH_FLOOR) --libsecret-floor $(CURDIR)/$(BENCH_LIBSECRET_FLOOR) \
		--own-connection-floor $(CURDIR)/$(BENCH_OWN_FLOOR) --swift-floor $(CURDIR)/$(BENCH_SWIFT_FLOOR) \
		--library-loop $(CURDIR)/.build/release/keyid-bench-loop \
		$${venv:+--python-keyring $$venv} $(BENCH_ARGS)
	$(BENCH_PHASES)

## make bench-phases: the instructions of a get by phase (start-up, parsing, settings, connecting,
## each round trip, the clone check, output, exit) for keyid and the floors, and of keyid --version,
## --help and a usage error, under valgrind's callgrind (bench/phases.py); fails when one of keyid's
## counts is more than 5% above bench/phases.json's. RECORD=1 writes that file again (medians of 5 runs).
BENCH_PHASES = Tests/Harness/keyring-session.sh -- /usr/bin/python3 bench/phases.py $(CURDIR)/$(RELEASE_BIN) \
	--swift-floor $(CURDIR)/$(BENCH_SWIFT_FLOOR) --own-connection-floor $(CURDIR)/$(BENCH_OWN_FLOOR) \
	--libsecret-floor $(CURDIR)/$(BENCH_LIBSECRET_FLOOR) $(if $(RECORD),--record --runs 5)
bench-phases:
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory release >&2
	@$(MAKE) --no-print-directory bench-floors >&2
	$(BENCH_PHASES)

## bench-floors: the C floors and the Swift floor `make bench` compares keyid with (after
## `make release`, which makes the static libstdc++ link folder the Swift floor links from).
# The own-connection floors link keyid's C target, compiled here by cc into $(BENCH_C_TARGET).
BENCH_C_TARGET = .build/bench-csecretconnection
bench-floors:
	cc -O2 -Wall -Werror bench/floor.c $$(pkg-config --cflags --libs libsystemd) -o $(BENCH_FLOOR)
	cc -O2 -Wall -Werror bench/libsecret-floor.c $$(pkg-config --cflags --libs libsecret-1) -o $(BENCH_LIBSECRET_FLOOR)
	rm -rf $(BENCH_C_TARGET) && mkdir -p $(BENCH_C_TARGET)
	cd $(BENCH_C_TARGET) && cc -O2 -Wall -Wextra -Werror -c -I$(CURDIR)/Sources/CSecretConnection/include \
		$$(pkg-config --cflags libsecret-1) $(CURDIR)/Sources/CSecretConnection/*.c
	cc -O2 -Wall -Werror -ISources/CSecretConnection/include bench/own-connection-floor.c $(BENCH_C_TARGET)/*.o \
		$$(pkg-config --cflags --libs libsecret-1) -o $(BENCH_OWN_FLOOR)
	cc -O2 -Wall -Werror -c -Dmain=own_floor_main -ISources/CSecretConnection/include $$(pkg-config --cflags libsecret-1) \
		bench/own-connection-floor.c -o .build/bench-own-floor.o
	$(SWIFTC) -O $(CONCRETE_METADATA_FLAG) -static-stdlib -use-ld=lld -Xclang-linker -static-libgcc -L.build/static-libstdcxx \
		-Xlinker -z -Xlinker pack-relative-relocs bench/swift-floor.swift .build/bench-own-floor.o $(BENCH_C_TARGET)/*.o \
		$$(pkg-config --libs libsecret-1) -o $(BENCH_SWIFT_FLOOR)

## make order: record bench/startup.order again (after changes to what a run executes), then
## relink the release binary with it.
order:
	@scripts/install-deps.sh order
	@$(MAKE) --no-print-directory release >&2
	Tests/Harness/keyring-session.sh -- /usr/bin/python3 bench/startup-order.py $(CURDIR)/$(RELEASE_BIN) $(STARTUP_ORDER)
	@$(MAKE) --no-print-directory release >&2

## make stress: the reliability suite and the file store tests with ten times the counts
## (STRESS=N to change).
STRESS ?= 10
stress:
	@scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	KEYID_STRESS=$(STRESS) KEYID_BIN=$(CURDIR)/$(DEBUG_BIN) \
		Tests/Harness/keyring-session.sh -- $(SWIFT) test --skip-build --filter 'ReliabilityTests|FileStoreTests'

## make soak: KeyIDKit in a program that runs for months, at full size: SOAK (10,000) DeviceIDs
## instances made, used and dropped in one process, and one instance through SOAK_RESTARTS (100)
## restarts of the bus and the provider, whose descriptors, threads and resident memory must end
## as after the first hundred, or the first call (SoakTests; make test runs 400 and 10).
SOAK ?= 10000
SOAK_RESTARTS ?= 100
soak:
	@scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	KEYID_SOAK=$(SOAK) KEYID_SOAK_RESTARTS=$(SOAK_RESTARTS) KEYID_BIN=$(CURDIR)/$(DEBUG_BIN) \
		Tests/Harness/keyring-session.sh -- $(SWIFT) test --skip-build --filter 'SoakTests'

## make faults: every fault at every step (Tests/Harness/faults/faults.py): each operation that
## touches the keyring, by keyid and by KeyIDKit (keyid-library-probe), run once without a fault
## to count the calls it sends to the provider, then with each fault struck at each of those
## calls (the provider exits before acting, after acting or after replying, alone or with an empty
## or a sharing successor queued for its name; stalls; drops the bus), the contract's invariants
## checked after every run (doc/RELIABILITY.md). make test runs a sample of it (FaultTests).
FAULT_JOBS ?= 2
faults:
	@scripts/install-deps.sh test
	$(SWIFT) build
	/usr/bin/python3 Tests/Harness/faults/faults.py --keyid $(CURDIR)/$(DEBUG_BIN) \
		--probe $(CURDIR)/.build/debug/keyid-library-probe --jobs $(FAULT_JOBS)

## make fuzz: build the libFuzzer targets in Tests/Fuzz with -sanitize=fuzzer,address and run
## each for FUZZ_SECONDS (FUZZ_TARGETS to choose some; Tests/Fuzz/fuzz.sh).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz:
	@scripts/install-deps.sh build
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) Tests/Fuzz/fuzz.sh $(FUZZ_TARGETS)

## make sanitize: build keyid and its tests with AddressSanitizer, then ThreadSanitizer
## (SANITIZERS to choose), each into its own .build directory, and run every test tier in a
## private gnome-keyring session, the end-to-end tier against that build's keyid; fails on a
## failed test or any sanitizer report (Tests/Harness/sanitize.sh).
SANITIZERS ?= address thread
sanitize:
	@scripts/install-deps.sh sanitize
	SWIFT=$(SWIFT) Tests/Harness/sanitize.sh $(SANITIZERS)

## make lint: the Swift by swift-format (.swift-format), the C by clang-format (.clang-format; Debian
## 12's clang-format 14, whose layout other versions may not keep). make format rewrites both.
C_SOURCES = $(shell find Sources bench Tests -name '*.[ch]' -not -path '*/.build/*' | sort)
lint:
	@scripts/install-deps.sh lint
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests
	clang-format --dry-run --Werror $(C_SOURCES)

format:
	@scripts/install-deps.sh lint
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests
	clang-format -i $(C_SOURCES)

## make docs: regenerate the manual page, the completions and the guide's tables of options and
## variables from the command table.
docs:
	$(SWIFT) run keyid-docs $(CURDIR)

## make api-docs: KeyIDKit's API reference, a static site in .build/api-docs/site rendered by the
## toolchain's docc from the module's symbol graph and Sources/KeyIDKit/KeyIDKit.docc, warnings
## as errors (scripts/api-docs.sh). Serve it to read it: python3 -m http.server -d .build/api-docs/site
API_DOCS = .build/api-docs
api-docs:
	@scripts/install-deps.sh build
	SWIFT=$(SWIFT) scripts/api-docs.sh $(API_DOCS)

## make api-check: KeyIDKit's public API against the previous release's (packaging/previous-release),
## with swift package diagnose-api-breaking-changes: a removed or changed public declaration fails
## unless the major version went up; then the check is shown to fail on such a change
## (scripts/api-check.py).
api-check:
	@scripts/install-deps.sh build
	SWIFT=$(SWIFT) python3 scripts/api-check.py
	SWIFT=$(SWIFT) python3 scripts/api-check.py --self-test

install: release install-files

## install-files: install what is already built (the release binary, manual page, completions).
install-files:
	install -d $(BINDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	install -m 0755 $(RELEASE_BIN) $(BINDIR)/keyid
	install -m 0644 doc/keyid.1 $(MANDIR)/keyid.1
	install -m 0644 completions/keyid.bash $(BASHDIR)/keyid
	install -m 0644 completions/_keyid $(ZSHDIR)/_keyid
	install -m 0644 completions/keyid.fish $(FISHDIR)/keyid.fish

uninstall:
	rm -f $(BINDIR)/keyid $(MANDIR)/keyid.1 $(BASHDIR)/keyid $(ZSHDIR)/_keyid $(FISHDIR)/keyid.fish

## make deb: .build/dist/keyid_VERSION-REVISION_amd64.deb from the release binary
## (scripts/package.sh; the version is the one in Sources/KeyIDKit, DEB_REVISION the Debian revision).
DEB_REVISION ?= 1
PACKAGE = DEB_REVISION=$(DEB_REVISION) KEYID_RELEASE_BIN=$(RELEASE_BIN) scripts/package.sh
deb: release
	@scripts/install-deps.sh package
	@$(PACKAGE) deb

## make dist: the .deb, .build/dist/keyid-VERSION-x86_64-linux-gnu.tar.gz, the Ansible collection
## .build/dist/keyid-core-VERSION.tar.gz (ansible-galaxy collection build), the source release
## .build/dist/keyid-VERSION.tar.gz (git archive of the commit, debian/ left out: the Debian source
## package's orig tarball) with its signature keyid-VERSION.tar.gz.asc by RELEASE_KEY (a key in
## gpg's keyring; without one, a key made for the run), the arm64 .deb and
## .build/dist/keyid-VERSION-aarch64-linux-gnu.tar.gz (from make arm64), and SHA256SUMS.
RELEASE_KEY ?=
dist: release arm64
	@scripts/install-deps.sh package
	@RELEASE_KEY="$(RELEASE_KEY)" $(PACKAGE) dist
	@KEYID_ARCH=arm64 DEB_REVISION=$(DEB_REVISION) scripts/package.sh dist

## make arm64: keyid for aarch64 in .build/arm64/keyid, cross-compiled in a Debian 13 root by
## Debian's swiftlang 6.0.3 with an arm64 sysroot and Swift runtime of Debian's packages, both
## made by mmdebstrap and cached in .build/debian13 (scripts/cross-arm64.sh, as root).
## It is a file target, built again only when what it is built from changed (its sources, the
## start-up order, the scripts that build it): make dist and make arm64-check, both in make
## test, build it once (a build with nothing to do took 12 s more).
ARM64_BIN = .build/arm64/keyid
ARM64_INPUTS = Package.swift $(STARTUP_ORDER) scripts/cross-arm64.sh scripts/debian13-root.sh scripts/apt-sources.sh \
	$(shell find Sources -type f)
arm64: $(ARM64_BIN)
$(ARM64_BIN): $(ARM64_INPUTS)
	@scripts/install-deps.sh package
	scripts/cross-arm64.sh build

## make arm64-check: the aarch64 keyid (make arm64) run by qemu-user, started by name with the
## arm64 sysroot, in the Debian 13 root against gnome-keyring 48; its .deb (make dist's, or made
## again when it holds another binary) installed there with dpkg, its Depends met by Debian 13's
## arm64 libraries, used under qemu and purged; and the README's glibc floor for ARM64 read from
## the binary (scripts/test-arm64.sh, as root).
ARM64_DEB = .build/dist/keyid_$(shell scripts/version.sh)-$(DEB_REVISION)_arm64.deb
arm64-check: arm64
	@dpkg-deb --fsys-tarfile $(ARM64_DEB) 2>/dev/null | tar -xO ./usr/bin/keyid 2>/dev/null | cmp -s - $(ARM64_BIN) || \
		KEYID_ARCH=arm64 DEB_REVISION=$(DEB_REVISION) scripts/package.sh deb >/dev/null
	DEB_REVISION=$(DEB_REVISION) scripts/test-arm64.sh

## make debian13: keyid and its tests built by Debian 13's own Swift (swiftlang 6.0.3) in a
## Debian 13 root made by mmdebstrap (cached in .build/debian13), a warning failing the build,
## and the unit and in-process command tests run there (scripts/debian13-test.sh, as root).
debian13:
	@scripts/install-deps.sh package
	scripts/debian13-test.sh

## make debian13-keyring: make debian13, then the keyring suites make test runs against each
## provider, in that root through libsecret 0.21.7: against Debian 13's gnome-keyring 48, then
## against each of $(PROVIDERS) as Debian 13 ships them, KWallet 6 (kwalletd6) and KeePassXC
## 2.7.10 (70 tests each, 210 in all; 7 to 11 minutes more on two busy cores: gnome-keyring and
## KWallet about 2 each, KeePassXC 3 to 5.5). KWallet and KeePassXC come from a layer of their
## own over the root (135 packages, 410 MB: Qt and KDE Frameworks), installed by apt-get in
## about 75 s when missing and cached beside it; make debian13 never makes it
## (scripts/debian13-test.sh --keyring). Not part of make test, for its time.
debian13-keyring:
	@scripts/install-deps.sh package
	scripts/debian13-test.sh --keyring '$(PROVIDER_SUITES)' '$(PROVIDERS)'

## make debian-source: the Debian source package in debian/, made from the source release tarball
## and built by Debian 13's own Swift with dpkg-buildpackage, in a Debian 13 root of only
## build-essential and the Build-Depends, as a user without a home, without a network; built
## again (nocheck, another user and host) and compared byte for byte; nostrip and parallel=N
## checked; the binary's hardening and its -dbgsym package; Debian 13's lintian --pedantic; the
## autopkgtests (debian/tests) against the .deb; and the upgrade from the previous release and
## from make deb's package to it and back, in a fresh Debian 13 root (scripts/debian-source.sh,
## as root; its roots cached in .build/debian-source, what it built in .build/debian-source/out).
debian-source: deb
	@scripts/install-deps.sh package
	DEB_REVISION=$(DEB_REVISION) scripts/debian-source.sh

## make apt-repo: a signed apt repository in .build/apt-repo of the previous release's .deb and
## this one (scripts/apt-repo.sh: apt-ftparchive and gpg), signed with APT_REPO_KEY, a key in
## gpg's keyring (GNUPGHOME for another).
APT_REPO_KEY ?=
apt-repo: dist
	previous=$$(DEB_REVISION=$(DEB_REVISION) scripts/previous-deb.sh) && \
		APT_REPO_KEY="$(APT_REPO_KEY)" scripts/apt-repo.sh .build/apt-repo "$$previous" \
		.build/dist/keyid_$$(scripts/version.sh)-$(DEB_REVISION)_amd64.deb \
		.build/dist/keyid_$$(scripts/version.sh)-$(DEB_REVISION)_arm64.deb

## make package-check: lintian and the artifacts, then the amd64 package and the tarball on a
## fresh minimal root of each of PACKAGE_SUITES (Debian 12 and 13), made by mmdebstrap from
## this machine's apt sources and cached in .build/package-check/SUITE (scripts/check-package.sh);
## then the apt repository, and upgrades from the previous release, a purge and a downgrade, on
## another fresh copy of each root (scripts/check-upgrade.sh). The releases are checked at once,
## each in its own root, and each line says which release it ran on. The previous release's .deb is built from its commit (scripts/previous-deb.sh, kept
## in .build/previous-release). (The arm64 package is installed and used by make arm64-check.)
PACKAGE_SUITES ?= bookworm trixie
package-check: dist
	@DEB_REVISION=$(DEB_REVISION) scripts/previous-deb.sh >/dev/null
	DEB_REVISION=$(DEB_REVISION) scripts/check-package.sh $(PACKAGE_SUITES)
	DEB_REVISION=$(DEB_REVISION) scripts/check-upgrade.sh $(PACKAGE_SUITES)

## make repro-check: build the package from two clean clones of HEAD and compare them.
repro-check:
	@scripts/install-deps.sh package
	DEB_REVISION=$(DEB_REVISION) scripts/check-reproducible.sh

clean:
	rm -rf .build
