// swift-tools-version:6.0
// A program that reads this machine's device ID with KeyIDKit, in process: the ID
// `keyid get --create` stored, from the same keyring item.
import PackageDescription

let package = Package(
    name: "DeviceIDExample",
    dependencies: [
        // In a project of your own: .package(path: "path/to/keyid") or the repository's URL.
        .package(name: "keyid", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "DeviceIDExample",
            dependencies: [.product(name: "KeyIDKit", package: "keyid")]
        )
    ],
    swiftLanguageModes: [.v6]
)
