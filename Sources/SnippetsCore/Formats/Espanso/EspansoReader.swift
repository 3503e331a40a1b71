extension SnippetFormat {
    /// espanso match files (`match/*.yml`, hub packages' `package.yml`).
    public static let espanso = SnippetFormat(rawValue: "espanso")
}

extension SnippetFileFormat {
    /// espanso: its configuration folder's match files and hub packages (`EspansoReader`).
    public static let espanso = SnippetFileFormat(
        format: .espanso, name: "espanso", nameSuffixes: [".yml", ".yaml"], watchGlobs: ["**/*.yml", "**/*.yaml"],
        readsByPlace: true,
        checkNote: "shell and script variables are never run (each becomes a placeholder, noted); matches apply to every language",
        whatToAdd: "espanso match/*.yml files",
        recognize: { path, root in EspansoReader.context(forFileAt: path, root: root) },
        read: { EspansoReader.read($0) },
        // A replacement's text is literal but for `{{…}}` references and the `$|$` cursor, whose text is another
        // match's or variable's: a piece holding one is not read on its own.
        bodyQuoting: BodyQuoting(
            written: { $0 },
            bodyText: { written in
                written.contains("{{") || written.contains("$|$")
                    ? nil : EspansoReplacement.escaped(EspansoReplacement.unescapingBraces(written))
            }),
        // A match file may import another match file, which is then read once for both.
        isNamedByOtherFiles: true)
}

/// Reads espanso 2.x match files: a configuration folder's `match/**/*.yml` and hub packages (`package.yml` and
/// the other match files beside it).
///
/// - Which files: `*.yml` and `*.yaml` whose names do not start with `_` (espanso loads `match/**/[!_]*.yml`;
///   `_manifest.yml` and other `_` files are read only when imported), outside a folder named `config` (espanso's
///   settings). Inside a `match` folder or a hub package (a `package.yml`, or a file beside `_manifest.yml`) a
///   file is surely espanso's and every problem is reported; anywhere else a YAML file is read only when its top
///   level has `matches`, `global_vars` or `imports`, and is otherwise skipped like a README.
/// - Each entry of `matches` is one snippet, for every language: its triggers from `trigger` or `triggers`, a
///   `regex` offered by its literal start (noted), the title from `label` (else the first trigger), the body from
///   `replace`, `markdown` or `html` (as their text: noted), or a `form` layout; `image_path` matches are skipped
///   (noted). `search_terms` become the description. The body is converted by `EspansoReplacement`.
/// - `vars` and `global_vars`; `imports` (relative to the file) are read when they lie inside the folder that
///   holds the `match` folder (or the file's own folder): their global variables and matches serve this file's
///   references, and a `_` file's matches (which nothing else reads) are snippets too. No shell command or script
///   is ever run.
enum EspansoReader {
    /// The keys of a match this reader knows; any other is noted.
    static let matchKeys: Set<String> = [
        "trigger", "triggers", "regex", "replace", "markdown", "html", "image_path", "form", "form_fields", "label",
        "word", "left_word", "right_word", "propagate_case", "uppercase_style", "vars", "search_terms",
        "force_clipboard", "force_mode", "passive_only", "paragraph", "capitalize_words", "comment",
    ]

    /// How a file at `path` found while walking `root` is read, or nil when it is not an espanso match file.
    static func context(forFileAt path: String, root: String) -> SnippetFileContext? {
        let name = LibraryPath.name(path)
        guard name.hasSuffix(".yml") || name.hasSuffix(".yaml"), !name.hasPrefix("_") else { return nil }
        let relative = path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : name
        if relative.split(separator: "/").dropLast().contains("config") { return nil }
        return SnippetFileContext(format: .espanso, scopes: [])
    }

    /// Whether `path` lies where only espanso files are kept: a `match` folder, or is a hub package's `package.yml`.
    static func isEspansoPlace(_ path: String) -> Bool {
        LibraryPath.name(path) == "package.yml" || path.split(separator: "/").dropLast().contains("match")
    }

    /// The folder imports must stay inside: the one holding the nearest `match` folder, else the file's own folder.
    static func importRoot(of path: String) -> String {
        var directory = LibraryPath.parent(path)
        while directory != "/" && directory != "." && !directory.isEmpty {
            if LibraryPath.name(directory) == "match" { return LibraryPath.parent(directory) }
            directory = LibraryPath.parent(directory)
        }
        return LibraryPath.parent(path)
    }

    /// The most files one file's imports may pull in (imports of imports included).
    static let maximumImports = 64

    /// One parsed match file: the file's own or an imported one.
    struct Group {
        var uri: String
        var path: String
        var sink: DiagnosticSink
        var root: YAMLNode?
        var globals: [EspansoReplacement.Variable] = []
        /// Whether its matches become snippets (the file itself, or an imported `_` file nothing else reads).
        var contributesSnippets: Bool
    }

    static func read(_ source: SnippetFileSource) -> SnippetFileReading {
        // Parsed once for the load: a file that imports this one reads this parse.
        let (parsed, table) = source.related.ownYAML(source.path, text: source.text, bytes: source.bytes)
        var sink = DiagnosticSink(uri: source.uri, table: table)
        var file = SnippetFile(uri: source.uri, path: source.path, format: .espanso)
        file.context = source.context
        let surelyEspanso = isEspansoPlace(source.path) || isBesideManifest(source)
        let root: YAMLNode?
        switch parsed {
        case .failure(let error):
            if surelyEspanso {
                sink.add(.error, .yamlSyntax, "\(error.message); nothing in this file was read", at: error.offset)
            } else {
                sink.add(.note, .yamlSyntax, "not read as an espanso match file: \(error.message)", at: error.offset)
            }
            file.diagnostics = sink.diagnostics
            return SnippetFileReading(file: file)
        case .success(let node):
            root = node
        }
        guard let root, let members = root.members else {
            if surelyEspanso, let root {
                sink.add(
                    .warning, .espansoNotAMapping,
                    "an espanso match file is a mapping with 'matches' (and 'global_vars', 'imports'); this is \(root.typeDescription)",
                    at: root.range.lowerBound)
            }
            file.diagnostics = sink.diagnostics
            return SnippetFileReading(file: file)
        }
        guard surelyEspanso || members.contains(where: { ["matches", "global_vars", "imports"].contains($0.key.string ?? "") })
        else {
            return SnippetFileReading(file: file)
        }
        var groups = [Group(uri: source.uri, path: source.path, sink: sink, root: root, contributesSnippets: true)]
        readImports(of: 0, into: &groups, source: source)
        for index in groups.indices {
            groups[index].globals = variables(groups[index].root?.member("global_vars")?.value, sink: &groups[index].sink, group: index)
            for note in groups[index].globals.compactMap(EspansoReplacement.notRunNote) {
                groups[index].sink.add(note.severity, note.code, note.message, at: note.offset)
            }
        }
        // Imported files' globals first, the file's own last, so its own win a name they share.
        let globals = EspansoReplacement.byName(groups.dropFirst().flatMap(\.globals) + groups[0].globals)
        var byTrigger: [String: EspansoReplacement.Nested] = [:]
        for index in groups.indices.reversed() {
            for entry in groups[index].root?.member("matches")?.value.items ?? [] {
                guard let replace = entry.member("replace")?.value.scalar, !replace.isNull else { continue }
                var scratch = DiagnosticSink(uri: groups[index].uri, table: groups[index].sink.table)
                let vars = variables(entry.member("vars")?.value, sink: &scratch, group: index)
                let byName = EspansoReplacement.byName(vars)
                for trigger in triggers(of: entry) { byTrigger[trigger] = .init(scalar: replace, vars: byName, group: index) }
            }
        }
        let package = packageName(source)
        var snippets: [Snippet] = []
        var occurrences: [String: Int] = [:]
        var said: Set<String> = []
        var elsewhere: [EspansoReplacement.Note] = []
        // Counted from the file's own bytes: imports add nothing, so a small file (or two hundred of them) cannot
        // buy a large allowance by importing a large one.
        var fileBytesLeft = EspansoReplacement.fileAllowance(fileBytes: source.bytes.count)
        for index in groups.indices where groups[index].contributesSnippets {
            var group = groups[index]
            let seed = SnippetID.FileSeed(fileURI: group.uri)
            readMatches(
                of: &group, globals: globals, byTrigger: byTrigger, package: package, seed: seed, checkBody: source.checkBody,
                occurrences: &occurrences, into: &snippets, groupIndex: index, said: &said, elsewhere: &elsewhere,
                fileBytesLeft: &fileBytesLeft)
            groups[index] = group
        }
        for note in elsewhere {
            groups[note.group].sink.add(note.severity, note.code, note.message, at: note.offset)
        }
        file.snippets = snippets
        file.diagnostics = groups.flatMap(\.sink.diagnostics)
        return SnippetFileReading(file: file)
    }

    /// Whether the file lies beside a hub package's `_manifest.yml`.
    static func isBesideManifest(_ source: SnippetFileSource) -> Bool {
        if case .text = source.related.file(LibraryPath.join(LibraryPath.parent(source.path), "_manifest.yml")) { return true }
        return false
    }

    /// The hub package's name, from `_manifest.yml` beside the file (the only thing read from it; read and parsed
    /// once per load, however many files lie beside it).
    static func packageName(_ source: SnippetFileSource) -> String? {
        guard case .success(let manifest?) = source.related.yaml(LibraryPath.join(LibraryPath.parent(source.path), "_manifest.yml")).yaml
        else { return nil }
        return manifest.member("name")?.value.string
    }

    /// Reads the files `groups[index]` imports (and theirs), each once, inside the import root.
    static func readImports(of index: Int, into groups: inout [Group], source: SnippetFileSource) {
        let rootFolder = importRoot(of: source.path)
        let canonicalRoot = source.canonicalPath(rootFolder) ?? rootFolder
        var seen: Set<String> = [source.path]
        var queue = [index]
        while let current = queue.first {
            queue.removeFirst()
            guard let imports = groups[current].root?.member("imports")?.value else { continue }
            guard let items = imports.items else {
                groups[current].sink.add(
                    .warning, .espansoImports, "'imports' is a list of file paths; this is \(imports.typeDescription)",
                    at: imports.range.lowerBound)
                continue
            }
            for item in items {
                guard let relative = item.string else { continue }
                let offset = item.range.lowerBound
                let path = LibraryPath.normalize(
                    relative.hasPrefix("/") ? relative : LibraryPath.join(LibraryPath.parent(groups[current].path), relative))
                guard path.hasPrefix(rootFolder + "/") else {
                    groups[current].sink.add(
                        .warning, .espansoImportOutside,
                        "'\(relative)' lies outside '\(rootFolder)', so it is not read (imports stay inside the espanso folder)",
                        at: offset)
                    continue
                }
                guard seen.insert(path).inserted else { continue }
                guard groups.count <= maximumImports else {
                    groups[current].sink.add(
                        .warning, .espansoImports, "more than \(maximumImports) imported files; '\(relative)' and the rest are not read",
                        at: offset)
                    return
                }
                let (file, parsed, table) = source.related.yaml(path)
                switch file {
                case .unreadable(let reason):
                    groups[current].sink.add(.warning, .espansoImportUnreadable, "'\(relative)' could not be read: \(reason)", at: offset)
                case .text(let text, let canonical):
                    guard canonical.hasPrefix(canonicalRoot + "/") else {
                        groups[current].sink.add(
                            .warning, .espansoImportOutside,
                            "'\(relative)' leads outside '\(rootFolder)' through a link, so it is not read", at: offset)
                        continue
                    }
                    let uri = DocumentURI(filePath: path).stringValue
                    var sink = DiagnosticSink(uri: uri, table: table ?? LineTable(text))
                    var node: YAMLNode?
                    switch parsed ?? YAML.parse(Array(text.utf8)) {
                    case .success(let root): node = root
                    case .failure(let error):
                        sink.add(.error, .yamlSyntax, "\(error.message); nothing in this imported file was read", at: error.offset)
                    }
                    // A `_` file is read only through imports; any other is a match file of its own as well.
                    let contributes = LibraryPath.name(path).hasPrefix("_")
                    groups.append(Group(uri: uri, path: path, sink: sink, root: node, contributesSnippets: contributes))
                    queue.append(groups.count - 1)
                }
            }
        }
    }

    /// The variables of a `vars` or `global_vars` list; malformed entries are reported and left out.
    static func variables(_ node: YAMLNode?, sink: inout DiagnosticSink, group: Int) -> [EspansoReplacement.Variable] {
        guard let node, !node.isNull else { return [] }
        guard let items = node.items else {
            sink.add(.warning, .espansoVars, "variables are a list of {name, type, params}; this is \(node.typeDescription)", at: node.range.lowerBound)
            return []
        }
        var result: [EspansoReplacement.Variable] = []
        for item in items {
            guard let name = item.member("name")?.value.string, let typeNode = item.member("type")?.value,
                let type = typeNode.string
            else {
                sink.add(.warning, .espansoVars, "a variable needs a 'name' and a 'type'; this one is left out", at: item.range.lowerBound)
                continue
            }
            result.append(.init(name: name, type: type, typeNode: typeNode, node: item, params: item.member("params")?.value, group: group))
        }
        return result
    }

    /// The plain triggers of a match (`trigger`, or each of `triggers`).
    static func triggers(of entry: YAMLNode) -> [String] {
        if let trigger = entry.member("trigger")?.value.string { return [trigger] }
        return entry.member("triggers")?.value.items?.compactMap(\.string) ?? []
    }

    /// The text a regular expression must start with, as far as it is literal: `:date\(` for `:date\((?P<f>.*)\)`.
    static func literalPrefix(ofRegex regex: String) -> String {
        let characters = Array(regex)
        var index = characters.first == "^" ? 1 : 0
        var prefix = ""
        let special: Set<Character> = ["\\", ".", "^", "$", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|"]
        while index < characters.count {
            var literal = characters[index]
            var width = 1
            if literal == "\\" {
                guard index + 1 < characters.count, !characters[index + 1].isLetter, !characters[index + 1].isNumber else { break }
                literal = characters[index + 1]
                width = 2
            } else if special.contains(literal) {
                break
            }
            let after = index + width < characters.count ? characters[index + width] : nil
            if after == "?" || after == "*" || after == "{" { break }
            prefix.append(literal)
            if after == "+" { break }
            index += width
        }
        return prefix
    }

    /// The names of a regular expression's named groups (`(?P<name>…)`, `(?<name>…)`): espanso's variables.
    static func groupNames(ofRegex regex: String) -> [String] {
        var names: [String] = []
        var rest = Substring(regex)
        while let open = rest.range(of: "(?") {
            rest = rest[open.upperBound...]
            if rest.hasPrefix("P<") { rest = rest.dropFirst(2) } else if rest.hasPrefix("<") { rest = rest.dropFirst() } else { continue }
            guard let close = rest.firstIndex(of: ">") else { break }
            names.append(String(rest[..<close]))
            rest = rest[close...]
        }
        return names
    }

    static func readMatches(
        of group: inout Group, globals: [String: EspansoReplacement.Variable],
        byTrigger: [String: EspansoReplacement.Nested], package: String?,
        seed: SnippetID.FileSeed, checkBody: SnippetBodyChecker?, occurrences: inout [String: Int], into snippets: inout [Snippet],
        groupIndex: Int, said: inout Set<String>, elsewhere: inout [EspansoReplacement.Note], fileBytesLeft: inout Int
    ) {
        guard let matches = group.root?.member("matches")?.value, !matches.isNull else { return }
        guard let entries = matches.items else {
            group.sink.add(.warning, .espansoMatches, "'matches' is a list of matches; this is \(matches.typeDescription)", at: matches.range.lowerBound)
            return
        }
        for entry in entries {
            guard let members = entry.members else {
                group.sink.add(.warning, .espansoMatch, "each entry of 'matches' is a mapping (trigger, replace, …); this is \(entry.typeDescription)", at: entry.range.lowerBound)
                continue
            }
            if let snippet = readMatch(
                entry, members: members, group: &group, globals: globals, byTrigger: byTrigger, package: package, seed: seed,
                checkBody: checkBody, occurrences: &occurrences, groupIndex: groupIndex, said: &said, elsewhere: &elsewhere,
                fileBytesLeft: &fileBytesLeft)
            {
                snippets.append(snippet)
            }
        }
    }

    static func readMatch(
        _ entry: YAMLNode, members: [YAMLMember], group: inout Group, globals: [String: EspansoReplacement.Variable],
        byTrigger: [String: EspansoReplacement.Nested], package: String?,
        seed: SnippetID.FileSeed, checkBody: SnippetBodyChecker?, occurrences: inout [String: Int], groupIndex: Int,
        said: inout Set<String>, elsewhere: inout [EspansoReplacement.Note], fileBytesLeft: inout Int
    ) -> Snippet? {
        let start = entry.range.lowerBound
        for member in members {
            guard let key = member.key.string, !matchKeys.contains(key) else { continue }
            group.sink.add(.note, .espansoUnknownKey, "'\(key)' is not a key of an espanso match; it is ignored", at: member.key.range.lowerBound)
        }
        var triggers = triggers(of: entry)
        if let list = entry.member("triggers")?.value, list.items == nil, !list.isNull {
            group.sink.add(
                .warning, .espansoTriggers,
                "'triggers' is a list (triggers: [\":a\", \":b\"]); this is \(list.typeDescription), which espanso refuses, so the match is skipped",
                at: list.range.lowerBound)
            return nil
        }
        var groupVariables: [EspansoReplacement.Variable] = []
        let regex = entry.member("regex")?.value
        if let regex, let pattern = regex.string {
            let prefix = literalPrefix(ofRegex: pattern)
            if !prefix.isEmpty { triggers.append(prefix) }
            group.sink.add(
                .note, .espansoRegex,
                prefix.isEmpty
                    ? "the regex trigger '\(pattern)' has no literal start to complete from; the match is offered by ask only"
                    : "the regex trigger '\(pattern)' is offered as its literal start '\(prefix)'; espanso expands it when the typed text matches the whole expression",
                at: regex.range.lowerBound)
            for name in groupNames(ofRegex: pattern) {
                groupVariables.append(.init(name: name, type: "regex-group", typeNode: regex, node: regex, params: nil, group: groupIndex))
            }
        }
        let label = entry.member("label")?.value.string
        let key = (triggers.isEmpty ? [regex?.string ?? label ?? ""] : triggers).joined(separator: "\u{1F}")
        let title = label ?? entry.member("trigger")?.value.string ?? triggers.first ?? regex?.string ?? "espanso match"
        if triggers.isEmpty && regex == nil {
            group.sink.add(.note, .espansoNoTrigger, "this match has no trigger; it is offered by ask only", at: start)
        }
        var scalar: YAMLScalar?
        var isForm = false
        for name in ["replace", "markdown", "html", "form"] {
            guard let value = entry.member(name)?.value else { continue }
            guard let found = value.scalar, !value.isNull else {
                group.sink.add(.warning, .espansoReplace, "'\(name)' holds text; this is \(value.typeDescription), so the match is skipped", at: value.range.lowerBound)
                return nil
            }
            scalar = found
            isForm = name == "form"
            if name == "markdown" || name == "html" {
                group.sink.add(
                    .note, name == "html" ? .espansoHtml : .espansoMarkdown, "the \(name) of '\(title)' is inserted as its \(name) text, not rendered",
                    at: value.range.lowerBound)
            }
            break
        }
        // espanso's order: replace, markdown, html, form, and only then image_path.
        if scalar == nil, let image = entry.member("image_path")?.value {
            group.sink.add(
                .note, .espansoImage, "'\(title)' inserts an image (image_path), which a text snippet cannot hold, so it is skipped",
                at: image.range.lowerBound)
            return nil
        }
        guard let scalar else {
            group.sink.add(.warning, .espansoNoReplace, "the match '\(title)' has no 'replace', so nothing would be inserted; it is skipped", at: start)
            return nil
        }
        let vars = variables(entry.member("vars")?.value, sink: &group.sink, group: groupIndex) + groupVariables
        var converter = EspansoReplacement(triggers: triggers, variables: vars, globals: globals) { byTrigger[$0] }
        converter.fileBytesLeft = fileBytesLeft
        converter.append(scalar, fields: isForm)
        fileBytesLeft = max(0, fileBytesLeft - converter.body.utf8.count)
        for note in converter.notes + vars.compactMap(EspansoReplacement.notRunNote) {
            // A global variable's note is said once per file, however many matches use it.
            guard said.insert("\(note.group):\(note.offset):\(note.code)").inserted else { continue }
            if note.group == groupIndex {
                group.sink.add(note.severity, note.code, note.message, at: note.offset)
            } else {
                elsewhere.append(note)
            }
        }
        let body = converter.body
        if let checkBody {
            let problems = checkBody(body)
            if !problems.isEmpty { group.sink.addBodyProblems(problems, title: title, map: converter.map) }
        }
        let occurrence = occurrences[key, default: 0] + 1
        occurrences[key] = occurrence
        var description: String?
        if let terms = entry.member("search_terms")?.value.items?.compactMap(\.string), !terms.isEmpty {
            description = terms.joined(separator: ", ")
        }
        if let package {
            description = "From the espanso package \(package)" + (description.map { ": " + $0 } ?? ".")
        }
        var snippet = Snippet(
            id: SnippetID(file: seed, key: occurrence > 1 ? key + "\u{1F}\(occurrence)" : key),
            title: title, triggers: triggers, description: description, body: body, scopes: [],
            location: SourceLocation(uri: group.uri, range: group.sink.range(entry.range)), format: .espanso)
        snippet.triggerCasing = triggerCasing(of: entry, sink: &group.sink)
        return snippet
    }

    /// How the match's body follows the case of its typed trigger (`propagate_case`, `uppercase_style`), as
    /// espanso-config reads them: an unknown style is noted and upper-cases, a style without `propagate_case` is
    /// noted and does nothing.
    private static func triggerCasing(of entry: YAMLNode, sink: inout DiagnosticSink) -> TriggerCasing? {
        let propagates = entry.member("propagate_case")?.value.string.map { ["true", "True", "TRUE"].contains($0) } ?? false
        guard let styleNode = entry.member("uppercase_style")?.value else { return propagates ? .uppercase : nil }
        let name = styleNode.string ?? ""
        let style = TriggerCasing(rawValue: name)
        if !propagates {
            sink.add(
                .note, .espansoUppercaseStyle,
                "'uppercase_style' has no effect without 'propagate_case: true' (espanso warns of it too)",
                at: styleNode.range.lowerBound)
            return nil
        }
        if style == nil {
            sink.add(
                .note, .espansoUppercaseStyle,
                "'\(name)' is not an uppercase_style espanso knows (uppercase, capitalize, capitalize_words); it upper-cases",
                at: styleNode.range.lowerBound)
        }
        return style ?? .uppercase
    }
}
