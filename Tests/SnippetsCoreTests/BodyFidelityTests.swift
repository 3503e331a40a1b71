import Foundation
import Testing

@testable import SnippetsCore

/// The points where the body grammar used to disagree with VS Code (issue 11), each checked three ways: the plain
/// text a client without snippets gets, the snippet text a snippet client gets (which must read back in the parser
/// as the same snippet), and with the variables resolved on the server (Helix, Zed).
@Suite struct BodyFidelityTests {
    /// A server-side variable context: a saved file in a workspace, no selection, no clipboard.
    static let context = SnippetVariableContext(
        filePath: "/w/shop/Sources/cart_view.swift", workspaceFolders: ["/w/shop"], lineText: "", lineIndex: 0,
        cursorUTF16Column: 0, languageID: "swift", date: Date(timeIntervalSince1970: 0),
        timeZone: TimeZone(identifier: "America/New_York")!)

    /// The three renderings of `body`.
    struct Rendered {
        var plain: String
        var vscode: String
        var helix: String
    }

    static func render(_ body: String) -> Rendered {
        let parsed = SnippetBody.parse(body).body
        return Rendered(
            plain: parsed.plainText(resolving: context.resolver),
            vscode: parsed.insertText(for: .vscode),
            helix: parsed.insertText(for: .helix, resolving: context.resolver))
    }

    /// Snippet text reads back, in the same parser, as a body whose plain text is the expected one: what VS Code
    /// would insert when every default is accepted.
    static func readsBack(_ snippetText: String, as plain: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let reparsed = SnippetBody.parse(snippetText)
        #expect(
            reparsed.problems.filter { $0.severity == .error }.isEmpty, "\(snippetText)",
            sourceLocation: sourceLocation)
        #expect(reparsed.body.plainText() == plain, "\(snippetText)", sourceLocation: sourceLocation)
    }

    @Test func unknownVariableIsInsertedAsItsNameInAPlaceholder() {
        let rendered = Self.render("a${MISSING_VAR}a")
        #expect(rendered.plain == "aMISSING_VARa")
        #expect(rendered.vscode == "a${1:MISSING_VAR}a")
        #expect(rendered.helix == "a${1:MISSING_VAR}a")
        Self.readsBack(rendered.vscode, as: "aMISSING_VARa")
        // VS Code's numbering: after the highest tabstop, one number per name; known variables stay.
        #expect(SnippetBody.parse("$1 and $SELECTION and $foo").body.insertText(for: .vscode)
            == "$1 and $SELECTION and ${2:foo}")
        #expect(SnippetBody.parse("$foo and $foo").body.insertText(for: .vscode) == "${1:foo} and ${1:foo}")
        // A default wins over the name.
        #expect(Self.render("${MISSING:fallback}").plain == "fallback")
        // As in VS Code's loader, a transform of an unknown variable is dropped for the placeholder, and a variable
        // inside another variable's default is left alone (and so inserts nothing).
        #expect(Self.render("${FOO/(.*)/x/}").plain == "FOO")
        #expect(Self.render("${FOO/(.*)/x/}").vscode == "${1:FOO}")
        #expect(Self.render("<${TM_SELECTED_TEXT:$foo}>").plain == "<>")
        // And `check` says what the editor does.
        let problem = SnippetBody.parse("a${MISSING_VAR}a").problems.first
        #expect(problem?.code == DiagnosticCode.unknownVariable)
        #expect(problem?.message.contains("inserts its name as a placeholder") == true)
    }

    @Test func variablesVSCodeAddedAreKnownAndResolved() {
        for name in ["TM_DIRECTORY_BASE", "REVERSE_RELATIVE_FILEPATH", "CURRENT_TIMEZONE_NAME", "CURRENT_MILLISECOND"] {
            #expect(SnippetBody.parse("${\(name)}").problems.isEmpty, "\(name)")
        }
        let rendered = Self.render("$TM_DIRECTORY_BASE|$REVERSE_RELATIVE_FILEPATH|$CURRENT_TIMEZONE_NAME|$SELECTION")
        #expect(rendered.plain == "Sources|..|America/New_York|")
        #expect(rendered.helix == "Sources|..|America/New_York|")
        // VS Code resolves them itself.
        #expect(rendered.vscode == "$TM_DIRECTORY_BASE|$REVERSE_RELATIVE_FILEPATH|$CURRENT_TIMEZONE_NAME|$SELECTION")
    }

    @Test func invalidRegexMakesTheWholeTransformLiteralText() {
        // From VS Code's snippetParser.test.ts ("invalid regex"): an unclosed group.
        let body = "${TM_FILENAME/([A-Z][a-z]/format/}"
        let parse = SnippetBody.parse(body)
        #expect(parse.body.elements == [.text(body)])
        #expect(parse.problems.map(\.code) == [DiagnosticCode.invalidRegex])
        #expect(parse.problems.first?.severity == .error)
        let rendered = Self.render(body)
        #expect(rendered.plain == body)
        #expect(rendered.helix == rendered.vscode)
        Self.readsBack(rendered.vscode, as: body)
        // JavaScript rejects what ICU would take (a possessive quantifier, an inline flag group) ...
        for javaScriptRejects in ["${1/a++/b/}", "${1/(?i)a/b/}", "${1/(?>a)/b/}", "${1/*a/b/}"] {
            #expect(SnippetBody.parse(javaScriptRejects).body.elements == [.text(javaScriptRejects)], "\(javaScriptRejects)")
        }
        // ... and accepts what ICU would not (`[^]` is any character, a lone `{` is a brace, `\A` is "A").
        let anything = SnippetBody.parse("${TM_FILENAME/^[^]{4}/x{/}").body
        #expect(anything.plainText(resolving: Self.context.resolver) == "x{_view.swift")
        let identity = SnippetBody.parse(#"${TM_FILENAME/\A/a/}"#).body
        #expect(identity.plainText(resolving: { _ in "AAA" }) == "aAA")
        // JavaScript's \w and \d are ASCII ("café".replace(/(\w+)/, "[$1]") is "[caf]é"), and its `$` is the end of
        // the input only (no match before a final line break).
        let word = SnippetBody.parse(#"${TM_FILENAME/(\w+)/[$1]/}"#).body
        #expect(word.plainText(resolving: { _ in "café.txt" }) == "[caf]é.txt")
        let digits = SnippetBody.parse(#"${TM_FILENAME/[\d]+/#/g}"#).body
        #expect(digits.plainText(resolving: { _ in "a١2" }) == "a١#")
        let end = SnippetBody.parse("${TM_CURRENT_LINE/x$/y/}").body
        #expect(end.plainText(resolving: { _ in "ax\n" }) == "ax\n")
        #expect(end.plainText(resolving: { _ in "ax" }) == "ay")
        let multiline = SnippetBody.parse("${TM_CURRENT_LINE/x$/y/m}").body
        #expect(multiline.plainText(resolving: { _ in "ax\nb" }) == "ay\nb")
    }

    @Test func firstPlaceholderWithADefaultDefinesEveryOccurrence() {
        let rendered = Self.render("${1} ${1:asdf} ${1|a,b|}")
        #expect(rendered.plain == "asdf asdf asdf")
        #expect(rendered.helix == "${1:asdf} ${1:asdf} ${1:asdf}")
        #expect(rendered.vscode == "$1 ${1:asdf} ${1|a,b|}")  // VS Code applies the rule itself
        Self.readsBack(rendered.vscode, as: "asdf asdf asdf")
        Self.readsBack(rendered.helix, as: "asdf asdf asdf")
        // A first choice defines the value too; later defaults are ignored.
        #expect(Self.render("${1|a,b|} ${1:x} $1").plain == "a a a")
        #expect(Self.render("${1:foo}-abc-${1:bar}").plain == "foo-abc-foo")
    }

    @Test func transformOfAnUnsetVariableRunsOnTheEmptyString() {
        let rendered = Self.render("${TM_SELECTED_TEXT/(.*)/ asd /}")
        #expect(rendered.plain == " asd ")
        #expect(rendered.helix == " asd ")
        #expect(rendered.vscode == "${TM_SELECTED_TEXT/(.*)/ asd /}")
        Self.readsBack(rendered.vscode, as: " asd ")
        // An else branch applies to the empty value too.
        #expect(Self.render("${CLIPBOARD/(.+)/${1:?full:empty}/}").plain == "empty")
    }

    @Test func slashInsideAConditionalIsText() {
        let body = "${TM_FILENAME_BASE/(.+)/${1:+a/b}/}"
        let parse = SnippetBody.parse(body)
        #expect(parse.problems.isEmpty)
        #expect(
            parse.body.elements == [
                .transform(.variable("TM_FILENAME_BASE"), SnippetTransform(regex: "(.+)", format: "${1:+a/b}", options: ""))
            ])
        let rendered = Self.render(body)
        #expect(rendered.plain == "a/b")
        #expect(rendered.helix == "a/b")
        #expect(rendered.vscode == body)
        Self.readsBack(rendered.vscode, as: "")  // unresolved in the parser's own plain text: the empty value
        // In the if and else parts of `?` too, and on a tabstop.
        let tabstop = SnippetBody.parse("${1:x}${1/(x)|y/${1:?a/b:c/d}/}").body
        #expect(tabstop.plainText() == "xa/b")
        #expect(SnippetBody.parse(tabstop.lspText()).body == tabstop)
    }

    @Test func choiceOnTheFinalTabstopFollowsVSCode() throws {
        let body = "${0|a,b|}"
        let parse = SnippetBody.parse(body)
        #expect(parse.body.elements == [.text(body)])
        let problem = try #require(parse.problems.first)
        #expect(problem.code == DiagnosticCode.choiceOnFinalTabstop)
        #expect(problem.message.contains("VS Code"))
        let rendered = Self.render(body)
        #expect(rendered.plain == body)
        #expect(rendered.vscode == #"\${0|a,b|\}"#)
        #expect(rendered.helix == rendered.vscode)
        Self.readsBack(rendered.vscode, as: body)
        // A choice on any other tabstop is a choice.
        #expect(SnippetBody.parse("${1|a,b|}").body.elements == [.choice(1, ["a", "b"])])
    }

    // MARK: Per-engine rendering

    @Test func eachEngineGetsWhatItCanHandle() {
        let body = SnippetBody.parse("${1|one,two|} `date` ${2:x} ${2/(.*)/${1:/upcase}/} $TM_FILENAME $CLIPBOARD").body
        let resolve = Self.context.resolver
        #expect(body.insertText(for: .vscode) == "${1|one,two|} `date` ${2:x} ${2/(.*)/${1:/upcase}/} $TM_FILENAME $CLIPBOARD")
        // Helix and Neovim would insert a choice empty: its first option goes in as a placeholder. Zed inserts it.
        #expect(body.insertText(for: .helix, resolving: resolve) == "${1:one} `date` ${2:x} $2 cart_view.swift ")
        #expect(body.insertText(for: .zed, resolving: resolve) == "${1|one,two|} `date` ${2:x} $2 cart_view.swift ")
        #expect(body.insertText(for: .neovim, resolving: resolve) == "${1:one} `date` ${2:x} $2 cart_view.swift ")
        // An engine the server does not know may be yasnippet: the backquote sends the body as plain text.
        #expect(body.insertion(for: .generic, resolving: resolve) == SnippetInsertion(text: "one `date` x X cart_view.swift ", isSnippet: false))
        // yasnippet: no choices, and backquotes would run Emacs Lisp.
        #expect(body.insertText(for: .yasnippet, resolving: resolve) == #"${1:one} \`date\` ${2:x} $2 cart_view.swift "#)
        #expect(body.insertText(for: .plain, resolving: resolve) == "one `date` x X cart_view.swift ")
    }

    @Test func lossesPerEngine() {
        let body = SnippetBody.parse("${1|one,two|} ${2:a ${3:b}} ${2/(.*)/${1:/upcase}/} $CLIPBOARD $UNKNOWN").body
        #expect(body.losses(in: .vscode).isEmpty)
        #expect(body.losses(in: .helix).map(\.kind) == [.choice, .transform, .editorVariable])
        #expect(body.losses(in: .neovim).map(\.kind) == [.choice, .nestedPlaceholder, .transform, .editorVariable])
        #expect(body.losses(in: .zed).map(\.kind) == [.transform, .editorVariable])
        #expect(body.losses(in: .yasnippet).map(\.kind) == [.choice, .transform, .editorVariable])
        // Plain text loses every stop: 1, 2, 3 and the unknown variable's placeholder (4).
        let plain = body.losses(in: .plain).map(\.kind)
        #expect(plain.filter { $0 == .tabstop }.count == 4)
        #expect(plain.contains(.choice) && plain.contains(.editorVariable))
    }

    @Test func sharedValuesThatDoubleAtEachLevelStayBounded() {
        // `${2:$1$1}` doubles tabstop 1's value, `${3:$2$2}` doubles again: spelled out, 40 levels would be 2^40
        // copies. Past a budget the body is left as written (the client fills the mirrors itself).
        var body = "${1:x}"
        for level in 2...40 { body += "${\(level):$\(level - 1)$\(level - 1)}" }
        let parsed = SnippetBody.parse(body).body
        #expect(parsed.withSharedTabstopValues() == parsed)
        #expect(parsed.plainText().count < 10_000)
        #expect(parsed.insertText(for: .helix).count < 10_000)
        // A few levels are spelled out in full.
        #expect(SnippetBody.parse("${1:x}${2:$1$1}${3:$2$2}").body.plainText() == "xxxxxxx")
    }

    @Test func yasnippetNeverGetsAnUnescapedBackquote() {
        let body = SnippetBody.parse("`(shell-command \"x\")` ${1|`a`,b|} ${2:`c`}").body
        var yasnippetKeepingChoices = SnippetEngine.yasnippet
        yasnippetKeepingChoices.keepsChoices = true
        for engine in [SnippetEngine.yasnippet, yasnippetKeepingChoices] {
            let text = body.insertText(for: engine)
            let units = Array(text.utf16)
            for (offset, unit) in units.enumerated() where unit == 0x60 {
                #expect(offset > 0 && units[offset - 1] == 0x5C, "\(text)")
            }
        }
    }
}

/// yasnippet 0.14's reading of snippet text, as far as it runs code (`yas--snippet-parse-create`): the check every
/// text for an engine that may be yasnippet passes before it is sent as a snippet.
@Suite struct YasnippetReadingTests {
    @Test(arguments: [
        // Backquotes run unless a backslash comes right before them (yasnippet protects `\``, whatever precedes).
        ("`(emacs-version)`", true), (#"\`(emacs-version)\`"#, false), (#"\\`x\\`"#, false), ("a ` b", true),
        // `$(…)` and `$$(…)` in a field, and `${1:$(…)}` as a mirror, are Lisp; `\$` is protected...
        ("${1:$(upcase yas-text)}", true), ("${1:a$$(upcase yas-text)}", true), ("${2:x} $ (y)", true),
        (#"${1:\$(upcase yas-text)}"#, false), (#"\$\$(x)"#, false),
        // ...unless the backslash before it is itself escaped (`\\` is protected first).
        (#"\\$(x)"#, true), (#"\\\$(x)"#, false),
        // What the server writes for plain text.
        ("Hi ${1:name}, $2 {braces} \\} (parens)", false), ("$1(x)", false),
    ] as [(String, Bool)])
    func readsLikeYasnippet(_ text: String, _ runs: Bool) {
        #expect(YasnippetReading.wouldEvaluate(text) == runs, "\(text)")
    }

    @Test func nothingTheServerWritesForYasnippetRuns() {
        // Every construct, with every character yasnippet treats specially in its text, options and defaults.
        let nasty = #"`a` $(b) $$(c) \\ \` \$ ( ) { } " '"#
        let escapedNasty = nasty.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "$", with: "\\$")
            .replacingOccurrences(of: "}", with: "\\}")
        let options = nasty.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ",", with: "\\,")
            .replacingOccurrences(of: "|", with: "\\|")
        let body = SnippetBody.parse(
            "\(escapedNasty) ${1:\(escapedNasty)} ${2|\(options),b|} ${3:${4:\(escapedNasty)}} ${TM_FILENAME:\(escapedNasty)}"
        ).body
        for choices in [false, true] {
            var engine = SnippetEngine.yasnippet
            engine.keepsChoices = choices
            let insertion = body.insertion(for: engine, resolving: { $0 == "TM_FILENAME" ? "`x` $(y)" : nil })
            #expect(insertion.isSnippet, "escaping alone keeps it a snippet")
            #expect(!YasnippetReading.wouldEvaluate(insertion.text), "\(insertion.text)")
        }
    }
}
