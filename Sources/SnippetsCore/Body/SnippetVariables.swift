import Foundation

/// The snippet variables that LSP and VS Code define.
public enum SnippetVariables {
    /// Every variable name VS Code resolves (its `KnownSnippetVariableNames`, in its order); any other name is turned
    /// into a placeholder holding the name (see `SnippetBody.withUnknownVariablesAsPlaceholders`).
    public static let known: [String] = [
        "CURRENT_YEAR", "CURRENT_YEAR_SHORT", "CURRENT_MONTH", "CURRENT_DATE", "CURRENT_HOUR", "CURRENT_MINUTE",
        "CURRENT_SECOND", "CURRENT_MILLISECOND", "CURRENT_DAY_NAME", "CURRENT_DAY_NAME_SHORT", "CURRENT_MONTH_NAME",
        "CURRENT_MONTH_NAME_SHORT", "CURRENT_SECONDS_UNIX", "CURRENT_MILLISECONDS_UNIX", "CURRENT_TIMEZONE_OFFSET",
        "CURRENT_TIMEZONE_NAME", "SELECTION", "CLIPBOARD", "TM_SELECTED_TEXT", "TM_CURRENT_LINE", "TM_CURRENT_WORD",
        "TM_LINE_INDEX", "TM_LINE_NUMBER", "TM_FILENAME", "TM_FILENAME_BASE", "TM_DIRECTORY", "TM_DIRECTORY_BASE",
        "TM_FILEPATH", "CURSOR_INDEX", "CURSOR_NUMBER", "RELATIVE_FILEPATH", "REVERSE_RELATIVE_FILEPATH",
        "BLOCK_COMMENT_START", "BLOCK_COMMENT_END", "LINE_COMMENT", "WORKSPACE_NAME", "WORKSPACE_FOLDER", "RANDOM",
        "RANDOM_HEX", "UUID",
    ]

    private static let knownSet = Set(known)

    /// Whether `name` is one of `known`.
    public static func isKnown(_ name: String) -> Bool { knownSet.contains(name) }

    /// A language's comment markers, as VS Code's language configurations give them.
    public struct CommentSyntax: Hashable, Sendable {
        /// The line comment marker, nil when the language has none (HTML, CSS).
        public var line: String?
        /// The block comment start, nil when the language has no block comments.
        public var blockStart: String?
        /// The block comment end, nil when the language has no block comments.
        public var blockEnd: String?

        /// Markers `line` and, when given, `block` (start, end).
        public init(line: String?, block: (String, String)? = nil) {
            self.line = line
            self.blockStart = block?.0
            self.blockEnd = block?.1
        }
    }

    /// Comment markers by LSP language identifier (lowercased); nil for a language not in the table.
    public static func commentSyntax(forLanguage languageID: String) -> CommentSyntax? {
        commentTable[languageID.lowercased()]
    }

    private static let commentTable: [String: CommentSyntax] = {
        var table: [String: CommentSyntax] = [:]
        func add(_ languages: [String], _ syntax: CommentSyntax) {
            for language in languages { table[language] = syntax }
        }
        add(
            [
                "c", "cpp", "objective-c", "objective-cpp", "objc", "objcpp", "cuda-cpp", "java", "javascript",
                "javascriptreact", "typescript", "typescriptreact", "jsonc", "json5", "csharp", "go", "rust", "swift",
                "kotlin", "scala", "dart", "php", "groovy", "zig", "d", "less", "scss", "proto", "glsl", "hlsl",
                "solidity", "verilog", "systemverilog", "vala", "haxe", "actionscript", "arduino", "cairo", "v",
                "odin", "carbon", "gdshader", "wgsl", "typst",
            ], CommentSyntax(line: "//", block: ("/*", "*/")))
        add(["fsharp"], CommentSyntax(line: "//", block: ("(*", "*)")))
        add(["python", "cython"], CommentSyntax(line: "#", block: ("\"\"\"", "\"\"\"")))
        add(
            [
                "shellscript", "sh", "bash", "zsh", "fish", "ksh", "perl", "raku", "r", "makefile", "make",
                "dockerfile", "yaml", "toml", "elixir", "nix", "cmake", "gdscript", "tcl", "awk", "crystal",
                "terraform", "hcl", "graphql", "properties", "gitignore", "ignore", "sed", "just", "starlark", "bazel",
            ], CommentSyntax(line: "#"))
        add(["ruby"], CommentSyntax(line: "#", block: ("=begin", "=end")))
        add(["powershell"], CommentSyntax(line: "#", block: ("<#", "#>")))
        add(["coffeescript"], CommentSyntax(line: "#", block: ("###", "###")))
        add(["julia"], CommentSyntax(line: "#", block: ("#=", "=#")))
        add(["nim"], CommentSyntax(line: "#", block: ("#[", "]#")))
        add(["lua"], CommentSyntax(line: "--", block: ("--[[", "]]")))
        add(["sql", "mysql", "postgres", "plsql", "pgsql"], CommentSyntax(line: "--", block: ("/*", "*/")))
        add(["haskell", "elm", "purescript", "idris", "agda"], CommentSyntax(line: "--", block: ("{-", "-}")))
        add(["ada", "vhdl"], CommentSyntax(line: "--"))
        add(
            ["html", "xml", "xsl", "svg", "markdown", "vue", "vue-html", "svelte", "astro", "razor", "xhtml"],
            CommentSyntax(line: nil, block: ("<!--", "-->")))
        add(["css"], CommentSyntax(line: nil, block: ("/*", "*/")))
        add(["lisp", "commonlisp", "common-lisp", "racket", "scheme"], CommentSyntax(line: ";", block: ("#|", "|#")))
        add(["clojure", "emacs-lisp", "elisp", "fennel", "ini", "asm", "nasm", "autohotkey"], CommentSyntax(line: ";"))
        add(["vim", "viml", "vimscript"], CommentSyntax(line: "\""))
        add(["tex", "latex", "bibtex", "context", "erlang", "prolog", "postscript"], CommentSyntax(line: "%"))
        add(["matlab", "octave"], CommentSyntax(line: "%", block: ("%{", "%}")))
        add(["ocaml", "reason", "pascal", "sml"], CommentSyntax(line: nil, block: ("(*", "*)")))
        add(["bat", "batch"], CommentSyntax(line: "@REM"))
        add(["vb", "vba", "vbscript"], CommentSyntax(line: "'"))
        add(["fortran", "fortran-modern"], CommentSyntax(line: "!"))
        add(["handlebars"], CommentSyntax(line: nil, block: ("{{!--", "--}}")))
        add(["twig", "jinja", "django-html", "nunjucks"], CommentSyntax(line: nil, block: ("{#", "#}")))
        add(["blade"], CommentSyntax(line: nil, block: ("{{--", "--}}")))
        add(["haml", "slim"], CommentSyntax(line: "-#"))
        add(["pug", "jade"], CommentSyntax(line: "//-"))
        add(["cobol"], CommentSyntax(line: "*>"))
        return table
    }()
}

/// What the server knows about the insertion point, for clients that resolve no variables themselves (Helix).
///
/// Every input is a field, the clock (`date`, `timeZone`) and the random source (`random`) included, so a test that
/// sets them gets the same results every run; left out, they are read from the system when the context is made
/// (`date`, `timeZone`) or drawn from it per call (`random`).
public struct SnippetVariableContext: Sendable {
    /// The document's file system path (`/home/me/a.swift`), nil for an unsaved document.
    public var filePath: String?
    /// The workspace folders' paths; the one containing `filePath` (else the first) names the workspace.
    public var workspaceFolders: [String]
    /// The text of the cursor's line, without its line break.
    public var lineText: String?
    /// The cursor's zero-based line.
    public var lineIndex: Int?
    /// The cursor's column in UTF-16 code units (LSP's default position encoding).
    public var cursorUTF16Column: Int?
    /// The document's LSP language identifier (`swift`, `python`, …).
    public var languageID: String?
    /// The moment the snippet is inserted.
    public var date: Date
    /// The time zone `CURRENT_*` are given in.
    public var timeZone: TimeZone
    /// 64 random bits per call; injected so tests are deterministic.
    public var random: @Sendable () -> UInt64

    /// A context; every field may be left out, unknown fields resolve to nil.
    public init(
        filePath: String? = nil,
        workspaceFolders: [String] = [],
        lineText: String? = nil,
        lineIndex: Int? = nil,
        cursorUTF16Column: Int? = nil,
        languageID: String? = nil,
        date: Date = Date(),
        timeZone: TimeZone = .current,
        random: @escaping @Sendable () -> UInt64 = { UInt64.random(in: .min ... .max) }
    ) {
        self.filePath = filePath
        self.workspaceFolders = workspaceFolders
        self.lineText = lineText
        self.lineIndex = lineIndex
        self.cursorUTF16Column = cursorUTF16Column
        self.languageID = languageID
        self.date = date
        self.timeZone = timeZone
        self.random = random
    }

    /// The value of variable `name`, or nil when it is unknown or the context cannot tell (selection, clipboard).
    public func value(of name: String) -> String? {
        switch name {
        case "TM_FILENAME": return filePath.map(Self.lastComponent)
        case "TM_FILENAME_BASE":
            return filePath.map { path in
                let name = Self.lastComponent(path)
                guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
                return String(name[..<dot])
            }
        case "TM_DIRECTORY": return filePath.map(Self.directory)
        case "TM_DIRECTORY_BASE":
            return filePath.map { path in
                let directory = Self.directory(path)
                return directory.isEmpty ? "" : Self.lastComponent(directory)
            }
        case "TM_FILEPATH": return filePath
        case "REVERSE_RELATIVE_FILEPATH":
            // How many `..` lead from the file's directory back to its workspace folder; `.` at the folder itself.
            guard let filePath, let folder = containingFolder else { return nil }
            let relative = filePath.dropFirst(Self.withTrailingSlash(folder).count)
            let depth = relative.split(separator: "/", omittingEmptySubsequences: false).count - 1
            return depth == 0 ? "." : Array(repeating: "..", count: depth).joined(separator: "/")
        case "RELATIVE_FILEPATH":
            guard let filePath else { return nil }
            guard let folder = containingFolder else { return filePath }
            return String(filePath.dropFirst(Self.withTrailingSlash(folder).count))
        case "WORKSPACE_NAME": return (containingFolder ?? workspaceFolders.first).map(Self.lastComponent)
        case "WORKSPACE_FOLDER": return containingFolder ?? workspaceFolders.first
        case "TM_LINE_INDEX": return lineIndex.map { String($0) }
        case "TM_LINE_NUMBER": return lineIndex.map { String($0 + 1) }
        case "TM_CURRENT_LINE": return lineText
        case "TM_CURRENT_WORD": return currentWord
        case "CURSOR_INDEX": return "0"
        case "CURSOR_NUMBER": return "1"
        case "TM_SELECTED_TEXT", "SELECTION", "CLIPBOARD": return nil
        case "LINE_COMMENT": return comments?.line
        case "BLOCK_COMMENT_START": return comments?.blockStart
        case "BLOCK_COMMENT_END": return comments?.blockEnd
        case "RANDOM": return Self.padded(Int(random() % 1_000_000), width: 6)
        case "RANDOM_HEX":
            let hex = String(random() & 0xFF_FFFF, radix: 16)
            return String(repeating: "0", count: 6 - hex.count) + hex
        case "UUID": return uuid
        default: return dateValue(of: name)
        }
    }

    /// A resolver closure for `SnippetBody.lspText(resolving:)` and `plainText(resolving:)`.
    public var resolver: (String) -> String? {
        { name in value(of: name) }
    }

    // MARK: Paths

    private static func lastComponent(_ path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The directory part of a path; empty for a bare name (as VS Code gives for `.`).
    private static func directory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func withTrailingSlash(_ folder: String) -> String {
        folder.hasSuffix("/") ? folder : folder + "/"
    }

    /// The deepest workspace folder that contains `filePath`.
    private var containingFolder: String? {
        guard let filePath else { return nil }
        return workspaceFolders.filter { filePath.hasPrefix(Self.withTrailingSlash($0)) }.max { $0.count < $1.count }
    }

    // MARK: Line

    /// The word touching the cursor, using VS Code's default word separators; nil when there is none.
    private var currentWord: String? {
        guard let lineText, let column = cursorUTF16Column else { return nil }
        let units = Array(lineText.utf16)
        let cursor = max(0, min(column, units.count))
        let separators = Set("`~!@#$%^&*()-=+[{]}\\|;:'\",.<>/?".utf16)
        func isWordUnit(_ unit: UInt16) -> Bool {
            !separators.contains(unit) && unit != 0x20 && unit != 0x09 && unit != 0x0A && unit != 0x0D
        }
        var start = cursor
        while start > 0, isWordUnit(units[start - 1]) { start -= 1 }
        var end = cursor
        while end < units.count, isWordUnit(units[end]) { end += 1 }
        // VS Code gives no value (not an empty one) when no word touches the cursor.
        return start == end ? nil : String(decoding: units[start..<end], as: UTF16.self)
    }

    private var comments: SnippetVariables.CommentSyntax? {
        languageID.flatMap(SnippetVariables.commentSyntax(forLanguage:))
    }

    // MARK: Random

    /// A version 4 UUID in lowercase, built from two draws of `random`.
    private var uuid: String {
        var high = random()
        var low = random()
        high = (high & ~0xF000) | 0x4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return hex(high >> 32, 8) + "-" + hex((high >> 16) & 0xFFFF, 4) + "-" + hex(high & 0xFFFF, 4) + "-"
            + hex(low >> 48, 4) + "-" + hex(low & 0xFFFF_FFFF_FFFF, 12)
    }

    // MARK: Date

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]
    private static let dayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    private static func padded(_ value: Int, width: Int = 2) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    private func dateValue(of name: String) -> String? {
        guard name.hasPrefix("CURRENT_") else { return nil }  // no calendar work for other (unknown) names
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .weekday, .hour, .minute, .second], from: date)
        switch name {
        case "CURRENT_YEAR": return parts.year.map { String($0) }
        case "CURRENT_YEAR_SHORT": return parts.year.map { Self.padded($0 % 100) }
        case "CURRENT_MONTH": return parts.month.map { Self.padded($0) }
        case "CURRENT_MONTH_NAME": return parts.month.map { Self.monthNames[$0 - 1] }
        case "CURRENT_MONTH_NAME_SHORT": return parts.month.map { String(Self.monthNames[$0 - 1].prefix(3)) }
        case "CURRENT_DATE": return parts.day.map { Self.padded($0) }
        case "CURRENT_DAY_NAME": return parts.weekday.map { Self.dayNames[$0 - 1] }
        case "CURRENT_DAY_NAME_SHORT": return parts.weekday.map { String(Self.dayNames[$0 - 1].prefix(3)) }
        case "CURRENT_HOUR": return parts.hour.map { Self.padded($0) }
        case "CURRENT_MINUTE": return parts.minute.map { Self.padded($0) }
        case "CURRENT_SECOND": return parts.second.map { Self.padded($0) }
        case "CURRENT_MILLISECOND":
            let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
            return Self.padded(Int(((milliseconds % 1000) + 1000) % 1000), width: 3)
        case "CURRENT_SECONDS_UNIX": return String(Int64(date.timeIntervalSince1970.rounded(.down)))
        case "CURRENT_MILLISECONDS_UNIX": return String(Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
        case "CURRENT_TIMEZONE_NAME": return timeZone.identifier
        case "CURRENT_TIMEZONE_OFFSET":
            let seconds = timeZone.secondsFromGMT(for: date)
            let minutes = abs(seconds) / 60
            return (seconds < 0 ? "-" : "+") + Self.padded(minutes / 60) + ":" + Self.padded(minutes % 60)
        default: return nil
        }
    }
}
