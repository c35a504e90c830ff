extension Duration {
    /// The duration in seconds as messages write it, to the microsecond and never in
    /// exponent form, so that it reads as `--timeout` takes it: `30`, `2.5`, `0.00001`.
    package var secondsText: String {
        let (whole, fraction) = components
        let micros = fraction / 1_000_000_000_000
        guard micros > 0 else { return "\(whole)" }
        var decimals = String(micros + 1_000_000).dropFirst()
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(whole).\(decimals)"
    }
}
