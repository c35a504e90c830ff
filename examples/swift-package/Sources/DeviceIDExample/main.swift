import KeyIDKit

#if canImport(Glibc)
    import Glibc
#endif

// Prints the device ID stored for SERVICE and ACCOUNT (keyid's own by default), creating it
// when none is stored and --create is given. Exits with keyid's status for the outcome.
//
//   DeviceIDExample [--create] [SERVICE [ACCOUNT]]
var arguments = Array(CommandLine.arguments.dropFirst())
let create = arguments.first == "--create"
if create { arguments.removeFirst() }
let service = arguments.count > 0 ? arguments[0] : "keyid"
let account = arguments.count > 1 ? arguments[1] : "device-id"

do {
    let ids = try DeviceIDs()
    let id =
        create
        ? try ids.getOrCreate(service: service, account: account)
        : try ids.get(service: service, account: account)
    print(id.uuidString)
} catch {
    // KeyIDError: one case per outcome, each with a message and keyid's exit status.
    let line = "DeviceIDExample: \(error.message)\n"
    _ = write(2, line, line.utf8.count)
    exit(error.exitCode)
}
