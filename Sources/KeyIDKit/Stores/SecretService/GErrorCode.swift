/// The GError domains and codes keyid acts on, named as GLib's `gioenums.h` and
/// libsecret's `secret-types.h` name them.
enum GErrorCode {
    /// `G_IO_ERROR`: transport failures, e.g. no bus at the address.
    static let ioDomain = "g-io-error-quark"
    /// `G_DBUS_ERROR`: D-Bus's own errors, from the bus or a peer.
    static let dbusDomain = "g-dbus-error-quark"
    /// `SECRET_ERROR`: libsecret's errors.
    static let secretDomain = "secret-error"

    static let ioFailed: Int32 = 0  // G_IO_ERROR_FAILED: e.g. an authentication the bus refused
    static let ioNotFound: Int32 = 1  // G_IO_ERROR_NOT_FOUND: no socket at the address
    static let ioInvalidArgument: Int32 = 13  // G_IO_ERROR_INVALID_ARGUMENT: empty or bad address
    static let ioPermissionDenied: Int32 = 14  // G_IO_ERROR_PERMISSION_DENIED
    static let ioClosed: Int32 = 18  // G_IO_ERROR_CLOSED: the connection is closed
    static let ioTimedOut: Int32 = 24  // G_IO_ERROR_TIMED_OUT: a stalled daemon
    static let ioDBusError: Int32 = 36  // G_IO_ERROR_DBUS_ERROR: a D-Bus error GLib has no domain for
    static let ioConnectionRefused: Int32 = 39  // G_IO_ERROR_CONNECTION_REFUSED: a stale socket

    static let dbusServiceUnknown: Int32 = 2  // G_DBUS_ERROR_SERVICE_UNKNOWN: nobody owns the name
    static let dbusNameHasNoOwner: Int32 = 3  // G_DBUS_ERROR_NAME_HAS_NO_OWNER
    static let dbusNoReply: Int32 = 4  // G_DBUS_ERROR_NO_REPLY: the callee left the bus without replying
    static let dbusBadAddress: Int32 = 6  // G_DBUS_ERROR_BAD_ADDRESS
    static let dbusNoServer: Int32 = 11  // G_DBUS_ERROR_NO_SERVER
    static let dbusTimeout: Int32 = 12  // G_DBUS_ERROR_TIMEOUT
    static let dbusInvalidArgs: Int32 = 16  // G_DBUS_ERROR_INVALID_ARGS
    static let dbusUnknownMethod: Int32 = 19  // G_DBUS_ERROR_UNKNOWN_METHOD: gnome-keyring's "no such object"
    static let dbusTimedOut: Int32 = 20  // G_DBUS_ERROR_TIMED_OUT
    static let dbusUnknownObject: Int32 = 41  // G_DBUS_ERROR_UNKNOWN_OBJECT: KWallet's and KeePassXC's

    static let secretIsLocked: Int32 = 2  // SECRET_ERROR_IS_LOCKED
    static let secretNoSuchObject: Int32 = 3  // SECRET_ERROR_NO_SUCH_OBJECT: org.freedesktop.Secret.Error.NoSuchObject

    /// The Secret Service's answer to a session it does not know: one another instance of
    /// the provider opened. GLib's tables give it no code of its own; it keeps its D-Bus name.
    static let noSession = "org.freedesktop.Secret.Error.NoSession"
}
