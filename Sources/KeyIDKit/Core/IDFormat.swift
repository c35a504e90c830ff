/// The ways keyid writes an ID on standard output (`--format`).
public enum IDFormat: String, CaseIterable, Sendable {
    /// `0f8fad5b-d9cb-469f-a165-70867728950e`, the default.
    case uuid
    /// `0F8FAD5B-D9CB-469F-A165-70867728950E`.
    case upper
    /// `0f8fad5bd9cb469fa16570867728950e`.
    case hex
    /// `urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e`.
    case urn
    /// `KEYID_DEVICE_ID=0f8fad5b-d9cb-469f-a165-70867728950e`, for `eval` and
    /// `systemctl --user set-environment`.
    case env

    /// The variable `--format env` assigns.
    package static let environmentVariable = "KEYID_DEVICE_ID"
    /// The variable `--format env` assigns the replaced ID to, when a run replaced one (empty
    /// when the item held no valid ID).
    package static let previousEnvironmentVariable = "KEYID_PREVIOUS_DEVICE_ID"
    /// One line per form, for help texts.
    package var summary: String {
        switch self {
        case .uuid: return "lowercase 8-4-4-4-12 (default)"
        case .upper: return "uppercase 8-4-4-4-12"
        case .hex: return "32 lowercase hex digits"
        case .urn: return "urn:uuid: followed by the lowercase form"
        case .env: return "KEYID_DEVICE_ID= followed by the lowercase form"
        }
    }
}
