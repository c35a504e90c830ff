import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// A Secret Service that stops answering: what keyid says, and what doctor had finished.
@Suite("A stalled Secret Service", .tags(.endToEnd), .enabled(if: TestEnvironment.canRunBinary))
struct StallTests {
    @Test("doctor prints the checks it finished; the timeout message fits a stall, not a prompt")
    func stalled() throws {
        let outcome = try inSession(
            "unlocked",
            """
            kill -STOP "$KEYID_TEST_DAEMON_PID"
            "$KEYID" doctor --timeout 1; echo "doctor=$?"
            "$KEYID" get --no-prompt --timeout 1 2>get.err; echo "get=$?"
            kill -CONT "$KEYID_TEST_DAEMON_PID"
            cat get.err >&2
            """)
        #expect(outcome.stdout.hasPrefix("ok      backend          secret-service\n"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("doctor=6\n"))
        #expect(outcome.stdout.contains("get=6\n"))
        let messages = outcome.stderr.split(separator: "\n")
        #expect(messages.count == 2, "\(outcome.stderr)")
        for message in messages {
            #expect(message.hasPrefix("keyid: timed out after 1 s: the Secret Service did not answer"))
            #expect(!message.contains("--no-prompt"))
        }
    }
}
