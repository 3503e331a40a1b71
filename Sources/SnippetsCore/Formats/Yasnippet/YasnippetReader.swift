extension SnippetFormat {
    /// yasnippet files (`snippets/<major-mode>/<file>`).
    public static let yasnippet = SnippetFormat(rawValue: "yasnippet")
}

extension SnippetFileFormat {
    /// yasnippet: every file in a mode folder (`YasnippetPlace`), read by `YasnippetReader`; `.yas-parents` too.
    public static let yasnippet = SnippetFileFormat(
        format: .yasnippet, name: "yasnippet", nameSuffixes: nil, watchGlobs: ["**/*"], readsByPlace: true,
        checkNote: "Emacs Lisp (backquotes, $(…) in fields, # condition:, # expand-env:, # type: command) is never "
            + "run; well-known forms become LSP variables and choices, the rest is left out, each one noted",
        whatToAdd: "yasnippet <major-mode>/ folders",
        recognize: YasnippetPlace.context(forFileAt:root:),
        read: { source in
            let mode = source.context.mode ?? YasnippetPlace.mode(ofDirectory: LibraryPath.parent(source.path), root: "/") ?? ""
            if LibraryPath.name(source.path) == YasnippetPlace.parentsFileName {
                return SnippetFileReading(
                    file: YasnippetReader.readParents(
                        text: source.text, uri: source.uri, path: source.path, mode: mode, context: source.context))
            }
            return SnippetFileReading(
                file: YasnippetReader.read(
                    text: source.text, uri: source.uri, path: source.path, mode: mode,
                    filenamesAsTriggers: source.context.namesAreTriggers, context: source.context,
                    checkBody: source.checkBody))
        },
        hiddenFileNames: [YasnippetPlace.parentsFileName],
        directoryRule: YasnippetPlace.directoryRule(_:names:root:),
        bodyQuoting: BodyQuoting(written: { $0 }, bodyText: { YasnippetBodyConverter.convert(Substring($0), at: 0).text }))
}

/// Reads one yasnippet file (`snippets/<major-mode>/<file>`), as yasnippet 0.14's `yas--parse-template` does.
///
/// - When a line is exactly `# --` (trailing white space allowed), the lines above it are headers and everything
///   after it is the template, trailing line break included (yasnippet inserts it); otherwise the whole file is the
///   template. A header is `# NAME: VALUE` (the last of a name wins); other lines above `# --` are ignored.
/// - `# name:` is the title (default: the file name); `# key:` the trigger (default: the file name, unless
///   `# binding:` is given or the folder holds `.yas-ignore-filenames-as-triggers`); `# group:`, `# uuid:` and
///   `# contributor:` are read and not used. `# condition:` and `# expand-env:` are Emacs Lisp: never run, noted.
///   `# binding:` is an Emacs key binding: noted. `# type: command` makes the template Emacs Lisp to run instead
///   of text: the file gives no snippet, and a note says so. Any other header is a warning, as yasnippet warns.
/// - The template is converted by `YasnippetBodyConverter` (Emacs Lisp in it is never run).
/// - `.yas-parents` (`YasnippetReader.readParents`) names the modes whose snippets the folder's mode also gets.
enum YasnippetReader {
    /// The codes of the reader's own diagnostics.
    enum Code {
        static let condition: DiagnosticCode = .emacsLispCondition
        static let expandEnvironment: DiagnosticCode = .emacsLispExpandEnv
        static let command: DiagnosticCode = .yasnippetCommand
        static let binding: DiagnosticCode = .yasnippetBinding
        static let unknownDirective: DiagnosticCode = .unknownDirective
        static let unknownType: DiagnosticCode = .unknownSnippetType
    }

    static func read(
        text: String, uri: String, path: String, mode: String, filenamesAsTriggers: Bool, context: SnippetFileContext,
        checkBody: SnippetBodyChecker?
    ) -> SnippetFile {
        let text = text.hasPrefix("\u{FEFF}") ? String(text.unicodeScalars.dropFirst()) : text
        let table = LineTable(text)
        var sink = DiagnosticSink(uri: uri, table: table)
        let fileName = LibraryPath.name(path)
        let scopes = YasnippetModes.scopes(ofMode: mode)
        var file = SnippetFile(uri: uri, path: path, format: .yasnippet)
        file.context = context
        if mode == YasnippetModes.programmingMode { file.extensions = YasnippetModes.programmingExtensions }

        // The `# --` line.
        var separator: Int?
        for line in 0..<table.lineCount where line + 1 < table.lineCount {
            let content = table.content(ofLine: line)
            if content.utf8.starts(with: "# --".utf8), content.dropFirst(4).allSatisfy({ $0 == " " || $0 == "\t" }) {
                separator = line
                break
            }
        }
        var name = fileName
        var key: String?
        var binding: String?
        var type = "snippet"
        var typeOffset = 0
        if let separator {
            for line in 0..<separator {
                guard let header = Self.header(table.content(ofLine: line)) else { continue }
                let lineStart = table.lineStarts[line]
                let valueOffset = lineStart + header.valueOffset
                switch header.name {
                case "name": name = header.value.isEmpty ? fileName : header.value
                case "key": key = header.value
                case "binding":
                    binding = header.value
                    sink.add(
                        .note, Code.binding,
                        "'# binding: \(header.value)' is an Emacs key binding; an editor's completion offers the snippet instead",
                        at: lineStart)
                case "type":
                    type = header.value
                    typeOffset = valueOffset
                case "condition":
                    sink.add(
                        .note, Code.condition,
                        "'# condition:' is Emacs Lisp, which is never run; the snippet is offered wherever its language is",
                        at: valueOffset)
                case "expand-env":
                    sink.add(
                        .note, Code.expandEnvironment,
                        "'# expand-env:' is Emacs Lisp, which is never run; the snippet expands without those bindings",
                        at: valueOffset)
                case "group", "uuid", "contributor": break
                default:
                    sink.add(
                        .warning, Code.unknownDirective,
                        "'# \(header.name):' is not a yasnippet directive, so it is ignored (yasnippet ignores it too)",
                        at: lineStart)
                }
            }
        }
        if key == nil, binding == nil, filenamesAsTriggers { key = fileName }
        let bodyStart = separator.map { table.lineStarts[$0 + 1] } ?? 0
        let body = table.slice(bodyStart..<text.utf8.count)
        var end = text.utf8.count
        if text.hasSuffix("\n") { end -= 1 }
        let range = sink.range(0..<max(end, 0))

        if type == "command" {
            sink.add(
                .note, Code.command,
                "'# type: command' makes this snippet Emacs Lisp to run, which snippets-lsp never does; it was not loaded",
                at: typeOffset)
            file.diagnostics = sink.diagnostics
            return file
        }
        if type != "snippet" {
            sink.add(.warning, Code.unknownType, "'# type: \(type)' is not 'snippet' or 'command'; it is read as a snippet", at: typeOffset)
        }
        if body.allSatisfy(\.isWhitespace) {
            sink.add(.warning, .emptyBody, "snippet '\(name)' has an empty body, so it was not loaded", at: bodyStart)
            file.diagnostics = sink.diagnostics
            return file
        }
        let converted = YasnippetBodyConverter.convert(body, at: bodyStart)
        for note in converted.notes { sink.add(note.severity, note.code, note.message, at: note.offset) }
        if let checkBody {
            let problems = checkBody(converted.text)
            if !problems.isEmpty { sink.addBodyProblems(problems, title: name, map: converted.map) }
        }
        file.snippets = [
            Snippet(
                id: SnippetID(fileURI: uri, key: "yasnippet"), title: name, triggers: key.map { $0.isEmpty ? [] : [$0] } ?? [],
                body: converted.text, scopes: scopes, location: SourceLocation(uri: uri, range: range),
                format: .yasnippet)
        ]
        file.diagnostics = sink.diagnostics
        return file
    }

    /// A header line `# NAME: VALUE` as yasnippet matches it (`^# *\([^ ]+?\) *: *\(.*?\)[[:space:]]*$`): the name
    /// (no spaces, up to the first colon after it), the value without surrounding white space, and where the value
    /// starts in the line (UTF-8).
    static func header(_ line: Substring) -> (name: String, value: String, valueOffset: Int)? {
        guard line.first == "#" else { return nil }
        var rest = line.dropFirst().drop { $0 == " " }
        let name = rest.prefix { $0 != " " && $0 != ":" }
        guard !name.isEmpty else { return nil }
        rest = rest.dropFirst(name.count).drop { $0 == " " }
        guard rest.first == ":" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " }
        let valueOffset = line.utf8.count - rest.utf8.count
        var value = rest
        while let last = value.last, last.isWhitespace { value = value.dropLast() }
        return (String(name), String(value), valueOffset)
    }

    /// Reads a `.yas-parents` file: the modes it names (separated by white space), as the `extensions` of the
    /// folder's mode.
    static func readParents(text: String, uri: String, path: String, mode: String, context: SnippetFileContext) -> SnippetFile {
        let parents = text.split { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }.map(String.init)
        var file = SnippetFile(
            uri: uri, path: path, format: .yasnippet, extensions: YasnippetModes.extensions(ofMode: mode, parents: parents))
        file.context = context
        return file
    }
}
