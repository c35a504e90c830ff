// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "keyid",
    products: [
        .executable(name: "keyid", targets: ["keyid"])
    ],
    targets: [
        .systemLibrary(
            name: "CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),
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
