/// ISO 8601 UTC timestamps from Unix seconds.
package enum Timestamp {
    /// `2026-11-29T14:28:22Z`.
    package static func iso8601(_ seconds: UInt64) -> String {
        let days = Int64(seconds / 86_400)
        let rest = Int(seconds % 86_400)
        // Days to civil date (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(Int64(rest / 3600), 2)):\(pad(Int64(rest / 60 % 60), 2)):\(pad(Int64(rest % 60), 2))Z"
    }
}
