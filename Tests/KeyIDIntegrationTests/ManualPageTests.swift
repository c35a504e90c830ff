import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The manual page as `man` formats it.
@Suite("Manual page", .tags(.tools))
struct ManualPageTests {
    @Test("groff formats the manual page without a warning")
    func groffIsQuiet() throws {
        let groff = try #require(
            ShellProcess.executable("groff"), "groff is not installed; 'make test' installs groff-base")
        let result = try ShellProcess.run(groff, ["-man", "-ww", "-z", "doc/keyid.1"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty, "groff: \(result.stderr)")
    }
}
