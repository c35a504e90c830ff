import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The repository can be cloned onto any file system, and keeps its layers apart.
@Suite("Repository layout", .tags(.files))
struct RepositoryLayoutTests {
    /// The documents whose named paths and links are checked.
    static let documents = ["README.md", "CONTRIBUTING.md", "doc/GUIDE.md", "doc/RELEASING.md", "doc/ARCHITECTURE.md"]

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
        "Core imports nothing, Glibc is reached from System and the stores only, exactly one file imports the C modules, no Swift file over 600 lines"
    )
    func layers() throws {
        let sources = Self.paths().filter { $0.hasPrefix("Sources/") && $0.hasSuffix(".swift") }
        #expect(sources.count > 30)
        var importers: [String] = []
        var cImporters: [String] = []
        for path in sources {
            let text = try String(contentsOfFile: TestEnvironment.root + "/" + path, encoding: .utf8)
            let imports = text.split(separator: "\n").filter { $0.contains("import ") && !$0.hasPrefix("//") }
            if path.hasPrefix("Sources/KeyIDKit/") {
                if imports.contains(where: { $0.hasSuffix("import Glibc") }) { importers.append(path) }
                #expect(!imports.contains { $0.contains("import Foundation") }, "\(path) imports Foundation")
            }
            for module in Self.cModules where imports.contains(where: { $0.hasSuffix("import " + module) }) {
                cImporters.append(path)
                #expect(
                    imports.contains("internal import " + module), "\(path) imports \(module) other than internally")
            }
            if path.hasPrefix("Sources/KeyIDKit/Core/") {
                #expect(imports.isEmpty, "\(path) imports \(imports)")
            }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 601, "\(path) has \(lines) lines")
        }
        #expect(Set(cImporters) == ["Sources/KeyIDKit/Stores/SecretService/LibSecretConnection.swift"], "\(cImporters)")
        let allowed = [
            "Sources/KeyIDKit/System/", "Sources/KeyIDKit/Stores/SecretService/LibSecretConnection",
            "Sources/KeyIDKit/Stores/File/",
        ]
        #expect(!importers.isEmpty)
        for path in importers {
            #expect(allowed.contains { path.hasPrefix($0) }, "\(path) imports Glibc")
        }
        let modules = try FileManager.default.contentsOfDirectory(atPath: TestEnvironment.root + "/Sources")
        #expect(Set(modules) == Set(Self.cModules + ["KeyIDKit", "keyid", "KeyIDDocs", "keyid-docs"]), "\(modules)")
        // The system-library target: a module map and a header over libsecret's own headers, no code.
        let module = try FileManager.default.contentsOfDirectory(atPath: TestEnvironment.root + "/Sources/CLibSecret")
        #expect(Set(module) == ["module.modulemap", "shim.h"])
        let header = try String(contentsOfFile: TestEnvironment.root + "/Sources/CLibSecret/shim.h", encoding: .utf8)
        #expect(header.contains("#include <libsecret/secret.h>") && !header.contains("dlopen"))
        #expect(!header.contains("(") && !header.contains("static"), "shim.h holds code")
        // The C target: its header and module map, and C files that make their warnings errors.
        let target = Self.paths().filter { $0.hasPrefix("Sources/CSecretConnection/") }
        #expect(
            Set(target) == [
                "Sources/CSecretConnection/include", "Sources/CSecretConnection/include/CSecretConnection.h",
                "Sources/CSecretConnection/include/module.modulemap", "Sources/CSecretConnection/strict.h",
                "Sources/CSecretConnection/service.c", "Sources/CSecretConnection/connection.c",
                "Sources/CSecretConnection/context.c",
            ], "\(target)")
        for path in target where path.hasSuffix(".c") {
            let text = try String(contentsOfFile: TestEnvironment.root + "/" + path, encoding: .utf8)
            #expect(text.contains("\n#include \"strict.h\"\n"), "\(path) does not include strict.h")
            #expect(!text.contains("dlopen"), "\(path) calls dlopen")
        }
    }

    /// The C modules KeyIDKit imports: the system-library target and the C target.
    static let cModules = ["CLibSecret", "CSecretConnection"]

    @Test(
        "a -Wall or -Wextra warning in the C target's own code is an error wherever warnings are on (strict.h)",
        .enabled(if: ShellProcess.executable("clang") != nil)
    )
    func cWarningsAreErrors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-strict-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bodies = [
            "clean": "int probe(int used) { return used; }", "all": "int probe(void) { int unused; return 0; }",
            "extra": "int probe(int unused) { return 0; }",
        ]
        for (name, body) in bodies {
            let file = folder.appendingPathComponent(name + ".c").path
            try ("#include \"strict.h\"\n" + body + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let outcome = try ShellProcess.run(
                ShellProcess.executable("clang")!,
                ["-fsyntax-only", "-I" + TestEnvironment.root + "/Sources/CSecretConnection", file])
            if name == "clean" {
                #expect(outcome.status == 0, "\(outcome.stderr)")
            } else {
                #expect(outcome.status != 0 && outcome.stderr.contains("error: unused"), "\(name): \(outcome.stderr)")
            }
        }
    }

    /// The lines of code (not comments) of the Swift files under `folder`, by file.
    static func codeLines(under folder: String) throws -> [(path: String, line: String)] {
        try paths().filter { $0.hasPrefix(folder) && $0.hasSuffix(".swift") }.sorted().flatMap { path in
            try String(contentsOfFile: TestEnvironment.root + "/" + path, encoding: .utf8).split(separator: "\n")
                .map { (path, $0.trimmingCharacters(in: .whitespaces)) }.filter { !$0.1.hasPrefix("//") }
        }
    }

    @Test("Core, the library, the stores and System speak the library's terms: no keyid subcommand, option or variable")
    func noCommandLineWordingInCoreOrLibrary() throws {
        let words =
            Subcommand.allCases.map { "keyid \($0.rawValue)" } + ["'keyid "] + Option.allCases.map(\.flag)
            + KeyIDVariable.allCases.map(\.rawValue)
        for folder in [
            "Sources/KeyIDKit/Core/", "Sources/KeyIDKit/Library/", "Sources/KeyIDKit/Stores/",
            "Sources/KeyIDKit/System/",
        ] {
            let lines = try Self.codeLines(under: folder)
            #expect(lines.count > 200)
            for (path, line) in lines {
                for word in words where line.contains(word) {
                    Issue.record("\(path) says '\(word)': \(line)")
                }
            }
        }
    }

    @Test("System asks no store anything: its code names no store type")
    func systemNamesNoStore() throws {
        let stores = Self.paths().filter { $0.hasPrefix("Sources/KeyIDKit/Stores/") && $0.hasSuffix(".swift") }
        let types = Set(stores.map { $0.split(separator: "/").last!.split(separator: ".")[0].split(separator: "+")[0] })
        #expect(types.contains("FileStore") && types.contains("SecretServiceStore"))
        let lines = try Self.codeLines(under: "Sources/KeyIDKit/System/")
        #expect(lines.count > 200)
        for (path, line) in lines {
            let words = line.split { !$0.isLetter && !$0.isNumber && $0 != "_" }
            for word in words where types.contains(word) {
                Issue.record("\(path) names the store type \(word): \(line)")
            }
        }
    }

    /// The top-level types a Swift file declares, each with the text of its declaration up to the
    /// next top-level declaration, and the types the file extends.
    static func topLevel(_ text: String) -> (declared: [(name: String, body: String)], extended: [String]) {
        let declaration =
            /^(?:@\w+ )*(?:(?:public|package|private|fileprivate|internal) )?(?:final |indirect )?(?:enum|struct|class|protocol|actor) ([A-Za-z0-9_]+)/
        let extensionLine = /^(?:(?:public|package|private|fileprivate|internal) )?extension ([A-Za-z0-9_]+)/
        var declared: [(name: String, body: String)] = []
        var extended: [String] = []
        var current: Int?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let match = try? declaration.prefixMatch(in: String(line)) {
                declared.append((String(match.output.1), ""))
                current = declared.count - 1
            } else if let match = try? extensionLine.prefixMatch(in: String(line)) {
                extended.append(String(match.output.1))
                current = nil
            }
            if let current { declared[current].body += line + "\n" }
        }
        return (declared, extended)
    }

    /// Whether two type names belong to one family: a shared start or end of four letters or
    /// more (`LockFile` and `Locks`, `DBusCall` and `DBusValue`, `KeyIDCommand` and `KeyIDVersion`).
    static func sameFamily(_ one: String, _ other: String) -> Bool {
        let one = one.hasSuffix("s") ? String(one.dropLast()) : one
        let prefix = zip(one, other).prefix { $0 == $1 }.count
        let suffix = zip(one.reversed(), other.reversed()).prefix { $0 == $1 }.count
        return prefix >= 4 || suffix >= 4
    }

    @Test(
        "a Swift file does one job: it is named after a type it declares or extends, or after its types' family (`Locks.swift`), and each type it declares is tied to that one by use or by name"
    )
    func oneJobPerFile() throws {
        let sources = Self.paths().filter {
            ($0.hasPrefix("Sources/KeyIDKit/") || $0.hasPrefix("Sources/KeyIDDocs/")) && $0.hasSuffix(".swift")
        }
        #expect(sources.count > 20)
        for path in sources {
            let text = try String(contentsOfFile: TestEnvironment.root + "/" + path, encoding: .utf8)
            let (declared, extended) = Self.topLevel(text)
            let name = String(path.split(separator: "/").last!.dropLast(".swift".count))
            let subject = String(name.split(separator: "+")[0])
            let names = declared.map(\.name)
            #expect(
                names.contains(subject) || extended.contains(subject)
                    || names.contains { Self.sameFamily(subject, $0) },
                "\(path) declares \(names) and extends \(extended): none is \(subject) or of its family")
            // Grow the set of types tied to the subject: by name, by naming a tied type, or by being
            // named in the file outside their own declaration.
            func words(_ body: String) -> Set<String> {
                Set(body.split { !$0.isLetter && !$0.isNumber && $0 != "_" }.map(String.init))
            }
            var tied: Set<String> = [subject]
            var changed = true
            while changed {
                changed = false
                for (type, body) in declared where !tied.contains(type) {
                    let uses = words(body)
                    let usedElsewhere = words(
                        text.replacingOccurrences(of: body.trimmingCharacters(in: .newlines), with: "")
                    ).contains(type)
                    if Self.sameFamily(subject, type) || !uses.isDisjoint(with: tied) || usedElsewhere {
                        tied.insert(type)
                        changed = true
                    }
                }
            }
            for type in names where !tied.contains(type) {
                Issue.record("\(path) declares \(type), which neither \(subject) nor its family uses or is named like")
            }
        }
    }

    @Test("at most a handful of files under 30 lines, but for the entry points (main.swift, one file per subcommand)")
    func fewSmallFiles() throws {
        let sources = Self.paths().filter { $0.hasPrefix("Sources/") && $0.hasSuffix(".swift") }
        let small = try sources.filter { path in
            if path.hasSuffix("/main.swift") || path.hasPrefix("Sources/KeyIDKit/CLI/Commands/") { return false }
            let text = try String(contentsOfFile: TestEnvironment.root + "/" + path, encoding: .utf8)
            return text.split(separator: "\n", omittingEmptySubsequences: false).count < 30
        }
        #expect(small.count <= 5, "\(small.count) files under 30 lines: \(small.sorted())")
    }

    @Test("every path of the repository that the README, the guides and the code map name exists")
    func namedPathsExist() throws {
        var checked = 0
        for document in Self.documents {
            let text = try String(contentsOfFile: TestEnvironment.root + "/" + document, encoding: .utf8)
            let pattern =
                /`((?:Sources|Tests|scripts|doc|examples|bench|completions|packaging|ansible_collections|CLI|Core|Library|System|Stores)\/[^`\s]*)`/
            for match in text.matches(of: pattern) {
                var path = String(match.output.1)
                // The code map names KeyIDKit's folders by themselves (`CLI/Settings.swift`).
                if let folder = path.split(separator: "/").first,
                    ["CLI", "Core", "Library", "System", "Stores"].contains(String(folder))
                {
                    path = "Sources/KeyIDKit/" + path
                }
                // A pattern or a placeholder (`completions/*`, `Corpus/NAME`) names no one path.
                if path.contains("*") || path.split(separator: "/").last?.allSatisfy(\.isUppercase) == true { continue }
                checked += 1
                #expect(
                    FileManager.default.fileExists(atPath: TestEnvironment.root + "/" + path),
                    "\(document) names \(path)")
            }
        }
        #expect(checked > 20)
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
