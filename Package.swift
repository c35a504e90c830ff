// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "keyid",
    products: [
        .executable(name: "keyid", targets: ["keyid"])
    ],
    targets: [
        // libsecret's C surface, loaded at run time (see Sources/CLibSecret/shim.h);
        // tests/shim-check.c holds it to the installed libsecret-1-dev headers.
        .systemLibrary(name: "CLibSecret"),
        .target(
            name: "KeyIDKit",
            dependencies: ["CLibSecret"]
        ),
        .executableTarget(
            name: "keyid",
            dependencies: ["KeyIDKit"]
        ),
        .executableTarget(
            name: "keyid-docs",
            dependencies: ["KeyIDKit"]
        ),
        .testTarget(
            name: "KeyIDKitTests",
            dependencies: ["KeyIDKit"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
