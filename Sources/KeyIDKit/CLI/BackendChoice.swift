/// Where keyid keeps IDs, as `--backend` names it (the library's is ``DeviceIDs/Backend``).
package enum BackendChoice: String, CaseIterable, Sendable {
    /// The freedesktop Secret Service, over D-Bus (the default).
    case secretService = "secret-service"
    /// Files in ``FileStore/directory(_:)``, for machines without a Secret Service. Only
    /// ever used when asked for.
    case file
}
