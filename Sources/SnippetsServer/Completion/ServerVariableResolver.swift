import Foundation
import SnippetsCore

/// Values for the snippet variables the server can compute (file, line, date, comments ...), for clients that
/// cannot resolve them themselves. Tabstops, placeholders and choices are never touched.
public struct ServerVariableResolver: Sendable {
    /// The document's `file://` URI.
    public var documentURI: String
    /// The document's language identifier.
    public var languageID: String
    /// Workspace folder paths; the first that contains the document names `WORKSPACE_NAME`.
    public var workspaceFolders: [String]
    /// The cursor line's text, without its line break.
    public var currentLine: String
    /// The zero-based cursor line.
    public var lineIndex: Int
    /// The word around the cursor.
    public var currentWord: String
    /// The moment of the completion.
    public var now: Date
    /// The time zone for `CURRENT_*`.
    public var timeZone: TimeZone

    public init(
        documentURI: String, languageID: String, workspaceFolders: [String], currentLine: String, lineIndex: Int,
        currentWord: String, now: Date, timeZone: TimeZone = .current
    ) {
        self.documentURI = documentURI
        self.languageID = languageID
        self.workspaceFolders = workspaceFolders
        self.currentLine = currentLine
        self.lineIndex = lineIndex
        self.currentWord = currentWord
        self.now = now
        self.timeZone = timeZone
    }

    private var filePath: String? { URL(string: documentURI).flatMap { $0.isFileURL ? $0.path : nil } }

    private var workspaceFolder: String? {
        guard let filePath else { return workspaceFolders.first }
        return workspaceFolders.first { filePath.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") } ?? workspaceFolders.first
    }

    /// The value of variable `name`, or nil when the server does not know it (it then stays for the client).
    public func value(of name: String) -> String? {
        switch name {
        case "TM_FILENAME": return filePath.map { ($0 as NSString).lastPathComponent }
        case "TM_FILENAME_BASE":
            return filePath.map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension }
        case "TM_DIRECTORY": return filePath.map { ($0 as NSString).deletingLastPathComponent }
        case "TM_FILEPATH": return filePath
        case "RELATIVE_FILEPATH":
            guard let filePath else { return nil }
            guard let folder = workspaceFolder, filePath.hasPrefix(folder) else { return filePath }
            return String(filePath.dropFirst(folder.count).drop { $0 == "/" })
        case "WORKSPACE_NAME": return workspaceFolder.map { ($0 as NSString).lastPathComponent }
        case "WORKSPACE_FOLDER": return workspaceFolder
        case "TM_LINE_NUMBER": return String(lineIndex + 1)
        case "TM_LINE_INDEX": return String(lineIndex)
        case "TM_CURRENT_LINE": return currentLine
        case "TM_CURRENT_WORD": return currentWord
        case "UUID": return UUID().uuidString.lowercased()
        case "RANDOM": return String(format: "%06d", Int.random(in: 0..<1_000_000))
        case "RANDOM_HEX": return String(format: "%06x", Int.random(in: 0..<0x1000000))
        case "LINE_COMMENT": return CommentSyntax.of(languageID).line
        case "BLOCK_COMMENT_START": return CommentSyntax.of(languageID).block?.start
        case "BLOCK_COMMENT_END": return CommentSyntax.of(languageID).block?.end
        default: return dateValue(of: name)
        }
    }

    private func dateValue(of name: String) -> String? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: now)
        let symbols = DateFormatter()
        symbols.locale = Locale(identifier: "en_US_POSIX")
        func two(_ number: Int?) -> String { String(format: "%02d", number ?? 0) }
        switch name {
        case "CURRENT_YEAR": return String(parts.year ?? 0)
        case "CURRENT_YEAR_SHORT": return two((parts.year ?? 0) % 100)
        case "CURRENT_MONTH": return two(parts.month)
        case "CURRENT_MONTH_NAME": return symbols.monthSymbols[(parts.month ?? 1) - 1]
        case "CURRENT_MONTH_NAME_SHORT": return symbols.shortMonthSymbols[(parts.month ?? 1) - 1]
        case "CURRENT_DATE": return two(parts.day)
        case "CURRENT_DAY_NAME": return symbols.weekdaySymbols[(parts.weekday ?? 1) - 1]
        case "CURRENT_DAY_NAME_SHORT": return symbols.shortWeekdaySymbols[(parts.weekday ?? 1) - 1]
        case "CURRENT_HOUR": return two(parts.hour)
        case "CURRENT_MINUTE": return two(parts.minute)
        case "CURRENT_SECOND": return two(parts.second)
        case "CURRENT_SECONDS_UNIX": return String(Int(now.timeIntervalSince1970))
        case "CURRENT_TIMEZONE_OFFSET":
            let seconds = timeZone.secondsFromGMT(for: now)
            let sign = seconds < 0 ? "-" : "+"
            return sign + two(abs(seconds) / 3600) + ":" + two(abs(seconds) % 3600 / 60)
        default: return nil
        }
    }
}

/// Line and block comment markers of a language, for `LINE_COMMENT` and `BLOCK_COMMENT_*`.
public struct CommentSyntax: Hashable, Sendable {
    /// The line comment marker, if the language has one.
    public var line: String?
    /// The block comment markers, if the language has them.
    public var block: (start: String, end: String)? {
        blockStart.map { ($0, blockEnd ?? "") }
    }
    private var blockStart: String?
    private var blockEnd: String?

    private init(line: String?, block: (String, String)?) {
        self.line = line
        self.blockStart = block?.0
        self.blockEnd = block?.1
    }

    /// The markers for a language identifier (VS Code's names); `//` and `/* */` when unknown.
    public static func of(_ languageID: String) -> CommentSyntax {
        switch languageID.lowercased() {
        case "python": CommentSyntax(line: "#", block: ("\"\"\"", "\"\"\""))
        case "ruby": CommentSyntax(line: "#", block: ("=begin", "=end"))
        case "shellscript", "sh", "bash", "zsh", "fish", "perl", "r", "yaml", "toml", "makefile", "make",
            "dockerfile", "elixir", "julia", "nim", "coffeescript", "powershell", "cmake", "gitignore", "ini":
            CommentSyntax(line: "#", block: nil)
        case "lua": CommentSyntax(line: "--", block: ("--[[", "]]"))
        case "sql", "plsql": CommentSyntax(line: "--", block: ("/*", "*/"))
        case "haskell", "elm": CommentSyntax(line: "--", block: ("{-", "-}"))
        case "html", "xml", "markdown", "svg", "vue-html": CommentSyntax(line: nil, block: ("<!--", "-->"))
        case "css": CommentSyntax(line: nil, block: ("/*", "*/"))
        case "vim", "viml": CommentSyntax(line: "\"", block: nil)
        case "lisp", "clojure", "scheme", "racket", "commonlisp": CommentSyntax(line: ";", block: nil)
        case "latex", "tex", "bibtex", "erlang", "prolog": CommentSyntax(line: "%", block: nil)
        case "matlab": CommentSyntax(line: "%", block: ("%{", "%}"))
        case "ocaml": CommentSyntax(line: nil, block: ("(*", "*)"))
        case "fsharp": CommentSyntax(line: "//", block: ("(*", "*)"))
        default: CommentSyntax(line: "//", block: ("/*", "*/"))
        }
    }

    public static func == (lhs: CommentSyntax, rhs: CommentSyntax) -> Bool {
        lhs.line == rhs.line && lhs.blockStart == rhs.blockStart && lhs.blockEnd == rhs.blockEnd
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(line)
        hasher.combine(blockStart)
        hasher.combine(blockEnd)
    }
}
