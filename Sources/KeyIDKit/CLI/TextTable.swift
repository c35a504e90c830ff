/// Text laid out in columns, for the help, `list` and `doctor`.
enum TextTable {
    /// `text` followed by spaces up to `width` columns, and at least one.
    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - DisplayText.width(text)))
    }

    /// Rows of cells, each column as wide as its widest cell plus two spaces; the last
    /// column is not padded.
    static func render(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        let widths = (0..<first.count).map { column in rows.map { DisplayText.width($0[column]) }.max() ?? 0 }
        let lines = rows.map { cells in
            zip(cells, widths).enumerated().map { index, pair in
                index == cells.count - 1 ? pair.0 : pad(pair.0, pair.1 + 2)
            }.joined()
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
