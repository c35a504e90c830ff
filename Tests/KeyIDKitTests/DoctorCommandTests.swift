import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("keyid doctor over the in-memory store", .tags(.command))
struct DoctorCommandTests {
    @Test("doctor over the memory store: exit 0 when keyid would work, the failing check's status otherwise")
    func doctor() {
        var keyid = InProcess()
        keyid.environment = ["XDG_RUNTIME_DIR": FileManager.default.temporaryDirectory.path]
        let healthy = keyid.run("doctor")
        #expect(healthy.status == 0, "\(healthy.stdout)")
        #expect(healthy.stdout.contains("machine ID"))
        keyid.store.failure = .unavailable(.noProvider)
        let broken = keyid.run("doctor")
        #expect(broken.status == 5)
        #expect(broken.stdout.contains("FAIL"))
    }
}
