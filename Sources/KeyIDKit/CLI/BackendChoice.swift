/// Where keyid keeps IDs, as `--backend` names it (the library's is ``DeviceIDs/Backend``).
package enum BackendChoice: String, CaseIterable, Sendable {
    /// The freedesktop Secret Service, over D-Bus (the default).
    case secretService = "secret-service"
    /// Files under `$XDG_STATE_HOME/keyid` (else `/var/lib/keyid` for root, else
    /// `~/.local/state/keyid`), for machines without a Secret Service. Only ever used when
    /// asked for.
    case file
}
