import Foundation
import SnippetsCore

/// `snippets-lsp yaml-dump FILE…`: a debugging aid that prints how the server's YAML reader read each file, so it
/// can be compared with another YAML reader (the tests compare it with PyYAML over the espanso corpora).
public enum YAMLDumpCommand: SnippetsCommand {
    public static let name = "yaml-dump"
    public static let summary = "Debugging aid: print how YAML files are read, as JSON"
    public static let isDeveloperTool = true
    public static let options = CommandOptions([])
    public static let help = """
        \(CommandOptions.usage("yaml-dump", arguments: "FILE…", [options]))

        A debugging aid for the YAML reader behind espanso files: prints one JSON line per file, either
        {"file", "value"} or {"file", "error": {"line", "column", "message"}} (line and column from 1). In
        "value", a mapping is {"map": [[key, value], …]} in source order, a plain scalar is {"plain": TEXT}
        (untyped: `true` and `12` stay text), a quoted or block scalar is a string, a list is a list.

        Options:
        \(options.helpText())
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        let files: [String]
        do {
            files = try options.parse(context.arguments).positionals
        } catch {
            context.printError("snippets-lsp yaml-dump: \(error)\n\n\(help)")
            return 2
        }
        guard !files.isEmpty else {
            context.printError("snippets-lsp yaml-dump: name at least one file\n\n\(help)")
            return 2
        }
        var status: Int32 = 0
        for path in files {
            var line: [String: JSONValue] = ["file": .string(path)]
            guard let data = FileManager.default.contents(atPath: path),
                let text = String(validating: Array(data), as: UTF8.self)
            else {
                line["error"] = .object(["line": .int(0), "column": .int(0), "message": .string("unreadable or not UTF-8")])
                context.printJSON(String(decoding: JSONValue.object(line).serialized(), as: UTF8.self))
                status = 1
                continue
            }
            switch YAML.parse(Array(data)) {
            case .success(let root):
                line["value"] = root.map(json) ?? .null
            case .failure(let error):
                let position = LineTable(text).position(ofUTF8Offset: error.offset)
                line["error"] = .object([
                    "line": .int(position.line + 1), "column": .int(position.utf8Column + 1), "message": .string(error.message),
                ])
                status = 1
            }
            context.printJSON(String(decoding: JSONValue.object(line).serialized(), as: UTF8.self))
        }
        return status
    }

    static func json(_ node: YAMLNode) -> JSONValue {
        switch node.kind {
        case .scalar(let scalar):
            scalar.style == .plain ? .object(["plain": .string(scalar.value)]) : .string(scalar.value)
        case .sequence(let items):
            .array(items.map(json))
        case .mapping(let members):
            .object(["map": .array(members.map { .array([json($0.key), json($0.value)]) })])
        }
    }
}
