extension SnippetFormat {
    /// SnipMate files (`*.snippets`, `*.snippet`).
    public static let snipmate = SnippetFormat(rawValue: "snipmate")
}

extension SnippetFileFormat {
    /// SnipMate: `*.snippets` (many snippets) and `*.snippet` (one), their scope from the path
    /// (`SnipMateReader.context(forFileAt:root:)`).
    public static let snipMate = SnippetFileFormat(
        format: .snipmate, name: "SnipMate", nameSuffixes: [".snippets", ".snippet"],
        watchGlobs: ["**/*.snippets", "**/*.snippet"], readsByPlace: true,
        whatToAdd: "SnipMate and UltiSnips .snippets files",
        recognize: { path, root in
            let name = LibraryPath.name(path)
            guard name.hasSuffix(".snippets") || name.hasSuffix(".snippet") else { return nil }
            return SnipMateReader.context(forFileAt: path, root: root)
        },
        read: { source in
            let output = SnipMateReader.read(
                text: source.text, uri: source.uri, path: source.path, context: source.context, checkBody: source.checkBody)
            return SnippetFileReading(file: output.file, overrides: output.overrides)
        },
        bodyQuoting: BodyQuoting(
            written: { $0 }, bodyText: { SnipMateBodyConverter.convert(lines: [(text: Substring($0), offset: 0)]).text }))
}

/// Reads SnipMate `*.snippets` and `*.snippet` files as honza/vim-snippets writes them.
///
/// - `snippet TRIGGER [DESCRIPTION]` starts a snippet; its body is the following lines that start with a hard tab
///   (one tab removed) or are empty. Trailing empty lines are not part of the body.
/// - `# …` is a comment, `extends a, b` pulls other scopes in, `priority N` applies to the snippets after it,
///   `version N` is accepted (bodies are always read with SnipMate's version 1 rules). Any other line outside a
///   body is reported (`unexpected-line`) and ignored: a body indented with spaces is the usual cause.
/// - `snippet!` (SnipMate's override) replaces every snippet with the same trigger in the same scope read before it,
///   in this file or an earlier-loaded file, as SnipMate's `SetByPath` does; `snippet!!` removes the trigger
///   altogether and adds nothing. Each replacement is reported as a `note` (`snippet-override`).
/// - The same trigger with different descriptions is SnipMate's multi-snippet menu and fine; the same trigger
///   *and* description twice in one file is a `duplicate-prefix` warning (both are kept, numbered in their IDs).
/// - Title: the description without surrounding quotes, or the trigger when there is none.
enum SnipMateReader {
    /// SnipMate's scope rules, relative to the nearest enclosing directory named `snippets` (or the library root):
    /// `<scope>.snippets`, `<scope>_<name>.snippets`, `<scope>/<name>.snippets`, `<scope>/<trigger>.snippet`,
    /// `<scope>/<trigger>/<description>.snippet`. The scope `_` means global. UltiSnips names its files by the same
    /// rules under a folder named `UltiSnips` (`anchor`).
    static func context(
        forFileAt path: String, root: String, anchor: String = "snippets", format: SnippetFormat = .snipmate
    ) -> SnippetFileContext {
        let name = LibraryPath.name(path)
        let isSingle = name.hasSuffix(".snippet")
        let stem = String(name.dropLast(isSingle ? 8 : 9))
        // Directories between the scope directory (`snippets/` or the root) and the file.
        var directories: [String] = []
        var directory = LibraryPath.parent(path)
        let normalizedRoot = LibraryPath.normalize(root)
        // UltiSnips' folder is found in any case (a case-insensitive file system finds it so); SnipMate's exactly.
        func isAnchor(_ name: String) -> Bool { format == .snipmate ? name == anchor : name.lowercased() == anchor.lowercased() }
        while directory != normalizedRoot, !isAnchor(LibraryPath.name(directory)), directory != "/", directory != "." {
            directories.insert(LibraryPath.name(directory), at: 0)
            directory = LibraryPath.parent(directory)
        }
        func scopes(_ scope: String) -> [String] { scope == "_" || scope.isEmpty ? [] : [scope] }
        if isSingle {
            switch directories.count {
            case 0: return SnippetFileContext(format: format, scopes: [], pathSnippet: .init(trigger: stem))
            case 1: return SnippetFileContext(format: format, scopes: scopes(directories[0]), pathSnippet: .init(trigger: stem))
            default:
                return SnippetFileContext(
                    format: format, scopes: scopes(directories[0]), pathSnippet: .init(trigger: directories[1], description: stem))
            }
        }
        if let scope = directories.first {
            return SnippetFileContext(format: format, scopes: scopes(scope))
        }
        let scope = stem.hasPrefix("_") ? "_" : String(stem.split(separator: "_", maxSplits: 1).first ?? Substring(stem))
        return SnippetFileContext(format: format, scopes: scopes(scope))
    }

    struct Output {
        var file: SnippetFile
        var overrides: [SnippetOverride]
    }

    static func read(text: String, uri: String, path: String, context: SnippetFileContext, checkBody: SnippetBodyChecker?)
        -> Output
    {
        // A byte order mark is not part of the first line (it hid the first `snippet` header): editors don't show
        // it or count it in columns, so it is dropped before lines and columns are counted.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.unicodeScalars.dropFirst()) : text
        let table = LineTable(text)
        var reader = Reader(uri: uri, context: context, checkBody: checkBody, sink: DiagnosticSink(uri: uri, table: table))
        if let single = context.pathSnippet {
            reader.readSingle(trigger: single.trigger, description: single.description)
        } else {
            reader.readFile()
        }
        var file = SnippetFile(
            uri: uri, path: path, format: .snipmate, snippets: reader.snippets, diagnostics: reader.sink.diagnostics,
            extensions: reader.extensions)
        file.context = context
        return Output(file: file, overrides: reader.overrides)
    }

    private struct Header {
        var trigger: String
        var description: String?
        var bangs: Int
        var line: Int
        var priority: Int
    }

    private struct Reader {
        let uri: String
        /// The URI's part of every snippet identifier in this file, hashed once.
        lazy var idSeed = SnippetID.FileSeed(fileURI: uri)
        let context: SnippetFileContext
        let checkBody: SnippetBodyChecker?
        var sink: DiagnosticSink
        var snippets: [Snippet] = []
        var overrides: [SnippetOverride] = []
        var extensions: [String: [String]] = [:]
        var priority = 0
        /// How often each trigger+description key was seen, for IDs and duplicate warnings.
        var occurrences: [String: Int] = [:]

        var table: LineTable { sink.table }
        var scopes: [String] { context.scopes ?? [] }

        mutating func readSingle(trigger: String, description: String?) {
            var lines: [(text: Substring, offset: Int)] = []
            for line in 0..<table.lineCount {
                lines.append((table.content(ofLine: line), table.lineStarts[line]))
            }
            while let last = lines.last, last.text.isEmpty, lines.count > 1 { lines.removeLast() }
            let header = Header(trigger: trigger, description: description, bangs: 0, line: 0, priority: 0)
            add(header, bodyLines: lines, rangeStart: 0)
        }

        mutating func readFile() {
            var header: Header?
            var bodyLines: [(text: Substring, offset: Int)] = []
            for line in 0..<table.lineCount {
                let content = table.content(ofLine: line)
                let start = table.lineStarts[line]
                if header != nil {
                    // Tab is a control character, so it is a whole character exactly when it is the first byte.
                    if content.utf8.first == UInt8(ascii: "\t") {
                        bodyLines.append((content.dropFirst(), start + 1))
                        continue
                    }
                    if content.isEmpty {
                        bodyLines.append((content, start))
                        continue
                    }
                    finish(&header, &bodyLines)
                }
                if let parsed = parseHeader(content, line: line) {
                    header = parsed
                } else if content.startsWithKeyword("extends"), content.dropFirst(7).first?.isWhitespace ?? true {
                    let names = content.dropFirst(7).split { $0 == "," || $0 == " " || $0 == "\t" }.map(String.init)
                    let scope = scopes.first ?? "_"
                    extensions[scope, default: []].append(contentsOf: names)
                } else if content.startsWithKeyword("priority"), content.dropFirst(8).first?.isWhitespace ?? false {
                    if let value = Int(content.dropFirst(8).trimmingSpaces()) {
                        priority = value
                    } else {
                        sink.add(.warning, .badPriority, "'\(content)' needs a whole number; the priority is unchanged", at: start)
                    }
                } else if content.startsWithKeyword("version"), content.dropFirst(7).first?.isWhitespace ?? false {
                    continue
                } else if content.first == "#" || content.allSatisfy({ $0 == " " || $0 == "\t" }) {
                    continue
                } else {
                    sink.add(
                        .warning, .unexpectedLine,
                        "this line is not a snippet header, comment or directive, and is ignored (snippet bodies must be indented with a hard tab)",
                        at: start)
                }
            }
            finish(&header, &bodyLines)
        }

        /// A `snippet` header, or nil when the line is not one (reporting a header without trigger).
        mutating func parseHeader(_ content: Substring, line: Int) -> Header? {
            guard content.startsWithKeyword("snippet") else { return nil }
            var rest = content.dropFirst(7)
            var bangs = 0
            while rest.first == "!", bangs < 2 {
                bangs += 1
                rest = rest.dropFirst()
            }
            guard let separator = rest.first, separator == " " || separator == "\t" else {
                if rest.isEmpty {
                    sink.add(.error, .malformedHeader, "'snippet' needs a trigger; the lines below it are skipped", at: table.lineStarts[line])
                    return Header(trigger: "", description: nil, bangs: bangs, line: line, priority: priority)
                }
                return nil
            }
            rest = rest.drop { $0 == " " || $0 == "\t" }
            let trigger: Substring
            var description: String?
            if let space = rest.firstIndex(of: " ") {
                trigger = rest[..<space]
                let text = rest[space...].trimmingSpaces()
                description = text.isEmpty ? nil : text
            } else {
                trigger = rest
            }
            let cleaned = trigger.trimmingSpaces()
            if cleaned.isEmpty {
                sink.add(.error, .malformedHeader, "'snippet' needs a trigger; the lines below it are skipped", at: table.lineStarts[line])
            }
            return Header(trigger: cleaned, description: description, bangs: bangs, line: line, priority: priority)
        }

        mutating func finish(_ header: inout Header?, _ bodyLines: inout [(text: Substring, offset: Int)]) {
            defer {
                header = nil
                bodyLines = []
            }
            guard let current = header, !current.trigger.isEmpty else { return }
            while let last = bodyLines.last, last.text.isEmpty { bodyLines.removeLast() }
            add(current, bodyLines: bodyLines, rangeStart: table.lineStarts[current.line])
        }

        mutating func add(_ header: Header, bodyLines: [(text: Substring, offset: Int)], rangeStart: Int) {
            let headerPosition = table.position(ofUTF8Offset: rangeStart)
            let title = header.description.map(Self.strippingQuotes) ?? header.trigger
            if header.bangs == 2 {
                overrides.append(SnippetOverride(snippetIndex: nil, trigger: header.trigger, scopes: scopes, position: headerPosition))
                return
            }
            guard bodyLines.contains(where: { !$0.text.isEmpty }) else {
                sink.add(.warning, .emptyBody, "snippet '\(title)' has an empty body, so it was not loaded", at: rangeStart)
                return
            }
            let converted = SnipMateBodyConverter.convert(lines: bodyLines)
            for note in converted.notes {
                sink.add(note.severity, note.code, note.message, at: note.offset)
            }
            if let checkBody {
                let problems = checkBody(converted.text)
                if !problems.isEmpty { sink.addBodyProblems(problems, title: title, map: converted.map) }
            }

            let baseKey = header.trigger + "\u{1F}" + (header.description ?? "")
            let occurrence = occurrences[baseKey, default: 0] + 1
            occurrences[baseKey] = occurrence
            if occurrence > 1 && header.bangs == 0 {
                sink.add(
                    .warning, .duplicatePrefix,
                    "snippet '\(header.trigger)' with the same description is defined \(occurrence) times in this file",
                    at: rangeStart)
            }
            let key = occurrence > 1 ? baseKey + "\u{1F}\(occurrence)" : baseKey
            let last = bodyLines.last!
            let end = last.offset + last.text.utf8.count
            if header.bangs == 1 {
                overrides.append(
                    SnippetOverride(snippetIndex: snippets.count, trigger: header.trigger, scopes: scopes, position: headerPosition))
            }
            snippets.append(
                Snippet(
                    id: SnippetID(file: idSeed, key: key),
                    title: title,
                    triggers: [header.trigger],
                    description: header.description.map(Self.strippingQuotes),
                    body: converted.text,
                    scopes: scopes,
                    priority: header.priority,
                    location: SourceLocation(uri: uri, range: sink.range(rangeStart..<end)),
                    format: .snipmate
                ))
        }

        static func strippingQuotes(_ text: String) -> String {
            if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
                return String(text.dropFirst().dropLast())
            }
            return text
        }
    }
}

extension Substring {
    /// `hasPrefix(keyword)` for a lowercase ASCII keyword, with the bytes compared first: no other character is
    /// canonically equivalent to a lowercase ASCII letter, so a line whose bytes do not start with the keyword
    /// cannot start with it, and only the lines whose bytes do pay for comparing characters.
    func startsWithKeyword(_ keyword: String) -> Bool {
        utf8.starts(with: keyword.utf8) && hasPrefix(keyword)
    }
}
