extension ProcessEnvironment {
    /// A variable's value; see ``value(_:)-(String)``.
    func value(_ variable: EnvironmentVariable) throws(KeyIDError) -> String? {
        try value(variable.rawValue)
    }

    /// A variable's value when it is an absolute path.
    func absolutePath(_ variable: EnvironmentVariable) throws(KeyIDError) -> String? {
        guard let value = try value(variable), value.hasPrefix("/") else { return nil }
        return value
    }
}
