import Foundation
import KeyIDDocs

// keyid-docs REPOSITORY-ROOT: writes the manual page and the completion scripts, rendered
// from the command table, into the repository, and the guide's tables of options and
// variables into doc/GUIDE.md.
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let root = arguments.first, !root.hasPrefix("-") else {
    FileHandle.standardError.write(Data("usage: keyid-docs REPOSITORY-ROOT\n".utf8))
    exit(2)
}

let guidePath = root + "/doc/GUIDE.md"
guard let guide = try? String(contentsOfFile: guidePath, encoding: .utf8) else {
    FileHandle.standardError.write(Data("keyid-docs: cannot read \(guidePath)\n".utf8))
    exit(1)
}

let outputs: [(path: String, text: String)] = [
    ("doc/keyid.1", ManPage.render()),
    ("completions/keyid.bash", Completions.bash()),
    ("completions/_keyid", Completions.zsh()),
    ("completions/keyid.fish", Completions.fish()),
    ("doc/GUIDE.md", GuideTables.render(into: guide)),
]

do {
    let rootURL = URL(fileURLWithPath: root, isDirectory: true)
    for output in outputs {
        let url = rootURL.appendingPathComponent(output.path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(output.text.utf8).write(to: url, options: .atomic)
        print(url.path)
    }
} catch {
    FileHandle.standardError.write(Data("keyid-docs: \(error)\n".utf8))
    exit(1)
}
