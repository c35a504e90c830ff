import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The readers of `Exec` lines that the recipe tests rely on.
@Suite("Exec lines", .tags(.unit))
struct ExecLineTests {
    @Test(
        "desktop entry Exec values split as the Desktop Entry Specification says",
        arguments: [
            (#"sh -c "echo \\"\\$HOME\\" \\\\ 'x'" %U"#, ["sh", "-c", #"echo "$HOME" \ 'x'"#]),
            (#"a\sb "" 100%% %f"#, ["a", "b", "", "100%"]),
        ])
    func desktopEntry(line: String, argv: [String]) throws {
        #expect(try ExecLine.desktopEntry(line) == argv)
    }

    @Test(
        "desktop entry Exec values that break the specification are refused",
        arguments: [#"sh -c 'echo'"#, "echo $HOME", #"sh -c "echo $HOME""#, #"a"b c""#, #"sh "unclosed"#, "a %k"])
    func desktopEntryRefused(line: String) {
        #expect(throws: ExecLine.Unsupported.self) { try ExecLine.desktopEntry(line) }
    }

    @Test(
        "systemd ExecStart values split as systemd.service(5) says",
        arguments: [
            (#"/bin/sh -c 'a=$(b) && exec c "$a"'"#, ["/bin/sh", "-c", #"a=$(b) && exec c "$a""#]),
            (#"x"y z"w 'q"' \\ \' 100%% $$HOME"#, ["xy zw", "q\"", "\\", "'", "100%", "$HOME"]),
        ])
    func systemd(line: String, argv: [String]) throws {
        #expect(try ExecLine.systemd(line) == argv)
    }

    @Test(
        "systemd ExecStart values with what the reader does not implement are refused",
        arguments: ["-/bin/true", "echo %h", "echo ${HOME}", "echo $HOME", "a ; b", "echo 'open", #"echo "\n""#])
    func systemdRefused(line: String) {
        #expect(throws: ExecLine.Unsupported.self) { try ExecLine.systemd(line) }
    }
}
