import Testing
@testable import SnippetsCore

@Suite struct FormatsSnipMateTests {
    static let python = """
        # Python snippets
        extends django, base

        snippet def "function definition"
        \tdef ${1:name}(${2}):
        \t\t${0:pass}

        snippet cls
        \tclass ${1:Name}:
        \t\t$0
        priority -50
        snippet	tabbed trailing tab separator
        \tx

        """

    @Test func readsHeadersBodiesCommentsExtendsAndPriority() throws {
        let library = loadLibrary(["/lib/python.snippets": Self.python])
        #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
        #expect(library.snippets.map(\.title) == ["function definition", "cls", "trailing tab separator"])
        let def = library.snippets[0]
        #expect(def.triggers == ["def"])
        #expect(def.description == "function definition")
        #expect(def.body == "def ${1:name}(${2}):\n\t${0:pass}")
        #expect(def.scopes == ["python"])
        #expect(def.format == .snipmate)
        #expect(def.id == SnippetID(fileURI: "file:///lib/python.snippets", key: "def\u{1F}\"function definition\""))
        #expect(library.snippets[1].id == SnippetID(fileURI: "file:///lib/python.snippets", key: "cls\u{1F}"))
        #expect(library.snippets.map(\.priority) == [0, 0, -50])
        #expect(library.snippets[2].triggers == ["tabbed"])
        #expect(library.files[0].extensions == ["python": ["django", "base"]])
        #expect(library.scopes(forLanguage: "python") == ["python", "django", "base", "all", "global"])
    }

    @Test func aByteOrderMarkKeepsTheFirstSnippet() {
        // Editors on Windows save with a byte order mark; it used to hide the first `snippet` header.
        let library = loadLibrary([
            "/lib/python.snippets": "\u{FEFF}" + Self.python,
            "/lib/go.snippets": "\u{FEFF}snippet fn \"function\"\n\tfunc ${1:name}() {}\n",
            "/lib/python/each.snippet": "\u{FEFF}for ${1:x} in ${2:xs}:\n",
            "/lib/vscode.code-snippets": "\u{FEFF}{\"First\": {\"prefix\": \"first\", \"body\": \"one\"}}",
            "/lib/package/package.json": "\u{FEFF}{\"contributes\": {\"snippets\": [{\"language\": \"go\", \"path\": \"./go.json\"}]}}",
            "/lib/package/go.json": "\u{FEFF}{\"Main\": {\"prefix\": \"main\", \"body\": \"func main() {}\"}}",
        ])
        #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
        #expect(Set(library.snippets.map(\.title)) == ["function", "function definition", "cls", "trailing tab separator", "each", "First", "Main"])
        #expect(library.snippets.first { $0.title == "each" }?.body == "for ${1:x} in ${2:xs}:")
        // Lines and columns are those the editor shows, which leaves the mark out.
        #expect(library.snippets.first { $0.title == "function definition" }?.location.range.start == SourcePosition(line: 3, asciiColumn: 0))
    }

    @Test func locationRunsFromTheHeaderToTheEndOfTheLastBodyLine() {
        let library = loadLibrary(["/lib/python.snippets": Self.python])
        #expect(locatedText(library.snippets[0], in: Self.python) == "snippet def \"function definition\"\n\tdef ${1:name}(${2}):\n\t\t${0:pass}")
        #expect(library.snippets[1].location.range.start == SourcePosition(line: 7, asciiColumn: 0))
        #expect(library.snippets[1].location.range.end == SourcePosition(line: 9, asciiColumn: 4))
    }

    static let scopeCases: [(path: String, scopes: [String], triggers: [String])] = [
        ("/lib/snippets/ruby.snippets", ["ruby"], ["t"]),
        ("/lib/snippets/ruby_rails.snippets", ["ruby"], ["t"]),
        ("/lib/snippets/ruby/minitest.snippets", ["ruby"], ["t"]),
        ("/lib/snippets/ruby/each.snippet", ["ruby"], ["each"]),
        ("/lib/snippets/ruby/each/with index.snippet", ["ruby"], ["each"]),
        ("/lib/snippets/_.snippets", [], ["t"]),
        ("/lib/snippets/_/any.snippet", [], ["any"]),
        ("/lib/dart-flutter.snippets", ["dart-flutter"], ["t"]),
    ]

    @Test(arguments: scopeCases) func scopeComesFromThePath(_ path: String, _ scopes: [String], _ triggers: [String]) throws {
        let text = path.hasSuffix(".snippet") ? "whole ${1:file}\n" : "snippet t\n\tbody\n"
        let library = loadLibrary([path: text])
        let snippet = try #require(library.snippets.first)
        #expect(snippet.scopes == scopes)
        #expect(snippet.triggers == triggers)
    }

    @Test func singleSnippetFileIsTheWholeBody() throws {
        let library = loadLibrary(["/lib/snippets/ruby/each/with index.snippet": "each_with_index { |${1:x}, i| }\n\n"])
        let snippet = try #require(library.snippets.first)
        #expect(snippet.body == "each_with_index { |${1:x}, i| }")
        #expect(snippet.title == "with index")
    }

    static let conversions: [(snipmate: String, lsp: String)] = [
        ("${VISUAL}", "${TM_SELECTED_TEXT}"),
        ("$VISUAL;", "$TM_SELECTED_TEXT;"),
        ("${VISUAL:default}", "${TM_SELECTED_TEXT:default}"),
        ("${0:${VISUAL}}", "${0:${TM_SELECTED_TEXT}}"),
        ("${VISUAL/a/b/g}", "${TM_SELECTED_TEXT/a/b/g}"),
        ("${1/foo/bar/}", "${1/foo/bar/}"),
        ("echo $HOME ${var} $", "echo \\$HOME \\${var} \\$"),
        ("cost: $$1", "cost: \\$$1"),
        ("\\\\begin{${1:env}}", "\\\\begin{${1:env}}"),
        ("\\$1 \\a \\}", "\\$1 a \\}"),
        ("${1:{a}}", "${1:{a\\}}"),
        ("{}", "{}"),
        ("`strftime(\"%Y-%m-%d\")`", "${CURRENT_YEAR}-${CURRENT_MONTH}-${CURRENT_DATE}"),
        ("`strftime('%d/%m/%y %H:%M:%S')`", "${CURRENT_DATE}/${CURRENT_MONTH}/${CURRENT_YEAR_SHORT} ${CURRENT_HOUR}:${CURRENT_MINUTE}:${CURRENT_SECOND}"),
        ("`!v strftime('%B %d, %Y')`", "${CURRENT_MONTH_NAME} ${CURRENT_DATE}, ${CURRENT_YEAR}"),
        ("`Filename()`", "${TM_FILENAME_BASE}"),
        ("`vim_snippets#Filename('', 'someClass')`", "${TM_FILENAME_BASE:someClass}"),
        ("`vim_snippets#Filename(\"$1.h\")`", "${TM_FILENAME_BASE}.h"),
        ("`expand('%:t:r')`", "${TM_FILENAME_BASE}"),
        ("`expand('%:p')`", "${TM_FILEPATH}"),
        ("`@+`", "${CLIPBOARD}"),
        ("(c) `&enc[:2] == \"utf\" ? \"©\" : \"(c)\"`", "(c) ©"),
        ("by ${1:`g:snips_author`}.", "by ${1:}."),
        ("`system(\"rm -rf \\`echo x\\`\")`!", "!"),
        ("\\`literal\\`", "`literal`"),
    ]

    @Test(arguments: conversions) func convertsBodiesToLSPSyntax(_ snipmate: String, _ lsp: String) throws {
        let library = loadLibrary(["/lib/all.snippets": "snippet t\n\t\(snipmate)\n"])
        let snippet = try #require(library.snippets.first)
        #expect(snippet.body == lsp)
        let problems = library.diagnostics.filter { $0.severity != .note }
        #expect(problems.isEmpty, "\(problems)")
    }

    /// vim-snipmate's own parser tests (garbas/vim-snipmate 1331cfe, `t/parser.vim`): 'parses mirror substitutions
    /// ${n/pat/sub} as [n, {...}]' (the closing `/` is optional), 'parses backslashes as escaping the next character
    /// or joining lines' (`x\` at a line's end joins the next), 'parses a selection as a special var named "select"
    /// with each item' and 'sets a selections placeholder to the first item' (a choice; `doc/SnipMate.txt` writes
    /// `# ${1|TODO|FIXME|BUG}: $2`, offered in Vim's popup menu). vim-snippets' `gdscript` snippet ends a line
    /// with `\`.
    static let vimSnipmateCases: [(snipmate: String, lsp: String, inserted: String)] = [
        ("${1:abc} ${1/abc/def}", "${1:abc} ${1/abc/def/}", "abc def"),
        ("${1:abc} ${1/b/}", "${1:abc} ${1/b//}", "abc ac"),
        ("${1:abc} ${1/abc/def/g}", "${1:abc} ${1/abc/def/g}", "abc def"),
        ("x\\\n\tx", "xx", "xx"),
        ("# var b = \\textvar\\\n\n\tfunc _ready():", "# var b = textvar\nfunc _ready():", "# var b = textvar\nfunc _ready():"),
        ("${1|foo|bar|baz|select}", "${1|foo,bar,baz,select|}", "foo"),
        ("# ${1|TODO|FIXME|BUG}: $2", "# ${1|TODO,FIXME,BUG|}: $2", "# TODO: "),
        ("${1|a,b|c\\|d} = $1", "${1|a\\,b,c\\|d|} = $1", "a,b = a,b"),
    ]

    @Test(arguments: vimSnipmateCases) func readsBodiesAsVimSnipmatesParserTestsSay(
        _ snipmate: String, _ lsp: String, _ inserted: String
    ) throws {
        let library = loadLibrary(["/lib/all.snippets": "snippet t\n\t\(snipmate)\n"])
        let snippet = try #require(library.snippets.first)
        #expect(snippet.body == lsp)
        let parsed = SnippetBody.parse(snippet.body)
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        #expect(parsed.body.plainText() == inserted)
        #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
    }

    /// vim-snipmate drops a `$` that no number or `VISUAL` follows ('disregards $ or ${ followed by a non-id' in
    /// `t/parser.vim`: `$x1` is `x1`, `${x}1` is `x}1`); vim-snippets writes `$this`, `$.ajax` and `$(` in 313
    /// bodies meaning the dollar, so the author's text is kept (the README's SnipMate section says so) and `check`
    /// notes the difference once per body, at the first such `$`.
    @Test func aDollarVimSnipmateDropsKeepsTheAuthorsTextWithANote() {
        let library = loadLibrary(["/lib/php.snippets": "snippet me\n\t$this->${1:x} = ${x}1 \\$ok $2;\n"])
        #expect(library.snippets.first?.body == "\\$this->${1:x} = \\${x}1 \\$ok $2;")
        #expect(summaries(library.diagnostics) == ["2:2 note snipmate-dollar"])
        #expect(library.diagnostics.first?.message.contains("'$this' inserts 'this'") == true)
        #expect(library.diagnostics.first?.message.contains("2 in this body") == true)
    }

    @Test func backtickExpressionsAreNeverRunAndEachGetsANoteWhereItIs() {
        let text = "snippet c)\n\tCopyright `strftime(\"%Y\")` ${1:`g:snips_author`}\n"
        let library = loadLibrary(["/lib/_.snippets": text])
        #expect(library.snippets.first?.body == "Copyright ${CURRENT_YEAR} ${1:}")
        #expect(summaries(library.diagnostics) == ["2:12 note backtick-expression", "2:33 note backtick-expression"])
        #expect(library.diagnostics[0].message.contains("replaced by ${CURRENT_YEAR}"))
        #expect(library.diagnostics[1].message.contains("`g:snips_author` is not run"))
        #expect(library.diagnostics[1].message.contains("left out"))
    }

    @Test func bangReplacesEarlierSnippetsWithTheTriggerInTheScope() {
        let library = loadLibrary([
            "/lib/snippets/c.snippets": "snippet for\n\tfor old\nsnippet for alt\n\tfor alt\nsnippet main\n\tint main\n",
            "/lib/snippets/c/mine.snippets": "snippet! for\n\tfor mine\nsnippet!! main\n",
            "/lib/snippets/cpp.snippets": "snippet for\n\tfor cpp\n",
        ])
        #expect(library.snippets.map(\.body) == ["for cpp", "for mine"])  // files, then subdirectories
        #expect(summaries(library.diagnostics) == ["1:1 note snippet-override", "3:1 note snippet-override"])
        #expect(library.diagnostics[0].message == "'snippet!' replaces the earlier snippet(s) at /lib/snippets/c.snippets:1, /lib/snippets/c.snippets:3 with trigger 'for'")
        #expect(library.diagnostics[1].message == "'snippet!!' removes the earlier snippet(s) at /lib/snippets/c.snippets:5 with trigger 'main'")
    }

    @Test func bangInTheSameFileReplacesOnlyWhatCameBefore() {
        let library = loadLibrary(["/lib/go.snippets": "snippet e\n\tfirst\nsnippet! e\n\tsecond\nsnippet e other\n\tthird\n"])
        #expect(library.snippets.map(\.body) == ["second", "third"])
        #expect(library.diagnostics.map(\.message) == ["'snippet!' replaces the earlier snippet(s) at line 1 with trigger 'e'"])
    }

    @Test func multiSnippetsAreFineButTrueDuplicatesWarnAndGetNumberedIDs() {
        let library = loadLibrary(["/lib/sh.snippets": "snippet if a\n\tone\nsnippet if b\n\ttwo\nsnippet if a\n\tthree\n"])
        #expect(library.snippets.count == 3)
        #expect(summaries(library.diagnostics) == ["5:1 warning duplicate-prefix"])
        #expect(Set(library.snippets.map(\.id)).count == 3)
        #expect(library.snippets[2].id == SnippetID(fileURI: "file:///lib/sh.snippets", key: "if\u{1F}a\u{1F}2"))
    }

    @Test func strayLinesAndBadHeadersAreReported() {
        let text = "snippet\n\tlost body\n  spaces are not a body\nsnippet ok\n\tfine\npriority high\n"
        let library = loadLibrary(["/lib/sh.snippets": text])
        #expect(library.snippets.map(\.title) == ["ok"])
        #expect(summaries(library.diagnostics) == ["1:1 error malformed-header", "3:1 warning unexpected-line", "6:1 warning bad-priority"])
    }

    @Test func windowsLineEndingsAreNotPartOfBodiesOrRanges() throws {
        let text = "snippet if\r\n\tif ${1:cond}:\r\n\t\t$0\r\n\r\nsnippet x\r\n\tx\r\n"
        let library = loadLibrary(["/lib/python.snippets": text])
        let snippet = try #require(library.snippets.first)
        #expect(snippet.body == "if ${1:cond}:\n\t$0")
        #expect(snippet.location.range.end == SourcePosition(line: 2, asciiColumn: 4))
        #expect(library.snippets.count == 2)
        let json = "{\r\n  \"A\": { \"body\": \"${1:x\" }\r\n}\r\n"
        let vscode = loadLibrary(["/lib/a.code-snippets": json])
        #expect(summaries(vscode.diagnostics) == ["2:19 error unterminated-placeholder"])
    }
}
