import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The built binary reads only the variables of the subcommand it runs: defaults a provisioning
/// script exports for one subcommand do not break another.
@Suite("Variables per subcommand", .tags(.endToEnd), .enabled(if: TestEnvironment.canRunBinary))
struct EnvironmentScopeTests {
    @Test("KEYID_ON_CLONE=x keyid delete --force succeeds; keyid get with it is exit 2 naming it")
    func onCloneForDelete() throws {
        let service = TestEnvironment.uniqueService()
        #expect(try keyid(["create", "--service", service]).status == 0)
        let get = try keyid(["get", "--service", service], environment: ["KEYID_ON_CLONE": "x"])
        #expect(get.status == 2)
        #expect(get.stderr == "keyid: KEYID_ON_CLONE is 'x': expected warn, fail, rotate; see 'keyid get --help'\n")
        let delete = try keyid(["delete", "--force", "--service", service], environment: ["KEYID_ON_CLONE": "x"])
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(delete.stderr.isEmpty)
        #expect(try itemCount(service: service) == 0)
    }

    @Test("KEYID_SERVICE= keyid derive APP prints the ID; keyid get with it is exit 2 naming it")
    func emptyServiceForDerive() throws {
        let environment = ["KEYID_SERVICE": "", "KEYID_TIMEOUT": "never", "SECRET_BACKEND": "kwallet"]
        let derive = try keyid(["derive", "c273277323db454ea63bb96e79b53e97"], environment: environment)
        #expect(derive.status == 0, "\(derive.stderr)")
        #expect(DeviceID(derive.stdout.trimmingCharacters(in: .newlines)) != nil)
        let get = try keyid(["get"], environment: ["KEYID_SERVICE": ""])
        #expect(get.status == 2)
        #expect(get.stderr == "keyid: KEYID_SERVICE is empty; see 'keyid get --help'\n")
    }
}
