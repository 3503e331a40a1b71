import Testing

@testable import SnippetsCore

/// A resolver that knows exactly `values`.
private func resolver(_ values: [String: String]) -> (String) -> String? {
    { values[$0] }
}

@Suite struct BodyRenderingTests {
    // MARK: lspText

    @Test(arguments: BodyParserTests.wellFormed + BodyParserTests.malformed)
    func lspTextRoundTrips(_ testCase: BodyCase) {
        let body = SnippetBody.parse(testCase.body).body
        let reparsed = SnippetBody.parse(body.lspText())
        #expect(reparsed.body == body)
        // Broken constructs come back escaped, so only problems of kept constructs remain.
        #expect(Set(reparsed.problems.map(\.code.rawValue)).isSubset(of: ["unknown-variable", "invalid-regex", "backtracking-regex"]))
    }

    @Test(arguments: [
        // Text escapes `$`, `}` and `\`; a lone backslash comes back escaped.
        (#"\$1 a\b \}"#, #"\$1 a\\b \}"#),
        ("$$1", #"\$$1"#),
        ("price: $ 5", #"price: \$ 5"#),
        ("${1:a}b}", #"${1:a}b\}"#),
        ("${1|a\\,b,c|}", #"${1|a\,b,c|}"#),
        // Broken constructs come back as escaped text, so clients insert what VS Code inserts.
        ("${1:foo", #"\${1:foo"#),
        ("${TM_FILENAME_BASE/(.*)/${1:/upcase}/}", "${TM_FILENAME_BASE/(.*)/${1:/upcase}/}"),
        ("${1/(.*)/${1:/capitalize}/g}", "${1/(.*)/${1:/capitalize}/g}"),
        ("${1}", "$1"),
        ("${TM_FILENAME}", "$TM_FILENAME"),
        ("${TM_FILENAME:a $1}", "${TM_FILENAME:a $1}"),
    ])
    func lspTextEscapesEachContext(_ input: String, _ expected: String) {
        #expect(SnippetBody.parse(input).body.lspText() == expected)
    }

    @Test func bareReferencesTakeBracesBeforeNameCharacters() {
        let body = SnippetBody(elements: [
            .tabstop(1), .text("2"), .variable("TM_FILENAME", default: nil), .text("_x"), .tabstop(3), .text("-"),
            .variable("UUID", default: nil),
        ])
        #expect(body.lspText() == "${1}2${TM_FILENAME}_x$3-$UUID")
        #expect(SnippetBody.parse(body.lspText()).body == body)
        // A resolved variable that starts with a digit also forces braces on the tabstop before it.
        let year = SnippetBody(elements: [.tabstop(1), .variable("CURRENT_YEAR", default: nil)])
        #expect(year.lspText(resolving: resolver(["CURRENT_YEAR": "2026"])) == "${1}2026")
    }

    @Test func escapedTextInsertsLiterally() {
        let text = #"cost: $5 {a} \n ${1:x}"#
        #expect(SnippetBody.escaped(text) == #"cost: \$5 {a\} \\n \${1:x\}"#)
        #expect(SnippetBody.parse(SnippetBody.escaped(text)).body.elements == [.text(text)])
    }

    @Test func choiceOptionsEscapeCommaBarAndBackslash() {
        let body = SnippetBody(elements: [.choice(1, ["a,b", "c|d", #"e\f"#, "$x}"])])
        #expect(body.lspText() == #"${1|a\,b,c\|d,e\\f,$x}|}"#)
        #expect(SnippetBody.parse(body.lspText()).body == body)
    }

    @Test func resolvedVariablesBecomeEscapedText() {
        let body = SnippetBody.parse("File: $TM_FILENAME ${CLIPBOARD:none} $UNKNOWN_ONE $1").body
        let text = body.lspText(resolving: resolver(["TM_FILENAME": #"a$b}\c.swift"#]))
        #expect(text == #"File: a\$b\}\\c.swift ${CLIPBOARD:none} $UNKNOWN_ONE $1"#)
        // An unknown variable reads as its name (VS Code makes it a placeholder holding the name).
        #expect(SnippetBody.parse(text).body.plainText() == #"File: a$b}\c.swift none UNKNOWN_ONE "#)
    }

    @Test func resolvedVariableTransformsAreApplied() {
        let body = SnippetBody.parse("class ${TM_FILENAME_BASE/(.*)/${1:/pascalcase}/}: ${1/(.*)/${1:/upcase}/}").body
        #expect(
            body.lspText(resolving: resolver(["TM_FILENAME_BASE": "user_profile"]))
                == "class UserProfile: ${1/(.*)/${1:/upcase}/}")
        // Unresolved, the transform stays for the client.
        #expect(body.lspText() == "class ${TM_FILENAME_BASE/(.*)/${1:/pascalcase}/}: ${1/(.*)/${1:/upcase}/}")
    }

    // MARK: plainText

    @Test(arguments: [
        ("for ${1:i} in ${2|xs,ys|} {\n\t$0\n}", "for i in xs {\n\t\n}"),
        ("${1:Foo} $1 ${1/(.*)/${1:/upcase}/}", "Foo Foo FOO"),
        ("$1 ${1|a,b|}", "a a"),
        ("$1 ${1:Foo}", "Foo Foo"),
        // VS Code: the first placeholder with a default sets the text of every placeholder of that number.
        ("${1:} ${1:later} $1", "later later later"),
        ("${1:first} ${1:second}", "first first"),
        ("${0:end} $0", "end "),
        ("${1:outer ${2:inner}} $2", "outer inner inner"),
        // An unknown variable is its name (VS Code turns it into a placeholder holding it).
        ("${TM_SELECTED_TEXT:sel}|${UNKNOWN}|$CLIPBOARD", "sel|UNKNOWN|"),
        // A tabstop inside its own value is filled once more, then left empty (VS Code's cycle guard).
        ("${1:a $1}", "a a a "),
        (#"\$HOME is \\ and \}"#, #"$HOME is \ and }"#),
        ("${TM_FILENAME/(.*)/$1/}", ""),
        ("${1:x", "${1:x"),
    ])
    func plainTextAcceptsEveryDefault(_ input: String, _ expected: String) {
        #expect(SnippetBody.parse(input).body.plainText() == expected)
    }

    @Test func plainTextUsesResolvedValuesOverDefaults() {
        let body = SnippetBody.parse("${TM_SELECTED_TEXT:sel} ${TM_FILENAME_BASE/(.*)/${1:/upcase}/}.h").body
        #expect(
            body.plainText(resolving: resolver(["TM_SELECTED_TEXT": "chosen", "TM_FILENAME_BASE": "main"]))
                == "chosen MAIN.h")
    }

    @Test func bodySummaries() {
        let body = SnippetBody.parse("${TM_FILENAME:${CLIPBOARD}} ${1:$UUID} ${TM_FILENAME/a/b/} ${2/x/y/} $foo").body
        #expect(body.variableNames == ["TM_FILENAME", "CLIPBOARD", "UUID", "foo"])
        #expect(body.hasSnippetSyntax)
        #expect(!SnippetBody.parse(#"just text \$ and $"#).body.hasSnippetSyntax)
    }

    // MARK: markdownPreview

    @Test func markdownPreviewFencesLongerThanAnyBacktickRun() {
        let plain = SnippetBody.parse("print(${1:x})").body
        #expect(plain.markdownPreview(language: "python") == "```python\nprint(x)\n```")
        #expect(plain.markdownPreview(language: nil) == "```\nprint(x)\n```")
        let fenced = SnippetBody.parse("```swift\n${1:code}\n```\n").body
        #expect(fenced.markdownPreview(language: "markdown") == "````markdown\n```swift\ncode\n```\n````")
        #expect(
            SnippetBody.parse("a ````` b").body.markdownPreview(language: "bad lang`") == "``````bad\na ````` b\n``````"
        )
    }

    // MARK: Transforms

    @Test(arguments: [
        ("(.*)", "${1:/upcase}", "", "hello world", "HELLO WORLD"),
        ("(.*)", "${1:/downcase}", "", "Hello", "hello"),
        ("(.*)", "${1:/capitalize}", "", "hello world", "Hello world"),
        ("(.*)", "${1:/camelcase}", "", "foo-bar_baz qux", "fooBarBazQux"),
        ("(.*)", "${1:/pascalcase}", "", "foo-bar_baz", "FooBarBaz"),
        ("a", "b", "", "banana", "bbnana"),
        ("a", "b", "g", "banana", "bbnbnb"),
        ("A", "b", "gi", "banana", "bbnbnb"),
        ("^(\\w)", "[$1]", "gm", "ab\ncd", "[a]b\n[c]d"),
        ("(foo)?bar", "${1:?yes:no}", "", "bar", "no"),
        ("(foo)?bar", "${1:?yes:no}", "", "foobar", "yes"),
        // VS Code: with a value and no if-branch, `${1:-else}` gives the value itself.
        ("(foo)?bar", "${1:+has}${1:-none}", "", "foobar", "hasfoo"),
        ("(foo)?bar", "${1:+has}${1:-none}", "", "bar", "none"),
        ("(foo)?bar", "${1:else}", "", "bar", "else"),
        // No match: the value stays, unless the format has an else branch.
        ("^z", "$1", "", "abc", "abc"),
        ("^(z)", "${1:-none}", "", "abc", "none"),
        ("(.*)\\.(.*)", "$2 ${2} $9", "", "main.swift", "swift swift "),
        ("a\\/b", "c\\/d\\\\", "", "xa/by", "xc/d\\y"),
        ("(.*)", "$ {$1}", "", "v", "$ {v}"),
    ])
    func transformsApplyLikeVSCode(
        _ regex: String, _ format: String, _ options: String, _ value: String, _ expected: String
    ) {
        let transform = SnippetTransform(regex: regex, format: format, options: options)
        #expect(transform.optionsProblem == nil && transform.regexCompiles)
        #expect(transform.apply(to: value) == expected)
    }
}
