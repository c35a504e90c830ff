import Foundation
import Testing

@testable import KeyIDDocs
@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The release's facts agree: the version written in one place, the changelog's newest release
/// and its date, the manual page's date, and the previous release the API check and the
/// upgrade check start from.
@Suite("Release facts", .tags(.files))
struct ReleaseTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: TestEnvironment.root + "/" + path, encoding: .utf8)
    }

    /// The changelog's release headings, `## [X.Y.Z] - YYYY-MM-DD`, newest first.
    static func releases() throws -> [(version: String, date: String)] {
        try read("CHANGELOG.md").split(separator: "\n").compactMap { line in
            guard line.hasPrefix("## ["), !line.hasPrefix("## [Unreleased]") else { return nil }
            let parts = line.dropFirst(4).split(separator: "]", maxSplits: 1)
            guard parts.count == 2, parts[1].hasPrefix(" - ") else { return nil }
            return (String(parts[0]), String(parts[1].dropFirst(3)))
        }
    }

    @Test("CHANGELOG.md keeps the Keep a Changelog form: an Unreleased section, then releases newest first")
    func changelogForm() throws {
        let text = try Self.read("CHANGELOG.md")
        #expect(text.hasPrefix("# Changelog\n"))
        let unreleased = try #require(text.range(of: "\n## [Unreleased]\n"))
        let firstRelease = try #require(text.range(of: "\n## [0"))
        #expect(unreleased.lowerBound < firstRelease.lowerBound)
        let releases = try Self.releases()
        #expect(releases.count >= 2)
        for (newer, older) in zip(releases, releases.dropFirst()) {
            #expect(
                newer.version.compare(older.version, options: .numeric) == .orderedDescending,
                "\(newer.version) is listed above \(older.version)")
            #expect(newer.date >= older.date)
        }
        for release in releases {
            #expect(release.date.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil, "\(release.version): \(release.date)")
        }
    }

    @Test("the newest release is the version keyid reports, and the manual page carries its date")
    func newestReleaseIsTheVersion() throws {
        let newest = try #require(try Self.releases().first)
        #expect(newest.version == KeyIDVersion.current)
        #expect(newest.date == ManPage.date)
    }

    @Test("the README, the guides and the API reference name the current version wherever they name one to install")
    func versionInDocs() throws {
        let pages = [
            "README.md", "doc/GUIDE.md", "doc/RELEASING.md", "CONTRIBUTING.md",
            "Sources/KeyIDKit/KeyIDKit.docc/GettingStarted.md",
        ]
        var found = 0
        for page in pages {
            let text = try Self.read(page)
            // keyid_X.Y.Z-1_amd64.deb, keyid-X.Y.Z-x86_64-linux-gnu, from: "X.Y.Z"
            for match in text.matches(of: /keyid[_-](\d+\.\d+\.\d+)[-_]|from: "(\d+\.\d+\.\d+)"/) {
                found += 1
                let version = String(match.output.1 ?? match.output.2 ?? "")
                #expect(version == KeyIDVersion.current, "\(page) names \(version)")
            }
        }
        #expect(found >= 5)
    }

    @Test("packaging/previous-release names the release below the newest, with a full commit")
    func previousRelease() throws {
        var fields: [String: String] = [:]
        for line in try Self.read("packaging/previous-release").split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        let releases = try Self.releases()
        #expect(releases.count >= 2)
        #expect(fields["version"] == releases.dropFirst().first?.version)
        #expect(fields["commit"]?.wholeMatch(of: /[0-9a-f]{40}/) != nil)
    }
}
