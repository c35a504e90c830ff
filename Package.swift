// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "keyid",
    products: [
        .executable(name: "keyid", targets: ["keyid"]),
        // The device-ID use cases for Swift programs; the keyid command is one client of it.
        .library(name: "KeyIDKit", targets: ["KeyIDKit"]),
    ],
    targets: [
        // libsecret, the Secret Service client keyid reaches the keyring through, with the
        // GLib, GObject and GIO it is built on; one file of KeyIDKit imports it.
        .systemLibrary(
            name: "CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // keyid's C over libsecret: a SecretService subclass, the connect and the close, the
        // prompt, main-context loops; the same file of KeyIDKit imports it. Its warnings are
        // errors through its strict.h: unsafeFlags here would keep programs from depending on a
        // tagged release of keyid.
        .target(
            name: "CSecretConnection",
            dependencies: ["CLibSecret"]
        ),
        .target(
            name: "KeyIDKit",
            dependencies: ["CLibSecret", "CSecretConnection"]
        ),
        .executableTarget(
            name: "keyid",
            dependencies: ["KeyIDKit"]
        ),
        // The manual page and completion renderers: only keyid-docs and the tests link them.
        .target(
            name: "KeyIDDocs",
            dependencies: ["KeyIDKit"]
        ),
        .executableTarget(
            name: "keyid-docs",
            dependencies: ["KeyIDDocs"]
        ),
        // A program using the library's public API in a process of its own, for the tests.
        .executableTarget(
            name: "keyid-library-probe",
            dependencies: ["KeyIDKit"],
            path: "Tests/LibraryProbe"
        ),
        // The benchmark's in-process loop: gets on one instance, timed one by one (`make bench`).
        .executableTarget(
            name: "keyid-bench-loop",
            dependencies: ["KeyIDKit"],
            path: "bench/LibraryLoop"
        ),
        // Test doubles and harnesses, shared by the test targets and never by the binary.
        .target(
            name: "KeyIDTestSupport",
            dependencies: ["KeyIDKit"],
            path: "Tests/KeyIDTestSupport"
        ),
        // Units and commands in process: no keyring, no packages (`make check`).
        .testTarget(
            name: "KeyIDKitTests",
            dependencies: ["KeyIDKit", "KeyIDDocs", "KeyIDTestSupport"]
        ),
        // Real keyrings, shells and the built binary (`make test`).
        .testTarget(
            name: "KeyIDIntegrationTests",
            dependencies: ["KeyIDKit", "KeyIDDocs", "KeyIDTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
