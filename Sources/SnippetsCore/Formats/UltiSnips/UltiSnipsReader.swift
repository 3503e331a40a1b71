import Foundation

/// Reads UltiSnips `*.snippets` files as UltiSnips' own parser (`snippet/source/file/ulti_snips.py`) reads them.
///
/// - `snippet TRIGGER "description" options` … `endsnippet`: the header is split as UltiSnips splits it (options are
///   the last word when the word before ends with a quote; a multi-word or `r` trigger is delimited by its first
///   character). The body is every line up to `endsnippet`, as written (no indent removed).
/// - `priority N` (the snippets after it), `extends a, b`, `clearsnippets [triggers]` (removes the triggers, or
///   every snippet, of lower or equal priority read before it for the same languages), comments (`#`).
/// - `global !p … endglobal`, `context`, `pre_expand`, `post_expand`, `post_jump`, `post_finish` and the `e` option's
///   expression are NEVER run: each is a note, and the snippet is offered as if they were not there.
/// - Options: `b` (offered only at the start of a line), `i` (offered also where the trigger ends a word), `r`
///   (offered by the regex's literal prefix, or listed without a trigger), `m` (trailing whitespace removed), `A`,
///   `t`, `s`, `e` (noted); `w` needs nothing.
enum UltiSnipsReader {
    /// Whether a folder named `UltiSnips` (in any case, as a case-insensitive file system finds it) holds `path`
    /// (the library root included).
    static func isUnderUltiSnipsFolder(_ path: String, root: String) -> Bool {
        let root = LibraryPath.normalize(root)
        var directory = LibraryPath.parent(path)
        while true {
            if LibraryPath.name(directory).lowercased() == "ultisnips" { return true }
            if directory == root || directory == "/" || directory == "." { return false }
            directory = LibraryPath.parent(directory)
        }
    }

    /// Whether the text's entries are UltiSnips ones: some line is `endsnippet` or `endglobal` (SnipMate has neither;
    /// a SnipMate body line starts with a tab).
    static func looksLikeUltiSnips(_ text: String) -> Bool {
        var atLineStart = true
        var utf8 = text.utf8[...]
        while !utf8.isEmpty {
            if atLineStart, utf8.starts(with: "endsnippet".utf8) || utf8.starts(with: "endglobal".utf8) {
                let rest = utf8.dropFirst(utf8.starts(with: "endsnippet".utf8) ? 10 : 9)
                if rest.first.map({ $0 == 0x0A || $0 == 0x0D || $0 == 0x20 || $0 == 0x09 }) ?? true { return true }
            }
            atLineStart = utf8.first == 0x0A
            utf8 = utf8.dropFirst()
        }
        return false
    }

    /// The longest literal start of a regular-expression trigger (a leading `^` skipped), "" when there is none: the
    /// text every match begins with, so completion can offer the snippet when it is typed.
    static func literalPrefix(ofRegex regex: String) -> String {
        var characters = Substring(regex)
        if characters.first == "^" { characters = characters.dropFirst() }
        if characters.contains("|") { return "" }
        var prefix = ""
        var index = characters.startIndex
        while index < characters.endIndex {
            let character = characters[index]
            let next = characters.index(after: index)
            if character.isLetter || character.isNumber || character == "_" || character == "-" || character == "=" || character == "<" || character == ">" || character == "#" || character == "!" || character == "@" || character == "%" || character == "&" || character == "'" || character == "\"" || character == "," || character == ":" || character == ";" || character == "/" {
                if next < characters.endIndex, "?*{".contains(characters[next]) { break }
                prefix.append(character)
                index = next
            } else if character == "\\", next < characters.endIndex, characters[next].isPunctuation || characters[next].isSymbol {
                let after = characters.index(after: next)
                if after < characters.endIndex, "?*{".contains(characters[after]) { break }
                prefix.append(characters[next])
                index = after
            } else {
                break
            }
        }
        return prefix
    }

    static func read(text: String, uri: String, path: String, context: SnippetFileContext, checkBody: SnippetBodyChecker?)
        -> SnippetFileReading
    {
        let text = text.hasPrefix("\u{FEFF}") ? String(text.unicodeScalars.dropFirst()) : text
        var reader = Reader(uri: uri, context: context, checkBody: checkBody, sink: DiagnosticSink(uri: uri, table: LineTable(text)))
        reader.readFile()
        var file = SnippetFile(
            uri: uri, path: path, format: .ultisnips, snippets: reader.snippets, diagnostics: reader.sink.diagnostics,
            extensions: reader.extensions)
        file.context = context
        return SnippetFileReading(file: file, overrides: reader.overrides)
    }

    /// A header split as UltiSnips splits it.
    struct Header: Equatable {
        var trigger: String
        var description: String?
        var options: String
        /// The `e` option's expression.
        var context: String?
        /// Set when UltiSnips refuses the header.
        var error: String?
    }

    /// `_handle_snippet_or_global`'s split of the text after `snippet` (or `global`).
    static func parseHeader(_ rest: Substring, hasContext: Bool) -> Header {
        func words(_ text: String) -> [Substring] { text[...].split(whereSeparator: { $0 == " " || $0 == "\t" }) }
        var remain = Substring(rest).trimmingSpaces()
        var options = ""
        let all = words(remain)
        if all.count > 2, !all[all.count - 1].contains("\""), all[all.count - 2].last == "\"" {
            options = String(all[all.count - 1])
            remain = remain.dropLast(options.count + 1).trimmingSpaces()
        }
        var context: String?
        if options.contains("e") && !hasContext, remain.count > 1,
            let left = remain.dropLast().lastIndex(of: "\""), left != remain.startIndex
        {
            context = String(remain[left...]).trimmingCharacters("\"")
            remain = String(remain[..<left])
        }
        remain = remain[...].trimmingSpaces()
        var description: String?
        if words(remain).count > 1, remain.last == "\"", let left = remain.dropLast().lastIndex(of: "\""), left != remain.startIndex {
            description = String(remain[left...])
            remain = String(remain[..<left])
        }
        var trigger = remain[...].trimmingSpaces()
        var error: String?
        if words(trigger).count > 1 || options.contains("r") {
            if trigger.first != trigger.last || trigger.count < 2 {
                error = "invalid multi-word trigger '\(trigger)': it must start and end with the same character"
            } else {
                trigger = String(trigger.dropFirst().dropLast())
            }
        }
        return Header(trigger: trigger, description: description, options: options, context: context, error: error)
    }

    private struct Reader {
        let uri: String
        lazy var idSeed = SnippetID.FileSeed(fileURI: uri)
        let context: SnippetFileContext
        let checkBody: SnippetBodyChecker?
        var sink: DiagnosticSink
        var snippets: [Snippet] = []
        var overrides: [SnippetOverride] = []
        var extensions: [String: [String]] = [:]
        var priority = 0
        var occurrences: [String: Int] = [:]
        /// A `context` line waiting for its snippet.
        var pendingContext = false
        /// A `pre_expand` line waiting for its snippet (its code may make the whole body).
        var pendingPreExpand = false

        var table: LineTable { sink.table }
        var scopes: [String] { context.scopes ?? [] }

        mutating func readFile() {
            var line = 0
            while line < table.lineCount {
                let content = table.content(ofLine: line)
                let start = table.lineStarts[line]
                line += 1
                let trimmed = content.trimmingSpaces()
                guard !trimmed.isEmpty else { continue }
                let head = content.prefix { $0 != " " && $0 != "\t" }
                let tail = content.dropFirst(head.count).trimmingSpaces()
                switch head {
                case "snippet", "global":
                    line = readEntry(head: String(head), content: content, start: start, headerLine: line - 1)
                    pendingContext = false
                    pendingPreExpand = false
                case "extends":
                    let names = tail.split(separator: ",").map { name -> String in
                        let trimmed = name.trimmingSpaces()
                        return trimmed.hasSuffix(".snippets") ? String(trimmed.dropLast(9)) : trimmed
                    }.filter { !$0.isEmpty }
                    if names.isEmpty {
                        sink.add(.warning, UltiSnipsCode.unexpectedLine, "'extends' needs the languages it pulls in", at: start)
                    } else {
                        extensions[scopes.first ?? "_", default: []].append(contentsOf: names)
                    }
                case "clearsnippets":
                    let triggers = tail.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                    let position = table.position(ofUTF8Offset: start)
                    if triggers.isEmpty {
                        overrides.append(SnippetOverride(kind: .clear(priority: priority), snippetIndex: nil, trigger: "", scopes: scopes, position: position))
                    }
                    for trigger in triggers {
                        overrides.append(SnippetOverride(kind: .clear(priority: priority), snippetIndex: nil, trigger: trigger, scopes: scopes, position: position))
                    }
                case "priority":
                    if let value = tail.split(separator: " ").first.flatMap({ Int($0) }) {
                        priority = value
                    } else {
                        sink.add(.warning, UltiSnipsCode.badPriority, "'\(content)' needs a whole number; the priority is unchanged", at: start)
                    }
                case "context", "pre_expand", "post_expand", "post_jump", "post_finish":
                    if tail.isEmpty {
                        sink.add(.warning, UltiSnipsCode.unexpectedLine, "'\(head)' needs its Python code; the line is ignored", at: start)
                    } else {
                        if head == "context" { pendingContext = true }
                        if head == "pre_expand" { pendingPreExpand = true }
                        let effect = head == "context"
                            ? "the next snippet is offered wherever its languages are"
                            : "the next snippet is inserted without it"
                        sink.add(.note, UltiSnipsCode.action, "'\(head)' Python code is not run (snippets-lsp never runs code from a snippet); \(effect)", at: start)
                    }
                default:
                    if head.hasPrefix("#") { continue }
                    sink.add(.warning, UltiSnipsCode.unexpectedLine, "this line is not a snippet, comment or directive, and is ignored", at: start)
                }
            }
        }

        /// Reads the entry whose header is at `headerLine`; returns the line after its `endsnippet` (or `endglobal`).
        mutating func readEntry(head: String, content: Substring, start: Int, headerLine: Int) -> Int {
            let end = "end" + head
            var endLine = headerLine + 1
            while endLine < table.lineCount {
                let candidate = table.content(ofLine: endLine)
                if candidate.utf8.starts(with: end.utf8), candidate.dropFirst(end.count).allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { break }
                endLine += 1
            }
            let header = UltiSnipsReader.parseHeader(content.dropFirst(head.count), hasContext: pendingContext)
            guard endLine < table.lineCount else {
                sink.add(.error, UltiSnipsCode.missingEnd, "'\(head) \(header.trigger)' has no '\(end)' line, so it and the rest of the file were not read", at: start)
                return table.lineCount
            }
            let bodyLines = ((headerLine + 1)..<endLine).map { line in
                (text: table.content(ofLine: line), offset: table.lineStarts[line])
            }
            let rangeEnd = table.lineStarts[endLine] + table.content(ofLine: endLine).utf8.count
            if head == "global" {
                sink.add(.note, UltiSnipsCode.global, "'global \(header.trigger)' code is not run (snippets-lsp never runs code from a snippet); interpolations calling it are left out", at: start)
                return endLine + 1
            }
            if let error = header.error {
                sink.add(.error, UltiSnipsCode.malformedHeader, "\(error); the snippet was not loaded", at: start)
                return endLine + 1
            }
            add(header, content: content, bodyLines: bodyLines, range: start..<rangeEnd)
            return endLine + 1
        }

        /// The file offset of `word`'s last occurrence in the header line at `start`.
        func offset(ofLast word: String, in content: Substring, start: Int) -> Int {
            guard !word.isEmpty, let range = content.range(of: word, options: .backwards) else { return start }
            return start + content.utf8.distance(from: content.startIndex, to: range.lowerBound)
        }

        mutating func add(_ header: Header, content: Substring, bodyLines given: [(text: Substring, offset: Int)], range: Range<Int>) {
            let start = range.lowerBound
            var bodyLines = given
            let options = header.options
            if options.contains("m") {
                bodyLines = bodyLines.map { line in
                    var text = line.text
                    while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
                    return (text, line.offset)
                }
            }
            let description = header.description.map(SnipMateReaderQuotes.strippingQuotes).flatMap { $0.isEmpty ? nil : $0 }
            let title = description ?? header.trigger
            guard bodyLines.contains(where: { !$0.text.isEmpty }) else {
                if pendingPreExpand {
                    sink.add(.note, UltiSnipsCode.action, "snippet '\(title)' has no body of its own (its 'pre_expand' code makes one, and that code is not run), so it was not loaded", at: start)
                    return
                }
                sink.add(.warning, UltiSnipsCode.emptyBody, "snippet '\(title)' has an empty body, so it was not loaded", at: start)
                return
            }
            var triggers = [header.trigger]
            let optionsOffset = offset(ofLast: options, in: content, start: start)
            if options.contains("r") {
                let prefix = UltiSnipsReader.literalPrefix(ofRegex: header.trigger)
                triggers = prefix.isEmpty ? [] : [prefix]
                let how = prefix.isEmpty
                    ? "has no literal start, so it is listed without a trigger (its title and words still find it)"
                    : "is offered when its literal start '\(prefix)' is typed"
                sink.add(.note, UltiSnipsCode.option, "regular-expression trigger '\(header.trigger)' \(how)", at: optionsOffset)
            }
            if options.contains("A") {
                sink.add(.note, UltiSnipsCode.option, "option 'A' (expand as soon as the trigger is typed) cannot be honoured: a language server only offers the snippet in the completion list", at: optionsOffset)
            }
            if options.contains("t") {
                sink.add(.note, UltiSnipsCode.option, "option 't' (keep tabs) cannot be honoured: the editor indents the inserted text as its settings say", at: optionsOffset)
            }
            if options.contains("s") {
                sink.add(.note, UltiSnipsCode.option, "option 's' (strip trailing whitespace on jumps) is left to the editor", at: optionsOffset)
            }
            if options.contains("e") {
                let expression = header.context.map { " `\($0)`" } ?? ""
                sink.add(.note, UltiSnipsCode.action, "the context expression\(expression) (option 'e') is not run (snippets-lsp never runs code from a snippet); the snippet is offered wherever its languages are", at: optionsOffset)
            }
            let converted = UltiSnipsBodyConverter.convert(lines: bodyLines)
            for note in converted.notes { sink.add(note.severity, note.code, note.message, at: note.offset) }
            if let checkBody {
                let problems = checkBody(converted.text)
                if !problems.isEmpty { sink.addBodyProblems(problems, title: title, map: converted.map) }
            }
            let baseKey = header.trigger + "\u{1F}" + (header.description ?? "")
            let occurrence = occurrences[baseKey, default: 0] + 1
            occurrences[baseKey] = occurrence
            let key = occurrence > 1 ? baseKey + "\u{1F}\(occurrence)" : baseKey
            var snippet = Snippet(
                id: SnippetID(file: idSeed, key: key), title: title, triggers: triggers,
                description: description, body: converted.text,
                scopes: scopes, priority: priority, location: SourceLocation(uri: uri, range: sink.range(range)),
                format: .ultisnips)
            snippet.isLineStartOnly = options.contains("b")
            // A regex trigger is offered by its literal start, which says nothing of where a match may begin.
            snippet.isInWord = options.contains("i") && !options.contains("r")
            snippet.triggerNeedsEveryWord = true
            snippets.append(snippet)
        }
    }
}

/// SnipMate's and UltiSnips' description quotes.
enum SnipMateReaderQuotes {
    static func strippingQuotes(_ text: String) -> String {
        if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            return String(text.dropFirst().dropLast())
        }
        return text
    }
}

extension String {
    fileprivate func trimmingCharacters(_ character: Character) -> String {
        var slice = self[...]
        while slice.first == character { slice = slice.dropFirst() }
        while slice.last == character { slice = slice.dropLast() }
        return String(slice)
    }
}
