/// Where keyid keeps IDs, as `--backend` names it. It is a name, not the library's
/// ``DeviceIDs/Backend``: the file backend's directory comes from the home directory of the
/// user the run acts for, known only after `--user` took effect (``Context/backend(_:directory:_:)``).
package enum BackendChoice: String, CaseIterable, Sendable {
    /// The freedesktop Secret Service, over D-Bus (the default).
    case secretService = "secret-service"
    /// Files in ``FileStore/directory(_:)``, for machines without a Secret Service. Only
    /// ever used when asked for.
    case file
}
