import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The repository can be cloned onto any file system, and keeps its layers apart.
@Suite("Repository layout", .tags(.unit))
struct RepositoryLayoutTests {
    /// Every path under the repository's root, relative to it, but for build output and Git's own.
    static func paths() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: TestEnvironment.root)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path == ".build" || path == ".git" || path == ".swiftpm" {
                enumerator?.skipDescendants()
                continue
            }
            found.append(path)
        }
        return found
    }

    @Test("no two paths differ only by letter case (they would be one on macOS's default file system)")
    func noCaseCollisions() {
        let paths = Self.paths()
        #expect(paths.count > 50)
        var seen: [String: String] = [:]
        for path in paths {
            if let other = seen.updateValue(path, forKey: path.lowercased()) {
                Issue.record("'\(path)' and '\(other)' differ only by case")
            }
        }
    }

    @Test(
        "Core imports nothing, Glibc is reached from System and the stores only, exactly one file imports CLibSecret, no Swift file over 400 lines"
    )
    func layers() throws {
        let sources = Self.paths().filter { $0.hasPrefix("Sources/") && $0.hasSuffix(".swift") }
        #expect(sources.count > 30)
        var importers: [String] = []
        var libsecret: [String] = []
        for path in sources {
            let text = try String(contentsOfFile: TestEnvironment.root + "/" + path, encoding: .utf8)
            let imports = text.split(separator: "\n").filter { $0.contains("import ") && !$0.hasPrefix("//") }
            if path.hasPrefix("Sources/KeyIDKit/") {
                if imports.contains(where: { $0.hasSuffix("import Glibc") }) { importers.append(path) }
                #expect(!imports.contains { $0.contains("import Foundation") }, "\(path) imports Foundation")
            }
            if imports.contains(where: { $0.contains("import CLibSecret") }) {
                libsecret.append(path)
                #expect(
                    imports.contains("internal import CLibSecret"), "\(path) imports CLibSecret other than internally")
            }
            if path.hasPrefix("Sources/KeyIDKit/Core/") {
                #expect(imports.isEmpty, "\(path) imports \(imports)")
            }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 401, "\(path) has \(lines) lines")
        }
        #expect(libsecret == ["Sources/KeyIDKit/Stores/SecretService/LibSecretConnection.swift"], "\(libsecret)")
        let allowed = [
            "Sources/KeyIDKit/System/", "Sources/KeyIDKit/Stores/SecretService/LibSecretConnection",
            "Sources/KeyIDKit/Stores/File/",
        ]
        #expect(!importers.isEmpty)
        for path in importers {
            #expect(allowed.contains { path.hasPrefix($0) }, "\(path) imports Glibc")
        }
        let modules = try FileManager.default.contentsOfDirectory(atPath: TestEnvironment.root + "/Sources")
        #expect(
            Set(modules) == ["CLibSecret", "KeyIDKit", "keyid", "KeyIDDocs", "keyid-docs"], "another target: \(modules)"
        )
        // The system-library target: a module map and a header over libsecret's own headers.
        let module = try FileManager.default.contentsOfDirectory(atPath: TestEnvironment.root + "/Sources/CLibSecret")
        #expect(Set(module) == ["module.modulemap", "shim.h"])
        let header = try String(contentsOfFile: TestEnvironment.root + "/Sources/CLibSecret/shim.h", encoding: .utf8)
        #expect(header.contains("#include <libsecret/secret.h>") && !header.contains("dlopen"))
    }

    @Test("every public declaration of KeyIDKit (the library's API) has a doc comment; the rest is `package`")
    func publicSymbolsDocumented() throws {
        let sources = Self.paths().filter { $0.hasPrefix("Sources/KeyIDKit/") && $0.hasSuffix(".swift") }
        var publicCount = 0
        for path in sources {
            let lines = try String(contentsOfFile: TestEnvironment.root + "/" + path, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
            for (index, line) in lines.enumerated() {
                let declaration = line.replacing(/^(@\w+(\([^)]*\))?\s+)*/, with: "")
                guard declaration.hasPrefix("public "), !declaration.hasPrefix("public import ") else { continue }
                publicCount += 1
                var previous = index - 1
                while previous >= 0, lines[previous].hasPrefix("@") { previous -= 1 }
                #expect(
                    previous >= 0 && lines[previous].hasPrefix("///"),
                    "\(path):\(index + 1): '\(line)' has no doc comment")
            }
            if path.hasPrefix("Sources/KeyIDKit/CLI/") || path.hasPrefix("Sources/KeyIDKit/System/") {
                #expect(!lines.contains { $0.hasPrefix("public ") }, "\(path): the command line and System are not API")
            }
        }
        #expect(publicCount > 40)
    }
}
