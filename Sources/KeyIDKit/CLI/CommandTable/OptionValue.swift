/// An option's value once checked.
package enum OptionValue: Equatable, Sendable {
    case text(String)
    case seconds(Double)
    case id(DeviceID)

    package var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    package var seconds: Double? {
        if case .seconds(let seconds) = self { return seconds }
        return nil
    }

    package var id: DeviceID? {
        if case .id(let id) = self { return id }
        return nil
    }

    /// The case of `T` a checked choice names.
    package func choice<T: RawRepresentable>(_: T.Type = T.self) -> T? where T.RawValue == String {
        text.flatMap(T.init(rawValue:))
    }
}
