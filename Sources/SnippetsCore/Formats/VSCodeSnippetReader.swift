extension SnippetFormat {
    /// VS Code snippet files (`*.json`, `*.code-snippets`, and the files a `package.json` names).
    public static let vscode = SnippetFormat(rawValue: "vscode")
}

extension SnippetFileFormat {
    /// VS Code JSON: `<language>.json` gives its snippets that language, `*.code-snippets` leaves it to each
    /// snippet's `scope`. A `package.json` is a manifest (read by the loader's walk), never a snippet file.
    public static let vscode = SnippetFileFormat(
        format: .vscode, name: "VS Code", nameSuffixes: [".json", ".code-snippets"],
        watchGlobs: ["**/*.json", "**/*.code-snippets"], readsByPlace: false,
        whatToAdd: "VS Code .code-snippets and <language>.json files",
        recognize: { path, _ in
            let name = LibraryPath.name(path)
            if name == "package.json" { return nil }
            if name.hasSuffix(".code-snippets") { return SnippetFileContext(format: .vscode, scopes: nil) }
            if name.hasSuffix(".json") { return SnippetFileContext(format: .vscode, scopes: [String(name.dropLast(5))]) }
            return nil
        },
        read: { source in
            SnippetFileReading(
                file: VSCodeSnippetReader.read(
                    bytes: source.bytes, text: source.text, uri: source.uri, path: source.path, context: source.context,
                    checkBody: source.checkBody))
        },
        bodyQuoting: BodyQuoting(
            written: VSCodeSnippetReader.jsonStringContent(of:),
            bodyText: { written in (try? JSONC.parse(Array("\"\(written)\"".utf8)).get())?.stringValue }))
}

/// Reads VS Code snippet files (`*.json`, `*.code-snippets`) as VS Code does:
///
/// - the file is JSONC: one object whose members are snippets, or groups (an object whose members are snippets,
///   one level deep only). A member is a snippet when its value is an object with a `body`. A syntax error (a
///   missing comma, a stray character) is an error at its line, and the entries around it are still read, as VS
///   Code's tolerant reader reads them (`JSONC.read`).
/// - `prefix` and `body` and `description` are a string or an array of strings (body lines join with `\n`);
///   a missing or null `prefix` means the snippet has no trigger.
/// - `scope` ("a,b") is honoured only where the file itself has no language (`*.code-snippets`); a language file
///   (`go.json`, or a `package.json` entry) gives all its snippets that language, as VS Code does.
/// - a later duplicate key replaces an earlier one (JSON semantics), with a warning; a wrong type for `body` drops
///   the snippet with an error; an empty body drops it with a warning; unknown keys get a note.
enum VSCodeSnippetReader {
    static let knownKeys: Set<String> = ["prefix", "body", "description", "scope", "isFileTemplate", "include", "exclude"]

    /// `text` as the content of a JSON string (between its quotes), escaped as JSON writers escape it.
    static func jsonStringContent(of text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func read(
        bytes: [UInt8], text: String, uri: String, path: String, context: SnippetFileContext,
        checkBody: SnippetBodyChecker?
    ) -> SnippetFile {
        let table = LineTable(text)
        var reader = Reader(
            bytes: bytes, uri: uri, context: context, checkBody: checkBody, sink: DiagnosticSink(uri: uri, table: table))
        // Read as VS Code reads it: past syntax errors, each reported at its place, keeping every entry around them.
        let reading = JSONC.read(bytes)
        for error in reading.errors {
            let consequence = reading.value == nil ? "; no snippets were read from this file" : ""
            reader.sink.add(.error, .jsonSyntax, "malformed JSON: \(error.message)\(consequence)", at: error.offset)
        }
        reader.syntaxErrorOffsets = reading.errors.map(\.offset)
        if let root = reading.value { reader.readRoot(root) }
        reader.reportDuplicatePrefixes()
        var file = SnippetFile(
            uri: uri, path: path, format: .vscode, snippets: reader.snippets, diagnostics: reader.sink.diagnostics)
        file.context = context
        return file
    }

    private struct Reader {
        let bytes: [UInt8]
        let uri: String
        /// The URI's part of every snippet identifier in this file, hashed once.
        lazy var idSeed = SnippetID.FileSeed(fileURI: uri)
        let context: SnippetFileContext
        let checkBody: SnippetBodyChecker?
        var sink: DiagnosticSink
        var snippets: [Snippet] = []
        /// The UTF-8 offset of each snippet's key, parallel to `snippets`, for duplicate-prefix warnings.
        var keyOffsets: [Int] = []
        /// Where the file's syntax errors are (at most `JSONC.maximumErrors` and one).
        var syntaxErrorOffsets: [Int] = []

        mutating func readRoot(_ root: JSONCValue) {
            guard let members = root.members else {
                sink.add(
                    .error, .wrongType,
                    "a snippet file must hold a JSON object of snippets, but this one holds \(root.typeDescription)",
                    at: root.range.lowerBound)
                return
            }
            for member in withoutOverriddenDuplicates(members, group: nil) {
                guard let inner = member.value.members else {
                    sink.add(
                        .error, .wrongType,
                        "'\(member.key)' should be a snippet object, but it is \(member.value.typeDescription)",
                        at: member.value.range.lowerBound)
                    continue
                }
                let isGroup =
                    member.value.member("body") == nil
                    && !inner.isEmpty && inner.contains { $0.value.members != nil }
                if isGroup {
                    for child in withoutOverriddenDuplicates(inner, group: member.key) {
                        readSnippet(child, group: member.key)
                    }
                } else {
                    readSnippet(member, group: nil)
                }
            }
        }

        /// The members with each earlier duplicate key reported and removed (the last definition wins, as in JSON).
        mutating func withoutOverriddenDuplicates(_ members: [JSONCMember], group: String?) -> [JSONCMember] {
            var lastIndex: [String: Int] = [:]
            for (index, member) in members.enumerated() { lastIndex[member.key] = index }
            guard lastIndex.count < members.count else { return members }
            var kept: [JSONCMember] = []
            for (index, member) in members.enumerated() {
                if let last = lastIndex[member.key], last != index {
                    let line = sink.table.position(ofUTF8Offset: members[last].keyRange.lowerBound).line + 1
                    sink.add(
                        .warning, .duplicateKey,
                        "'\(member.key)' is defined again on line \(line); this earlier definition is ignored",
                        at: member.keyRange.lowerBound)
                } else {
                    kept.append(member)
                }
            }
            return kept
        }

        /// Strings from a string-or-array-of-strings value; nil (after reporting) for any other shape.
        mutating func strings(_ value: JSONCValue, field: String, title: String, severity: LibraryDiagnostic.Severity)
            -> [String]?
        {
            switch value.kind {
            case .string(let string): return [string]
            case .array(let elements):
                var result: [String] = []
                for element in elements {
                    guard let string = element.stringValue else {
                        sink.add(
                            severity, .wrongType,
                            "'\(field)' of snippet '\(title)' must hold only strings, but one element is \(element.typeDescription)",
                            at: element.range.lowerBound)
                        return nil
                    }
                    result.append(string)
                }
                return result
            default:
                sink.add(
                    severity, .wrongType,
                    "'\(field)' of snippet '\(title)' must be a string or an array of strings, not \(value.typeDescription)",
                    at: value.range.lowerBound)
                return nil
            }
        }

        mutating func readSnippet(_ member: JSONCMember, group: String?) {
            let title = member.key
            guard let fields = member.value.members else {
                sink.add(
                    .error, .wrongType, "'\(title)' should be a snippet object, but it is \(member.value.typeDescription)",
                    at: member.value.range.lowerBound)
                return
            }
            guard let bodyValue = member.value.member("body")?.value else {
                // A body lost to a syntax error after the key (`"body":` cut short) is that error's doing, said once.
                let lostToSyntax = syntaxErrorOffsets.contains { member.keyRange.upperBound <= $0 && $0 <= member.value.range.upperBound }
                if !lostToSyntax {
                    sink.add(.error, .missingBody, "snippet '\(title)' has no 'body', so it was not loaded", at: member.keyRange.lowerBound)
                }
                return
            }
            guard let bodyLines = strings(bodyValue, field: "body", title: title, severity: .error) else { return }
            let body = bodyLines.joined(separator: "\n")
            guard !body.isEmpty else {
                sink.add(.warning, .emptyBody, "snippet '\(title)' has an empty body, so it was not loaded", at: bodyValue.range.lowerBound)
                return
            }

            var triggers: [String] = []
            if let prefix = member.value.member("prefix")?.value, case .null = prefix.kind {
                // null: no trigger, as VS Code reads it.
            } else if let prefix = member.value.member("prefix")?.value {
                triggers = (strings(prefix, field: "prefix", title: title, severity: .warning) ?? []).filter { !$0.isEmpty }
            }

            var description: String?
            if let value = member.value.member("description")?.value {
                description = strings(value, field: "description", title: title, severity: .warning)?.joined(separator: "\n")
            }

            var scopes = context.scopes ?? []
            if context.scopes == nil, let value = member.value.member("scope")?.value {
                if let scope = value.stringValue {
                    scopes = scope.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
                } else {
                    sink.add(
                        .warning, .wrongType,
                        "'scope' of snippet '\(title)' must be a string like \"javascript,typescript\", not \(value.typeDescription); the snippet is global",
                        at: value.range.lowerBound)
                }
            }

            var isFileTemplate = false
            if let value = member.value.member("isFileTemplate")?.value {
                if case .bool(let flag) = value.kind {
                    isFileTemplate = flag
                } else {
                    sink.add(
                        .warning, .wrongType, "'isFileTemplate' of snippet '\(title)' must be true or false, not \(value.typeDescription)",
                        at: value.range.lowerBound)
                }
            }

            for field in fields where !VSCodeSnippetReader.knownKeys.contains(field.key) {
                sink.add(.note, .unknownKey, "snippet '\(title)' has an unknown key '\(field.key)', which is ignored", at: field.keyRange.lowerBound)
            }

            if let checkBody {
                let problems = checkBody(body)
                if !problems.isEmpty {
                    sink.addBodyProblems(problems, title: title, map: bodyMap(bodyValue))
                }
            }

            let key = group.map { $0 + "/" + member.key } ?? member.key
            snippets.append(
                Snippet(
                    id: SnippetID(file: idSeed, key: key),
                    title: title,
                    triggers: triggers,
                    description: description,
                    body: body,
                    scopes: scopes,
                    isFileTemplate: isFileTemplate,
                    location: SourceLocation(uri: uri, range: sink.range(member.range)),
                    format: .vscode
                ))
            keyOffsets.append(member.keyRange.lowerBound)
        }

        /// Where each part of the (joined) body came from in the file.
        func bodyMap(_ value: JSONCValue) -> BodySourceMap {
            var map = BodySourceMap()
            switch value.kind {
            case .string(let string):
                map.append(contentsOf: JSONC.sourceAnchors(ofStringAt: value.range, in: bytes, base: 0))
                _ = string
            case .array(let elements):
                var base = 0
                for (index, element) in elements.enumerated() {
                    guard let string = element.stringValue else { continue }
                    map.append(contentsOf: JSONC.sourceAnchors(ofStringAt: element.range, in: bytes, base: base))
                    base += string.utf16.count
                    if index < elements.count - 1 {
                        // The joining line break belongs to the end of this line's string.
                        map.append(.init(outputUTF16: base, sourceUTF8: element.range.upperBound - 1, isVerbatim: false))
                        base += 1
                    }
                }
            default:
                break
            }
            return map
        }

        /// Warns about a prefix used twice in the same scope of this file (the later one is named).
        /// A prefix in one scope (`""` for global).
        private struct PrefixKey: Hashable {
            var scope: String
            var trigger: String
        }

        mutating func reportDuplicatePrefixes() {
            var seen: [PrefixKey: Int] = [:]
            // Snippets are read field by field: this runs for every snippet of every file on each load.
            for index in snippets.indices {
                let snippetScopes = snippets[index].scopes
                let scopes = snippetScopes.isEmpty ? [""] : snippetScopes
                var reported = false
                for trigger in snippets[index].triggers {
                    for scope in scopes {
                        let key = PrefixKey(scope: scope, trigger: trigger)
                        if let earlier = seen[key] {
                            if !reported {
                                let scopeText = scope.isEmpty ? "globally" : "in scope '\(scope)'"
                                sink.add(
                                    .warning, .duplicatePrefix,
                                    "prefix '\(trigger)' of snippet '\(snippets[index].title)' is already used \(scopeText) by snippet '\(snippets[earlier].title)' in this file",
                                    at: keyOffsets[index])
                                reported = true
                            }
                        } else {
                            seen[key] = index
                        }
                    }
                }
            }
        }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
