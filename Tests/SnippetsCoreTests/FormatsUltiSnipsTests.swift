import Testing

@testable import SnippetsCore

/// UltiSnips files: recognised by folder or content, headers split as UltiSnips splits them, bodies converted to LSP
/// syntax, code never run and every note at the place it is about.
@Suite struct FormatsUltiSnipsTests {
    static let python = """
        priority -50
        extends django

        # A comment
        snippet def "function definition" b
        def ${1:name}(${2}):
        \t${0:pass}
        endsnippet

        snippet "if(\\w+)" "regex if" r
        if ${1:cond}:
        endsnippet

        snippet cls "class" bA
        class ${1:`!p snip.rv = snip.basename`}:
        \t`!v g:snips_author`
        endsnippet

        global !p
        def helper(): pass
        endglobal

        post_jump "helper()"
        snippet up "upper mirror"
        ${1:word} ${1/(\\w+)/\\u$1/g} `!p snip.rv = t[1].upper()`
        endsnippet

        """

    /// The 0-based line and UTF-8 column of the first `needle` in `text`, counted here, not by the loader.
    static func place(of needle: String, in text: String) -> (line: Int, column: Int) {
        let prefix = text.components(separatedBy: needle)[0]
        let lines = prefix.components(separatedBy: "\n")
        return (lines.count - 1, lines.last!.utf8.count)
    }

    @Test func readsHeadersOptionsPriorityExtendsAndBodies() throws {
        let library = loadLibrary(["/lib/UltiSnips/python.snippets": Self.python])
        let file = try #require(library.files.first)
        #expect(file.format == .ultisnips)
        #expect(!file.diagnostics.contains { $0.severity <= .warning }, "\(file.diagnostics)")
        #expect(library.snippets.map(\.title) == ["function definition", "regex if", "class", "upper mirror"])
        let def = library.snippets[0]
        #expect(def.triggers == ["def"])
        #expect(def.body == "def ${1:name}(${2}):\n\t${0:pass}")
        #expect(def.scopes == ["python"])
        #expect(def.priority == -50)
        #expect(def.isLineStartOnly)
        #expect(def.location.range.start.line == 4)
        #expect(def.location.range.end.line == 7)
        #expect(library.snippets[1].triggers == ["if"])
        #expect(library.snippets[2].body == "class ${1:${TM_FILENAME_BASE}}:\n\t")
        #expect(library.snippets[3].body == "${1:word} ${1/(\\w+)/${1:/capitalize}/g} ${1/(.*)/${1:/upcase}/s}")
        #expect(file.extensions == ["python": ["django"]])
    }

    @Test func everyNoteIsAtTheConstructItIsAbout() throws {
        let library = loadLibrary(["/lib/UltiSnips/python.snippets": Self.python])
        let notes = library.files[0].diagnostics.map { "\($0.code) \($0.position.line):\($0.position.utf8Column)" }
        func at(_ code: DiagnosticCode, _ needle: String, plus: Int = 0) -> String {
            let place = Self.place(of: needle, in: Self.python)
            return "\(code) \(place.line):\(place.column + plus)"
        }
        #expect(notes == [
            at(UltiSnipsCode.option, " r\n", plus: 1),  // the options word
            at(UltiSnipsCode.option, "bA\n"),  // 'A'
            at(UltiSnipsCode.code, "`!p snip.rv = snip.basename"),  // the backtick
            at(UltiSnipsCode.code, "`!v g:snips"),
            at(UltiSnipsCode.global, "global !p"),
            at(UltiSnipsCode.action, "post_jump"),
            at(UltiSnipsCode.code, "`!p snip.rv = t[1]"),
        ])
        let message = library.files[0].diagnostics[3].message
        #expect(message.contains("is not run") && message.contains("left out"))
    }

    @Test func aSnippetsFileOfEndsnippetEntriesIsUltiSnipsAnywhereAndSnipMateStaysSnipMate() {
        let library = loadLibrary([
            "/lib/go.snippets": "snippet fn \"func\"\nfunc $1() {\n\t$0\n}\nendsnippet\n",
            "/lib/snippets/c.snippets": "snippet fn\n\tvoid ${1}() {}\n",
            "/lib/ultisnips/rust.snippets": "priority -50\nextends c\n",
        ])
        #expect(library.files.map(\.format) == [.ultisnips, .snipmate, .ultisnips])
        #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
        #expect(library.snippets.map(\.body) == ["func $1() {\n\t$0\n\\}", "void ${1}() {}"])
        #expect(library.snippets.map(\.scopes) == [["go"], ["c"]])
        #expect(library.files[2].extensions == ["rust": ["c"]])
    }

    @Test func aMissingEndsnippetIsAnErrorAtItsHeaderAndEarlierSnippetsStay() throws {
        let text = "snippet ok\nfine\nendsnippet\n\nsnippet broken \"never ends\"\ntext\n"
        let library = loadLibrary(["/lib/UltiSnips/all.snippets": text])
        #expect(library.snippets.map(\.title) == ["ok"])
        let problem = try #require(library.diagnostics.first)
        #expect(problem.code == UltiSnipsCode.missingEnd)
        #expect(problem.severity == .error)
        #expect(problem.position.line == 4 && problem.position.utf8Column == 0)
    }

    @Test(arguments: [
        // (UltiSnips search, format, options) → LSP `regex/format/flags`, or nil when it is kept as text.
        ("foo", "batzl", "", "foo/batzl/"),
        ("(.)", "\\u$1", "", "(.)/${1:/capitalize}/s"),
        (".+", "\\U$0\\E", "", ".+/${0:/upcase}/s"),
        ("(?P<word>\\w+) (?P=word)", "$1", "g", "(?<word>\\w+) \\k<word>/${1}/g"),
        ("\\Afoo\\Z", "x", "", "^foo$/x/"),
        ("(?i)abc", "x", "", "abc/x/i"),
        ("a{,3}", "x", "", "a{0,3}/x/"),
        ("(x)?", "(?1:yes:no)", "", "(x)?/${1:?yes:no}/"),
        ("(x)?", "(?1:yes)", "", "(x)?/${1:+yes}/"),
        ("( \\*)?$", "(?1:$1: )", "", "( \\*)?$/${1:- }/"),
        ("[]a]", "a/b", "", "[\\]a]/a\\/b/"),
        (".", "\\l$0", "", "./${0:/downcase}/s"),
        // Conditionals holding groups or ':' (SirVer/ultisnips test/test_Transformation.py,
        // Transformation_InsideTabLeaveAtDefault_ECR, _CIEscapedParensinReplace_ECR, _ConditionalWithEscapedDelimiter):
        // each text as `${N:+…}`, each group that can only match inside group N as itself.
        (".+", "(?0:defined $0)", "", ".+/defined ${0}/s"),
        ("hal((?:lo)|(?:ul))", "(?1:ha\\($1\\))", "", "hal((?:lo)|(?:ul))/${1:+ha(}${1}${1:+)}/"),
        ("(aa)|.*", "(?1:yes\\:no\\))", "", "(aa)|.*/${1:+yes:no)}/s"),
        ("(a(b)?)?", "(?1:<$2>)", "", "(a(b)?)?/${1:+<}${2}${1:+>}/"),
        ("(x)?", "(?1:$1:a\\:b/c)", "", "(x)?/${1:-a:b/c}/"),
    ])
    func transformationsWithTheSameMeaningAreConverted(_ search: String, _ format: String, _ options: String, _ lsp: String) throws {
        let converted = try UltiSnipsTransformation.convert(search: search, replace: format, options: options).get()
        #expect("\(converted.regex)/\(converted.format)/\(converted.flags)" == lsp)
    }

    @Test(arguments: [
        ("(.*)", "\\l$1", ""),  // lower-casing the first letter only
        ("x", "y", "a"),  // ASCII transliteration
        ("a(?i)b", "y", ""),  // inline flags inside
        ("(?(1)a|b)", "y", ""),  // conditional group
        ("a*+", "y", ""),  // possessive
        ("(x)?", "(?1::no)", ""),  // LSP's `${1:-no}` would give the group
        ("(x)|y", "(?1:_:\\L$0)", "g"),  // a group in a conditional
        ("(a)(b)?", "(?2:$1)", ""),  // group 1 may match where group 2 did not
        ("(x)?", "(?1:a\\:b:c)", ""),  // ':' in the if-text of LSP's `${1:?if:else}`
        ("(x)?", "(?1:<$1>:none)", ""),  // groups and an 'otherwise' text
    ])
    func transformationsThatWouldMeanSomethingElseAreRefused(_ search: String, _ format: String, _ options: String) {
        #expect(throws: UltiSnipsTransformation.Refusal.self) {
            try UltiSnipsTransformation.convert(search: search, replace: format, options: options).get()
        }
    }

    @Test func aRefusedTransformationIsKeptAsTextWithANoteAtIt() throws {
        let text = "snippet t\n$1 ${1/(.*)/\\l$1/}\nendsnippet\n"
        let library = loadLibrary(["/lib/UltiSnips/all.snippets": text])
        let snippet = try #require(library.snippets.first)
        #expect(SnippetBody.parse(snippet.body).body.plainText() == #" ${1/(.*)/\l$1/}"#)
        let note = try #require(library.diagnostics.first { $0.code == UltiSnipsCode.transformation })
        #expect(note.position.line == 1 && note.position.utf8Column == 3)
        #expect(note.message.contains("lower-case the first letter"))
    }

    @Test(arguments: [("lorem(\\d+)?", "lorem"), ("(\\d+)x", ""), ("^im(port)?", "im"), ("ab?c", "a"), ("a|b", ""), ("\\.\\.", "..")])
    func aRegularExpressionTriggerIsOfferedByItsLiteralStart(_ regex: String, _ prefix: String) {
        #expect(UltiSnipsReader.literalPrefix(ofRegex: regex) == prefix)
    }

    @Test(arguments: [
        (#"snippet testsnip "Test Snippet" b!"#, "testsnip", #""Test Snippet""#, "b!"),
        (#"snippet /test snip/"#, "test snip", nil, ""),
        (#"snippet !snip test! "Another snippet""#, "snip test", #""Another snippet""#, ""),
        (#"snippet "snippet test" "Another snippet" b"#, "snippet test", #""Another snippet""#, "b"),
        (#"snippet "a b" "two words" iw"#, "a b", #""two words""#, "iw"),
        (#"snippet x "desc""#, "x", #""desc""#, ""),
    ] as [(String, String, String?, String)])
    func headersSplitAsUltiSnipsSplitsThem(_ line: String, _ trigger: String, _ description: String?, _ options: String) {
        let header = UltiSnipsReader.parseHeader(line.dropFirst("snippet".count), hasContext: false)
        #expect(header.trigger == trigger)
        #expect(header.description == description)
        #expect(header.options == options)
        #expect(header.error == nil)
    }

    /// SirVer/ultisnips test/test_Choices.py, Choices_WillNotExpand_If_ChoiceListIsEmpty: `("test", "${1||}")`
    /// expands to `||`. UltiSnips' `ChoicesToken` gives the tabstop the initial text `|…|` of its non-empty options,
    /// and `Choices` with none is a plain tabstop holding that text, so `${1||}` (and `${1|,|}`, whose options are
    /// all empty) is tabstop 1 with the text `||`, not an empty choice.
    @Test func aChoiceWithNoOptionIsATabstopHoldingItsBars() throws {
        let library = loadLibrary(["/lib/UltiSnips/all.snippets": "snippet test\n${1||} ${2|,|} $1\nendsnippet\n"])
        let body = try #require(library.snippets.first?.body)
        #expect(body == "${1:||} ${2:||} $1")
        #expect(!library.diagnostics.contains { $0.severity <= .warning }, "\(library.diagnostics)")
        let parsed = SnippetBody.parse(body)
        #expect(parsed.problems.isEmpty)
        #expect(SnippetBody.parse(parsed.body.lspText()).body == parsed.body)
        #expect(UltiSnipsPeerCaseTests.filled(body, fields: [:]) == "|| || ||")
    }

    /// SirVer/ultisnips test/test_Visual.py, VisualTransformationWithDefault_ExpandWithoutVisual:
    /// `("test", r"h${VISUAL:world/./\U$0\E/g}b")` with nothing selected gives `hWORLDb`. An LSP variable takes a
    /// default or a transform, not both; a completion has nothing selected, so the default is kept, transformed.
    @Test func aTransformedVisualKeepsItsDefaultTransformed() throws {
        let text = #"""
            snippet test
            h${VISUAL:world/./\U$0\E/g}b ${VISUAL:a\/b/(.)\/(.)/$2$1/}
            endsnippet

            """#
        let library = loadLibrary(["/lib/UltiSnips/all.snippets": text])
        let body = try #require(library.snippets.first?.body)
        #expect(body == "h${TM_SELECTED_TEXT:WORLD}b ${TM_SELECTED_TEXT:ba}")
        #expect(UltiSnipsPeerCaseTests.filled(body, fields: [:]) == "hWORLDb ba")
        let parsed = SnippetBody.parse(body)
        #expect(parsed.problems.isEmpty)
        #expect(SnippetBody.parse(parsed.body.lspText()).body == parsed.body)
        // Said where it happens: a selection is inserted as it is.
        let notes = library.diagnostics.filter { $0.code == UltiSnipsCode.transformation }
        #expect(notes.count == 2)
        #expect(notes.allSatisfy { $0.severity == .note && $0.message.contains("untransformed") }, "\(notes)")
        #expect(!library.diagnostics.contains { $0.severity <= .warning })
    }

    /// Option `i` marks a snippet offered inside a word (`UltiSnipsLibraryTests.anInWordSnippetIsOfferedAtTheEndOfAWord`
    /// has UltiSnips' cases); a regex trigger's literal start says nothing of where a match begins, so `ri` does not.
    @Test func optionIMarksASnippetOfferedInsideAWord() {
        let text = "snippet sr \"squared\" iA\n^2\nendsnippet\nsnippet ab\nx\nendsnippet\nsnippet \"a(b)?\" \"re\" ri\ny\nendsnippet\n"
        let library = loadLibrary(["/lib/UltiSnips/tex.snippets": text])
        #expect(library.snippets.map(\.isInWord) == [true, false, false])
    }
}
