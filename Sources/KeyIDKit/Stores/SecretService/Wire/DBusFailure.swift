import Glibc

extension GErrorCode {
    static let ioClosed: Int32 = 18  // G_IO_ERROR_CLOSED: the peer closed the connection
    static let ioInvalidData: Int32 = 35  // G_IO_ERROR_INVALID_DATA: a message breaks the format
    static let dbusNoReply: Int32 = 4  // G_DBUS_ERROR_NO_REPLY
    static let dbusAccessDenied: Int32 = 9  // G_DBUS_ERROR_ACCESS_DENIED
    static let dbusInvalidArgs: Int32 = 16  // G_DBUS_ERROR_INVALID_ARGS
    static let dbusTimedOut: Int32 = 20  // G_DBUS_ERROR_TIMED_OUT
    static let dbusUnknownInterface: Int32 = 42  // G_DBUS_ERROR_UNKNOWN_INTERFACE
    static let dbusUnknownProperty: Int32 = 43  // G_DBUS_ERROR_UNKNOWN_PROPERTY
    static let secretNoSuchObject: Int32 = 3  // SECRET_ERROR_NO_SUCH_OBJECT
    static let secretAlreadyExists: Int32 = 4  // SECRET_ERROR_ALREADY_EXISTS
}

/// D-Bus error replies and connection failures as ``SecretServiceFailure``s, with the GError
/// domain and code that GDBus and libsecret give them, so that
/// ``SecretServiceFailure/outcome`` reads both transports alike.
enum DBusFailure {
    /// The `org.freedesktop.DBus.Error.` names GDBus maps, at the index of their
    /// `G_DBUS_ERROR_*` code (GLib's `gioenums.h` and `gdbuserror.c`).
    private static let dbusErrorNames = [
        "Failed", "NoMemory", "ServiceUnknown", "NameHasNoOwner", "NoReply", "IOError", "BadAddress",
        "NotSupported", "LimitsExceeded", "AccessDenied", "AuthFailed", "NoServer", "Timeout", "NoNetwork",
        "AddressInUse", "Disconnected", "InvalidArgs", "FileNotFound", "FileExists", "UnknownMethod", "TimedOut",
        "MatchRuleNotFound", "MatchRuleInvalid", "Spawn.ExecFailed", "Spawn.ForkFailed", "Spawn.ChildExited",
        "Spawn.ChildSignaled", "Spawn.Failed", "Spawn.FailedToSetup", "Spawn.ConfigInvalid",
        "Spawn.ServiceNotValid", "Spawn.ServiceNotFound", "Spawn.PermissionsInvalid", "Spawn.FileInvalid",
        "Spawn.NoMemory", "UnixProcessIdUnknown", "InvalidSignature", "InvalidFileContent",
        "SELinuxSecurityContextUnknown", "AdtAuditDataUnknown", "ObjectPathInUse", "UnknownObject",
        "UnknownInterface", "UnknownProperty", "PropertyReadOnly",
    ]

    /// The `org.freedesktop.Secret.Error.` names libsecret registers (`secret_error_get_quark`).
    /// It does not register `NoSession`, which keeps its own name as its domain.
    private static let secretErrorNames: [String: Int32] = [
        "IsLocked": GErrorCode.secretIsLocked, "NoSuchObject": GErrorCode.secretNoSuchObject,
        "AlreadyExists": GErrorCode.secretAlreadyExists,
    ]

    /// The GError domain and code of a D-Bus error name; a name neither GDBus nor libsecret
    /// knows is its own domain, with code 0.
    static func domainAndCode(ofErrorName name: String) -> (domain: String, code: Int32) {
        let dbusPrefix = "org.freedesktop.DBus.Error."
        let secretPrefix = "org.freedesktop.Secret.Error."
        if name.hasPrefix(dbusPrefix),
            let index = dbusErrorNames.firstIndex(of: String(name.dropFirst(dbusPrefix.count)))
        {
            return (GErrorCode.dbusDomain, Int32(index))
        }
        if name.hasPrefix(secretPrefix), let code = secretErrorNames[String(name.dropFirst(secretPrefix.count))] {
            return (GErrorCode.secretDomain, code)
        }
        return (name, 0)
    }

    /// An error reply to the call `operation` (`interface.member`); its message is the
    /// reply's first argument when that is a string.
    static func reply(errorName: String, body: [DBusValue], operation: String) -> SecretServiceFailure {
        let (domain, code) = domainAndCode(ofErrorName: errorName)
        let message: String
        if case .string(let text)? = body.first { message = text } else { message = errorName }
        return SecretServiceFailure(operation: operation, domain: domain, code: code, message: message)
    }

    /// A call that was never sent, because its arguments break the format.
    static func unencodable(_ problem: DBusWriter.Unencodable, operation: String) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: operation, domain: GErrorCode.dbusDomain, code: GErrorCode.dbusInvalidArgs,
            message: "the call was not sent: \(problem.reason)")
    }

    /// An address with no entry keyid can connect to, or one it cannot read.
    static func badAddress(_ address: String, reason: String) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: "connect", domain: GErrorCode.ioDomain, code: GErrorCode.ioInvalidArgument,
            message: "cannot use the D-Bus address '\(address)': \(reason)")
    }

    /// `connect` to `socket` failed with `code` (an `errno` value).
    static func connect(_ socket: DBusAddress.Socket, errno code: Int32) -> SecretServiceFailure {
        let gioCode: Int32
        switch code {
        case ENOENT: gioCode = GErrorCode.ioNotFound
        case ECONNREFUSED: gioCode = GErrorCode.ioConnectionRefused
        case EACCES, EPERM: gioCode = GErrorCode.ioPermissionDenied
        default: gioCode = GErrorCode.ioFailed
        }
        return SecretServiceFailure(
            operation: "connect", domain: GErrorCode.ioDomain, code: gioCode,
            message: "cannot connect to the D-Bus socket \(socket.display): \(POSIX.message(code))")
    }

    /// No answer from the bus at `address` within `timeout`.
    static func timedOut(operation: String, address: String, timeout: Duration) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: operation, domain: GErrorCode.ioDomain, code: GErrorCode.ioTimedOut,
            message: "no answer from the D-Bus peer at \(address) within \(seconds(timeout)) s")
    }

    /// The peer closed the connection, or the connection broke (`EPIPE`, `ECONNRESET`).
    static func closed(operation: String, address: String) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: operation, domain: GErrorCode.ioDomain, code: GErrorCode.ioClosed,
            message: "the D-Bus connection to \(address) is closed")
    }

    /// Any other failure of a read or write, with its `errno` value.
    static func io(operation: String, address: String, errno code: Int32) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: operation, domain: GErrorCode.ioDomain, code: GErrorCode.ioFailed,
            message: "the D-Bus connection to \(address) failed: \(POSIX.message(code))")
    }

    /// The bus did not accept EXTERNAL authentication as this user.
    static func authenticationRejected(address: String, response: String) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: "authenticate", domain: GErrorCode.ioDomain, code: GErrorCode.ioFailed,
            message: "the D-Bus peer at \(address) rejected authentication as uid \(geteuid()) ('\(response)')")
    }

    /// The peer sent something that is not a D-Bus message; the connection cannot go on.
    static func malformed(operation: String, address: String, reason: String) -> SecretServiceFailure {
        SecretServiceFailure(
            operation: operation, domain: GErrorCode.ioDomain, code: GErrorCode.ioInvalidData,
            message: "the D-Bus peer at \(address) sent a malformed message: \(reason)")
    }

    /// A duration in seconds, as `0.5` or `25`.
    static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        let millis = fraction / 1_000_000_000_000_000
        guard millis > 0 else { return "\(whole)" }
        var decimals = String(millis + 1000).dropFirst()
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(whole).\(decimals)"
    }
}
