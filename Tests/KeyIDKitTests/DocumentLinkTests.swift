import Foundation
import Testing

@testable import KeyIDTestSupport

/// The Markdown documents link to files that exist and to headings they have, and the README
/// stays a front door.
@Suite("Document links", .tags(.files))
struct DocumentLinkTests {
    /// The Markdown documents of the repository, relative to its root.
    static let documents = [
        "README.md", "CONTRIBUTING.md", "CHANGELOG.md", "doc/GUIDE.md", "doc/RELEASING.md", "doc/ARCHITECTURE.md",
        "doc/COMPATIBILITY.md", "doc/RELIABILITY.md", "doc/PERFORMANCE.md", "ansible_collections/keyid/core/README.md",
    ]

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: TestEnvironment.root + "/" + path, encoding: .utf8)
    }

    /// The lines of `text` outside fenced code blocks.
    static func prose(_ text: String) -> [Substring] {
        var inCode = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.hasPrefix("```") {
                inCode.toggle()
                return false
            }
            return !inCode
        }
    }

    /// The anchors GitHub gives the headings of `text`: lowercase, punctuation dropped, spaces
    /// as hyphens, and `-1`, `-2` after a repeated one.
    static func anchors(_ text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in prose(text) where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let slug = String(
                title.compactMap { character -> Character? in
                    if character == " " { return "-" }
                    return character.isLetter || character.isNumber || character == "-" || character == "_"
                        ? character : nil
                })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// The targets of the relative links `[text](target)` in `text`'s prose.
    static func relativeLinks(_ text: String) -> [String] {
        prose(text).flatMap { line in
            line.matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
        }.filter { !$0.contains("://") && !$0.hasPrefix("mailto:") }
    }

    @Test("every relative link names a file that exists and, after '#', a heading of it", arguments: documents)
    func linksResolve(document: String) throws {
        let text = try Self.read(document)
        let folder = URL(fileURLWithPath: TestEnvironment.root + "/" + document).deletingLastPathComponent()
        for link in Self.relativeLinks(text) {
            let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let target =
                parts[0].isEmpty
                ? URL(fileURLWithPath: TestEnvironment.root + "/" + document)
                : folder.appendingPathComponent(parts[0]).standardizedFileURL
            #expect(FileManager.default.fileExists(atPath: target.path), "\(document) links to \(link): no such file")
            if parts.count == 2, target.pathExtension == "md",
                let linked = try? String(contentsOf: target, encoding: .utf8)
            {
                #expect(Self.anchors(linked).contains(parts[1]), "\(document) links to \(link): no such heading")
            }
        }
    }

    @Test("the check finds a link to a missing heading and a missing file")
    func checkCanFail() {
        let text = "# Title\n\n## Temporary keyrings and `--collection`\n\n```\n# not a heading\n```\n"
        #expect(Self.anchors(text) == ["title", "temporary-keyrings-and---collection"])
        #expect(Self.relativeLinks("[a](b.md#c) [d](https://e.org) [f](#g)") == ["b.md#c", "#g"])
    }

    @Test("the README is a front door: the set-up commands, the links to what moved behind it, at most 25 KB")
    func readmeIsAFrontDoor() throws {
        let readme = try Self.read("README.md")
        for needed in ["make run", "make test", "doc/GUIDE.md", "doc/RELEASING.md", "CONTRIBUTING.md"] {
            #expect(readme.contains(needed), "the README does not name \(needed)")
        }
        #expect(readme.utf8.count <= 25_000, "the README has \(readme.utf8.count) bytes")
    }
}
