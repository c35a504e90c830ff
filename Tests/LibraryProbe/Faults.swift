import Glibc
import KeyIDKit

// Modes for buses and providers that misbehave:
//
//   keyid-library-probe connects N SERVICE ACCOUNT MILLISECONDS
//       one instance, N gets with that timeout; prints "first FDS THREADS RSS" after the first,
//       "after FDS THREADS RSS" after the last and "kinds KIND:COUNT,..." (as `forks` words
//       them); then waits up to 10 s for fewer descriptors than after the first (the bus went
//       away, and what the connect held was let go), and prints "end FDS THREADS RSS"

/// The `connects` mode (see the top of this file).
func connects(count: Int, service: String, account: String, milliseconds: Int) {
    guard let ids = try? DeviceIDs(options: .init(timeout: .milliseconds(milliseconds))) else { exit(1) }
    var kinds: [String: Int] = [:]
    var first = ""
    for index in 0..<count {
        let (word, _) = kind { () throws(KeyIDError) in _ = try ids.get(service: service, account: account) }
        kinds[word, default: 0] += 1
        if index == 0 {
            first = footprint()
            line("first " + first)
        }
    }
    line("after " + footprint())
    line("kinds " + kinds.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))
    let descriptors = first.split(separator: " ").first.flatMap { Int($0) } ?? 0
    for _ in 0..<100 where (footprint().split(separator: " ").first.flatMap { Int($0) } ?? 0) >= descriptors {
        usleep(100_000)
    }
    line("end " + footprint())
}

// MARK: - One operation, with GLib's log watched

/// Writes each message GLib would print (error, critical, warning, message) as a line
/// "glib: DOMAIN: MESSAGE" on standard output, instead of standard error, from the moment it is
/// called: `g_log_set_writer_func`, through the dynamic loader (GLib's messages of every domain
/// without a handler of its own reach it). `false` when GLib is not there.
func watchGLibLog() -> Bool {
    typealias Writer =
        @convention(c) (Int32, UnsafeRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32
    typealias SetWriter = @convention(c) (Writer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
    guard let glib = dlopen("libglib-2.0.so.0", RTLD_NOW), let set = dlsym(glib, "g_log_set_writer_func") else {
        return false
    }
    // GLogField: key, value, length (-1: a NUL-terminated string).
    let writer: Writer = { level, fields, count, _ in
        let printed: Int32 = 0x04 | 0x08 | 0x10 | 0x20  // G_LOG_LEVEL_ERROR, CRITICAL, WARNING, MESSAGE
        guard level & printed != 0, let fields else { return 1 }
        var domain = ""
        var message = ""
        for index in 0..<count {
            let field = fields.advanced(by: index * 24)
            guard let key = field.load(as: UnsafePointer<CChar>?.self),
                let value = field.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
            else { continue }
            let length = field.load(fromByteOffset: 16, as: Int.self)
            guard length < 0 else { continue }
            let text = String(cString: value.assumingMemoryBound(to: CChar.self))
            switch String(cString: key) {
            case "GLIB_DOMAIN": domain = text
            case "MESSAGE": message = text
            default: break
            }
        }
        let flat = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        line("glib: \(domain): \(flat)")
        return 1  // G_LOG_WRITER_HANDLED
    }
    unsafeBitCast(set, to: SetWriter.self)(writer, nil, nil)
    return true
}

/// The `op` mode: one operation on one instance, with GLib's log watched (see main.swift).
func operation(_ name: String, service: String, account: String, milliseconds: Int, prompts: Bool) {
    guard watchGLibLog() else {
        line("error: no GLib")
        exit(1)
    }
    var ids = try? DeviceIDs(options: .init(allowsPrompt: prompts, timeout: .milliseconds(milliseconds)))
    guard let instance = ids else { exit(1) }
    let result: String
    do throws(KeyIDError) {
        switch name {
        case "get": result = "ok " + (try instance.get(service: service, account: account)).uuidString
        case "getOrCreate": result = "ok " + (try instance.getOrCreate(service: service, account: account)).uuidString
        case "create": result = "ok " + (try instance.create(service: service, account: account)).uuidString
        case "rotate": result = "ok " + (try instance.rotate(service: service, account: account)).uuidString
        case "delete":
            try instance.delete(service: service, account: account)
            result = "ok"
        default:
            line("unknown operation \(name)")
            exit(2)
        }
    } catch {
        result = "error \(error.exitCode) \(error.message)"
    }
    line(result)
    // What the instance's end and GDBus's thread may still log.
    ids = nil
    usleep(300_000)
}
