/// The environment as one subcommand sees it: only the `KEYID_*` variables it reads (see
/// ``SubcommandSpec/variables``), so that a default exported for one subcommand never
/// breaks another.
struct SubcommandEnvironment {
    let spec: SubcommandSpec
    let environment: ProcessEnvironment

    /// `variable`'s value; `nil` when it is unset or the subcommand does not read it.
    func value(_ variable: EnvironmentVariable) throws(KeyIDError) -> String? {
        guard spec.variables.contains(variable) else { return nil }
        return try environment.value(variable)
    }
}
