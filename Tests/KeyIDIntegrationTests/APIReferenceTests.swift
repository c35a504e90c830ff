import Foundation
import Testing

@testable import KeyIDTestSupport

/// KeyIDKit's DocC catalog: its code listings build against the library, and the site
/// `make api-docs` renders (KEYID_API_DOCS, which `make test` sets) shows `DeviceIDs` in a
/// real browser.
@Suite("The API reference", .tags(.tools))
struct APIReferenceTests {
    static let root = URL(fileURLWithPath: TestEnvironment.root)
    static let catalog = root.appendingPathComponent("Sources/KeyIDKit/KeyIDKit.docc")
    static var site: String? { ProcessInfo.processInfo.environment["KEYID_API_DOCS"] }

    /// The ```swift blocks of every page of the catalog, with the page's name.
    static func listings() throws -> [(page: String, code: String)] {
        let pages = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
        return try pages.sorted().flatMap { page in
            let text = try String(contentsOf: catalog.appendingPathComponent(page), encoding: .utf8)
            return text.components(separatedBy: "```swift\n").dropFirst().map {
                (page, String($0[..<$0.range(of: "\n```")!.lowerBound]))
            }
        }
    }

    @Test("the articles have their listings: a Package.swift and a program on every page")
    func articlesHaveListings() throws {
        let listings = try Self.listings()
        let pages = Set(listings.map(\.page))
        #expect(
            pages == ["KeyIDKit.md", "GettingStarted.md", "ThreadsAndProcesses.md", "ChoosingABackend.md"])
        #expect(listings.filter { $0.code.hasPrefix("// swift-tools-version") }.map(\.page) == ["GettingStarted.md"])
    }

    @Test("every listing builds: the Package.swift as the manifest, each program as a function of its own")
    func listingsBuild() throws {
        let listings = try Self.listings()
        let manifest = try #require(listings.first { $0.code.hasPrefix("// swift-tools-version") })
        let work = Self.root.appendingPathComponent(".build/doc-listings")
        let package = work.appendingPathComponent("App")
        let sources = package.appendingPathComponent("Sources/App")
        try? FileManager.default.removeItem(at: package)
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        // The manifest names the package at ../keyid, as a checkout beside the program's.
        let link = work.appendingPathComponent("keyid")
        try? FileManager.default.removeItem(at: link)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: Self.root)
        try manifest.code.write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "// The listings are built, not run.\n".write(
            to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        for (number, listing) in listings.filter({ !$0.code.hasPrefix("// swift-tools-version") }).enumerated() {
            let lines: [String] = listing.code.components(separatedBy: "\n")
            var file: [String] = ["// \(listing.page)"]
            file += lines.filter { $0.hasPrefix("import ") }
            file.append("func listing\(number)() throws {")
            file += lines.filter { !$0.hasPrefix("import ") }.map { "    " + $0 }
            file.append("}")
            try (file.joined(separator: "\n") + "\n").write(
                to: sources.appendingPathComponent("Listing\(number).swift"), atomically: true, encoding: .utf8)
        }
        let swift = ProcessInfo.processInfo.environment["KEYID_SWIFT"] ?? ShellProcess.executable("swift") ?? "swift"
        let built = try runProgram(
            swift,
            ["build", "--package-path", package.path, "--scratch-path", work.appendingPathComponent("build").path],
            timeout: 600)
        #expect(built.status == 0, "\(built.stdout)\(built.stderr)")
    }

    @Test(
        "headless Chromium renders the DeviceIDs page: its title, and every method the symbol graph has",
        .enabled(if: site != nil))
    func deviceIDsPageRenders() throws {
        let site = try #require(Self.site)
        let rendered = try runProgram(
            "/usr/bin/python3",
            [
                Self.root.appendingPathComponent("Tests/Harness/render-page.py").path, site,
                "/documentation/keyidkit/deviceids",
            ], timeout: 180)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        // The page's text as a person reads it: the tags (which split names into spans) out.
        let text = rendered.stdout.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&amp;", with: "&")
        let title = try #require(
            rendered.stdout.range(of: #"<h1[^>]*class="title"[^>]*>.*?</h1>"#, options: .regularExpression))
        #expect(
            rendered.stdout[title].replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
                .trimmingCharacters(in: .whitespacesAndNewlines) == "DeviceIDs")
        // The methods, by their names as the graph gives them (`getOrCreate(service:account:)`).
        let graphFile = URL(fileURLWithPath: site).deletingLastPathComponent()
            .appendingPathComponent("symbol-graphs/KeyIDKit.symbols.json")
        let graph = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: graphFile)) as? [String: Any])
        let methods = try #require(graph["symbols"] as? [[String: Any]]).compactMap { symbol -> String? in
            let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String
            let path = symbol["pathComponents"] as? [String] ?? []
            return kind == "swift.method" && path.count == 2 && path[0] == "DeviceIDs" ? path[1] : nil
        }
        #expect(methods.count >= 8, "\(methods)")
        for method in methods {
            // As the page shows it: `func getOrCreate(service: String, account: String)`.
            let name = String(method.prefix { $0 != "(" })
            #expect(text.contains("func \(name)("), "the page does not show \(method)")
        }
        #expect(text.contains("func getOrCreate(service: String, account: String)"))
    }
}
