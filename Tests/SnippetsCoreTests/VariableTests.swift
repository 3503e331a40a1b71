import Foundation
import Testing

@testable import SnippetsCore

@Suite struct VariableTests {
    /// 2026-03-05T23:07:09Z, which is already Friday 6 March in UTC+01:00.
    static let instant = Date(timeIntervalSince1970: 1_772_752_029)

    static func context(
        timeZone: TimeZone = TimeZone(secondsFromGMT: 3600)!,
        random: @escaping @Sendable () -> UInt64 = { 0x0123_4567_89AB_CDEF }
    ) -> SnippetVariableContext {
        SnippetVariableContext(
            filePath: "/home/ana/projects/shop/Sources/cart.model.swift",
            workspaceFolders: ["/home/ana/notes", "/home/ana/projects/shop"],
            lineText: "let total = cartTotal(items)",
            lineIndex: 41,
            cursorUTF16Column: 16,
            languageID: "swift",
            date: instant,
            timeZone: timeZone,
            random: random)
    }

    @Test(arguments: [
        ("TM_FILENAME", "cart.model.swift"),
        ("TM_FILENAME_BASE", "cart.model"),
        ("TM_DIRECTORY", "/home/ana/projects/shop/Sources"),
        ("TM_DIRECTORY_BASE", "Sources"),
        ("TM_FILEPATH", "/home/ana/projects/shop/Sources/cart.model.swift"),
        ("RELATIVE_FILEPATH", "Sources/cart.model.swift"),
        ("REVERSE_RELATIVE_FILEPATH", ".."),
        ("WORKSPACE_NAME", "shop"),
        ("WORKSPACE_FOLDER", "/home/ana/projects/shop"),
        ("TM_LINE_INDEX", "41"),
        ("TM_LINE_NUMBER", "42"),
        ("TM_CURRENT_LINE", "let total = cartTotal(items)"),
        ("TM_CURRENT_WORD", "cartTotal"),
        ("CURSOR_INDEX", "0"),
        ("CURSOR_NUMBER", "1"),
        ("CURRENT_YEAR", "2026"),
        ("CURRENT_YEAR_SHORT", "26"),
        ("CURRENT_MONTH", "03"),
        ("CURRENT_MONTH_NAME", "March"),
        ("CURRENT_MONTH_NAME_SHORT", "Mar"),
        ("CURRENT_DATE", "06"),
        ("CURRENT_DAY_NAME", "Friday"),
        ("CURRENT_DAY_NAME_SHORT", "Fri"),
        ("CURRENT_HOUR", "00"),
        ("CURRENT_MINUTE", "07"),
        ("CURRENT_SECOND", "09"),
        ("CURRENT_SECONDS_UNIX", "1772752029"),
        ("CURRENT_MILLISECOND", "000"),
        ("CURRENT_MILLISECONDS_UNIX", "1772752029000"),
        ("CURRENT_TIMEZONE_OFFSET", "+01:00"),
        ("RANDOM", String(0x0123_4567_89AB_CDEF % 1_000_000)),
        ("RANDOM_HEX", "abcdef"),
        ("UUID", "01234567-89ab-4def-8123-456789abcdef"),
        ("LINE_COMMENT", "//"),
        ("BLOCK_COMMENT_START", "/*"),
        ("BLOCK_COMMENT_END", "*/"),
    ])
    func resolvesFromTheContext(_ name: String, _ expected: String) {
        #expect(SnippetVariables.isKnown(name), "\(name) is not in VS Code's list")
        #expect(Self.context().value(of: name) == expected)
    }

    @Test func unknowableAndUnknownVariablesAreNil() {
        let context = Self.context()
        #expect(context.value(of: "TM_SELECTED_TEXT") == nil)
        #expect(context.value(of: "CLIPBOARD") == nil)
        #expect(context.value(of: "NOT_A_VARIABLE") == nil)
        #expect(SnippetVariableContext(date: Self.instant).value(of: "TM_FILENAME") == nil)
        #expect(SnippetVariableContext(languageID: "klingon").value(of: "LINE_COMMENT") == nil)
    }

    @Test func everyKnownVariableTheServerCanKnowResolves() {
        let context = Self.context()
        let unresolved = SnippetVariables.known.filter { context.value(of: $0) == nil }
        #expect(unresolved == ["SELECTION", "CLIPBOARD", "TM_SELECTED_TEXT"])
        #expect(SnippetVariables.known.count == 40)
        #expect(SnippetVariables.isKnown("UUID") && !SnippetVariables.isKnown("uuid"))
    }

    @Test func timeZonesWithHalfHoursAndNegativeOffsets() {
        let india = Self.context(timeZone: TimeZone(secondsFromGMT: 5 * 3600 + 1800)!)
        #expect(india.value(of: "CURRENT_TIMEZONE_OFFSET") == "+05:30")
        #expect(india.value(of: "CURRENT_HOUR") == "04")
        let newfoundland = Self.context(timeZone: TimeZone(secondsFromGMT: -(3 * 3600 + 1800))!)
        #expect(newfoundland.value(of: "CURRENT_TIMEZONE_OFFSET") == "-03:30")
        #expect(newfoundland.value(of: "CURRENT_DAY_NAME") == "Thursday")
        #expect(newfoundland.value(of: "CURRENT_DATE") == "05")
    }

    @Test func randomValuesKeepTheirShape() {
        let context = Self.context(random: { 7 })
        #expect(context.value(of: "RANDOM") == "000007")
        #expect(context.value(of: "RANDOM_HEX") == "000007")
        let live = SnippetVariableContext()
        let uuid = live.value(of: "UUID") ?? ""
        #expect(uuid.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil)
        #expect(live.value(of: "RANDOM")?.wholeMatch(of: /[0-9]{6}/) != nil)
    }

    @Test(arguments: [
        ("let total = cartTotal(items)", 0, "let"),
        ("let total = cartTotal(items)", 3, "let"),
        // No word touches the cursor: VS Code gives no value (so a default applies), not an empty one.
        ("let total = cartTotal(items)", 11, nil),
        ("let total = cartTotal(items)", 28, nil),
        ("let total = cartTotal(items)", 27, "items"),
        ("naïve_word😀x", 5, "naïve_word😀x"),
        ("", 0, nil),
    ] as [(String, Int, String?)])
    func currentWordTouchesTheCursor(_ line: String, _ column: Int, _ expected: String?) {
        let context = SnippetVariableContext(lineText: line, cursorUTF16Column: column)
        #expect(context.value(of: "TM_CURRENT_WORD") == expected)
    }

    @Test(
        arguments: [
            ("python", "#", "\"\"\"", "\"\"\""),
            ("shellscript", "#", nil, nil),
            ("ruby", "#", "=begin", "=end"),
            ("lua", "--", "--[[", "]]"),
            ("html", nil, "<!--", "-->"),
            ("markdown", nil, "<!--", "-->"),
            ("css", nil, "/*", "*/"),
            ("sql", "--", "/*", "*/"),
            ("haskell", "--", "{-", "-}"),
            ("lisp", ";", "#|", "|#"),
            ("vim", "\"", nil, nil),
            ("latex", "%", nil, nil),
            ("yaml", "#", nil, nil),
            ("rust", "//", "/*", "*/"),
            ("typescriptreact", "//", "/*", "*/"),
            ("PHP", "//", "/*", "*/"),
        ] as [(String, String?, String?, String?)])
    func commentMarkersByLanguage(_ language: String, _ line: String?, _ start: String?, _ end: String?) {
        let context = SnippetVariableContext(languageID: language)
        #expect(context.value(of: "LINE_COMMENT") == line)
        #expect(context.value(of: "BLOCK_COMMENT_START") == start)
        #expect(context.value(of: "BLOCK_COMMENT_END") == end)
    }

    @Test func pathsOutsideAnyWorkspaceAndFromURIs() {
        let loose = SnippetVariableContext(filePath: "/tmp/notes", workspaceFolders: ["/home/ana/shop"])
        #expect(loose.value(of: "RELATIVE_FILEPATH") == "/tmp/notes")
        #expect(loose.value(of: "TM_FILENAME_BASE") == "notes")
        #expect(loose.value(of: "WORKSPACE_NAME") == "shop")
        #expect(SnippetVariableContext(filePath: "/tmp/.bashrc").value(of: "TM_FILENAME_BASE") == ".bashrc")
        #expect(
            DocumentURI("file:///home/ana/My%20Notes/a.md").filePath
                == "/home/ana/My Notes/a.md")
        #expect(DocumentURI("untitled:Untitled-1").filePath == nil)
    }

    @Test func resolverFeedsTheRenderers() {
        let body = SnippetBody.parse(
            "$LINE_COMMENT ${TM_FILENAME_BASE/(.*)/${1:/pascalcase}/} $CURRENT_YEAR-$CURRENT_MONTH $1"
        ).body
        let context = Self.context()
        #expect(body.lspText(resolving: context.resolver) == "// CartModel 2026-03 $1")
        #expect(body.plainText(resolving: context.resolver) == "// CartModel 2026-03 ")
    }

    /// The variables VS Code added after the first list (snippetVariables.ts): each is known (no "unknown variable"
    /// warning, not turned into a placeholder) and has VS Code's value.
    @Test func newerVSCodeVariablesHaveVSCodeValues() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let withMilliseconds = SnippetVariableContext(
            filePath: "/w/shop/a.swift", workspaceFolders: ["/w/shop"],
            date: Date(timeIntervalSince1970: 1_772_752_029.042), timeZone: berlin)
        #expect(withMilliseconds.value(of: "CURRENT_MILLISECOND") == "042")
        #expect(withMilliseconds.value(of: "CURRENT_MILLISECONDS_UNIX") == "1772752029042")
        #expect(withMilliseconds.value(of: "CURRENT_TIMEZONE_NAME") == "Europe/Berlin")
        // A file at the workspace root: `.`; two folders down: `../..`; outside every folder: no value.
        #expect(withMilliseconds.value(of: "REVERSE_RELATIVE_FILEPATH") == ".")
        let deep = SnippetVariableContext(filePath: "/w/shop/a/b/c.swift", workspaceFolders: ["/w/shop"])
        #expect(deep.value(of: "REVERSE_RELATIVE_FILEPATH") == "../..")
        #expect(deep.value(of: "TM_DIRECTORY_BASE") == "b")
        #expect(SnippetVariableContext(filePath: "/elsewhere/x.swift").value(of: "REVERSE_RELATIVE_FILEPATH") == nil)
        // The selection is never known to the server (completion inserts at the cursor).
        #expect(deep.value(of: "SELECTION") == nil)
        for name in [
            "TM_DIRECTORY_BASE", "SELECTION", "CURRENT_MILLISECOND", "CURRENT_MILLISECONDS_UNIX",
            "CURRENT_TIMEZONE_NAME", "REVERSE_RELATIVE_FILEPATH",
        ] {
            #expect(SnippetVariables.isKnown(name), "\(name)")
            #expect(SnippetBody.parse("${\(name)}").problems.isEmpty, "\(name) is warned about")
        }
        #expect(SnippetVariables.known.count == 40)
    }
}
