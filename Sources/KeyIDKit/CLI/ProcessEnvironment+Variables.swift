extension ProcessEnvironment {
    /// A variable's value; see ``value(_:)-(String)``.
    func value(_ variable: EnvironmentVariable) throws(KeyIDError) -> String? {
        try value(variable.rawValue)
    }
}
