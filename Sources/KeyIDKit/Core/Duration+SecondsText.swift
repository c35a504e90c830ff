extension Duration {
    /// The duration in seconds as messages write it: `30`, `2.5`, `0.001`.
    package var secondsText: String {
        let (whole, fraction) = components
        let seconds = Double(whole) + Double(fraction) / 1e18
        return seconds == seconds.rounded() && seconds < 1e15 ? String(Int64(seconds)) : String(seconds)
    }
}
