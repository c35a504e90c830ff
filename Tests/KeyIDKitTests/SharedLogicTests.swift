import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// Logic the command and the library share, in one shape.
@Suite("Logic the command and the library share", .tags(.unit))
struct SharedLogicTests {
    @Test(
        "durations read as seconds the same way everywhere, in the form --timeout takes (never 1e-05)",
        arguments: [
            (Duration.seconds(30), "30"), (.milliseconds(2500), "2.5"), (.milliseconds(1), "0.001"),
            (.seconds(0.25), "0.25"), (.microseconds(10), "0.00001"), (.seconds(2_147_483), "2147483"),
        ])
    func secondsText(duration: Duration, text: String) {
        #expect(duration.secondsText == text)
    }

    @Test("the longest --timeout the command accepts is a timeout the library accepts, and one more second is not")
    func oneTimeoutRange() throws {
        let longest = Int(CommandTable.maximumTimeout)
        #expect(throws: Never.self) { try DeviceIDs(options: .init(timeout: .seconds(longest))) }
        #expect(throws: KeyIDError.self) { try DeviceIDs(options: .init(timeout: .seconds(longest + 1))) }
        #expect(throws: Never.self) { try ValueCheck.timeout(String(longest), .flag(.timeout)) }
        #expect(throws: KeyIDError.self) { try ValueCheck.timeout(String(longest + 1), .flag(.timeout)) }
    }
}
