/// The subcommands keyid runs.
package enum Subcommand: String, CaseIterable, Sendable {
    case create, get, delete, rotate, list, derive, doctor
}
