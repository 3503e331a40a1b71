import TestSupport
import Testing
@testable import SnippetsCore

/// yasnippet folders read through the loader: headers, templates, modes, `.yas-parents`, and what is noted.
@Suite struct FormatsYasnippetTests {
    /// `text` without its position markers (1️⃣ … 9️⃣), and where each marker was.
    static func marked(_ text: String) -> (text: String, positions: [String: SourcePosition]) {
        var clean = ""
        var markerOffsets: [String: Int] = [:]
        for character in text {
            if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 3,
                ("1"..."9").contains(scalar)
            {
                markerOffsets[String(character)] = clean.utf8.count
            } else {
                clean.append(character)
            }
        }
        let table = LineTable(clean)
        return (clean, markerOffsets.mapValues { table.position(ofUTF8Offset: $0) })
    }

    /// Loads one yasnippet file at `/lib/snippets/<mode>/<name>` (plus `others`), and gives its library.
    func check(_ text: String, mode: String = "python-mode", name: String = "snip", others: [String: String] = [:])
        -> SnippetLibrary
    {
        var files = others
        files["/lib/snippets/\(mode)/\(name)"] = text
        return loadLibrary(files)
    }

    @Test func readsHeadersAndTemplateAsYasnippetDoes() throws {
        let text = """
            # -*- mode: snippet -*-
            # name: for ... in ...
            # key: for
            # group: loops
            # uuid: 7a1c
            # contributor: someone
            # --
            for ${1:item} in ${2:items}:
                $0

            """
        let library = check(text)
        #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
        let snippet = try #require(library.snippets.first)
        #expect(snippet.title == "for ... in ...")
        #expect(snippet.triggers == ["for"])
        #expect(snippet.scopes == ["python"])
        #expect(snippet.format == .yasnippet)
        // The trailing line break is part of the template: yasnippet inserts it.
        #expect(snippet.body == "for ${1:item} in ${2:items}:\n    $0\n")
        #expect(snippet.location.range.start == SourcePosition(line: 0, asciiColumn: 0))
        #expect(snippet.location.range.end == SourcePosition(line: 8, asciiColumn: 6))
        #expect(locatedText(snippet, in: text).hasPrefix("# -*- mode: snippet -*-"))
    }

    @Test func withoutKeyTheFileNameIsTheTriggerUnlessABindingOrTheMarkerSaysOtherwise() {
        let plain = check("# name: Main\n# --\nint main() {}", name: "main.yasnippet")
        #expect(plain.snippets.map(\.triggers) == [["main.yasnippet"]])
        let noSeparator = check("just text $1", name: "jt")
        #expect(noSeparator.snippets.map(\.title) == ["jt"])
        #expect(noSeparator.snippets.map(\.triggers) == [["jt"]])
        #expect(noSeparator.snippets.map(\.body) == ["just text $1"])
        let bound = check("# name: B\n# binding: C-c b\n# --\nb")
        #expect(bound.snippets.map(\.triggers) == [[]])
        #expect(bound.diagnostics.map(\.code.rawValue) == ["yasnippet-binding"])
        let ignoring = check(
            "# name: X\n# --\nx", others: ["/lib/snippets/python-mode/.yas-ignore-filenames-as-triggers": ""])
        #expect(ignoring.snippets.map(\.triggers) == [[]])
        #expect(ignoring.files.count == 1)
        // An empty `# key:` is a key no one can type (so no file name either); an empty name is the file's.
        let empty = check("# name:\n# key:\n# --\ne", name: "e")
        #expect(empty.snippets.map(\.triggers) == [[]])
        #expect(empty.snippets.map(\.title) == ["e"])
    }

    @Test func everyFileInAModeFolderOrItsGroupsIsASnippetButHiddenBackupAndOtherFormats() {
        let library = loadLibrary([
            "/lib/snippets/rjsx-mode/React/comp": "# key: rc\n# --\nclass $1",
            "/lib/snippets/rjsx-mode/inc.1": "# key: inc\n# --\n#include",
            "/lib/snippets/rjsx-mode/#autosave#": "x",
            "/lib/snippets/rjsx-mode/backup~": "x",
            "/lib/snippets/rjsx-mode/#": "# key: #\n# --\n# comment",
            "/lib/snippets/rjsx-mode/.yas-setup.el": "(shell-command \"touch /tmp/x\")",
            "/lib/snippets/rjsx-mode/js.snippets": "snippet log\n\tconsole.log($1)",
            "/lib/README": "not a snippet",
            "/lib/snippets/notes/todo": "not a mode folder",
        ])
        #expect(Set(library.snippets.map(\.triggers)) == [["rc"], ["inc"], ["#"], ["log"]])
        #expect(library.snippets.filter { $0.format == .yasnippet }.allSatisfy { $0.scopes == ["javascriptreact", "javascript"] })
        #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
    }

    /// yasnippet reads the mode folders of whatever folder `yas-snippet-dirs` names: a library holds such a folder
    /// anywhere, not only as `snippets/`.
    @Test func aModeFolderAnywhereInTheLibraryIsRead() {
        let library = loadLibrary([
            "/lib/yas/text-mode/standup": "# name: Standup\n# key: standup\n# --\nYesterday: $1\nToday: $2\n",
            "/lib/emacs/my-snippets/python-mode/loops/for": "# key: for\n# --\nfor $1 in $2:\n    $0",
            "/lib/emacs/my-snippets/python-mode/django-mode/view": "# key: view\n# --\ndef ${1:view}(request):",
            "/lib/yas/notes/todo": "not in a mode folder",
        ])
        #expect(library.snippets.map(\.title).sorted() == ["Standup", "for", "view"])
        #expect(library.snippets.first { $0.title == "Standup" }?.scopes == [], "text-mode: every language")
        // Below a mode folder every folder is a group of that mode, as yasnippet reads it.
        #expect(library.snippets.first { $0.title == "view" }?.scopes == ["python"])
        #expect(library.snippets.first { $0.title == "for" }?.scopes == ["python"])
        #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
    }

    @Test func aFolderWithYasSkipIsNotRead() {
        let library = loadLibrary([
            "/lib/snippets/go-mode/.yas-skip": "", "/lib/snippets/go-mode/f": "# key: f\n# --\nfunc",
            "/lib/snippets/c-mode/m": "# key: m\n# --\nmain",
        ])
        #expect(library.snippets.map(\.triggers) == [["m"]])
    }

    @Test func modesBecomeLanguagesAndParentsExtendThem() {
        let library = loadLibrary([
            "/lib/snippets/c++-mode/.yas-parents": "cc-mode c-lang-common\n",
            "/lib/snippets/c++-ts-mode/.yas-parents": "c++-mode",
            "/lib/snippets/cc-mode/if": "# key: if\n# --\nif ($1) {}",
            "/lib/snippets/c-lang-common/inc": "# key: inc\n# --\n#include <$1>",
            "/lib/snippets/prog-mode/todo": "# key: todo\n# --\nTODO: $0",
            "/lib/snippets/fundamental-mode/date": "# key: date\n# --\n`(format-time-string \"%Y-%m-%d\")`",
            "/lib/snippets/text-mode/sig": "# key: sig\n# --\nBest regards",
            "/lib/snippets/zig-mode/fn": "# key: fn\n# --\nfn $1() {}",
            "/lib/snippets/emacs-lisp-mode/defun": "# key: defun\n# --\n(defun $1 ())",
        ])
        func triggers(_ language: String) -> Set<String> {
            Set(library.snippets.filter { library.applies($0, toLanguage: language) }.flatMap(\.triggers))
        }
        // eglot sends `c++`, VS Code and lsp-mode `cpp`: both get C++'s parents.
        #expect(triggers("cpp") == ["if", "inc", "todo", "date", "sig"])
        #expect(triggers("c++") == ["if", "inc", "todo", "date", "sig"])
        #expect(triggers("zig") == ["fn", "todo", "date", "sig"])
        #expect(triggers("emacs-lisp") == ["defun", "todo", "date", "sig"])
        #expect(triggers("elisp") == ["defun", "todo", "date", "sig"])
        // Prose languages get text-mode's and fundamental-mode's, not prog-mode's.
        #expect(triggers("markdown") == ["date", "sig"])
        #expect(triggers("plaintext") == ["date", "sig"])
        let date = library.snippets.first { $0.triggers == ["date"] }
        #expect(date?.isGlobal == true)
        #expect(date?.body == "${CURRENT_YEAR}-${CURRENT_MONTH}-${CURRENT_DATE}")
    }

    @Test func theModeTableIsOnePlaceAndFallsBackToEglotsRule() {
        #expect(YasnippetModes.scopes(ofMode: "python-mode") == ["python"])
        #expect(YasnippetModes.scopes(ofMode: "python-ts-mode") == ["python"])
        #expect(YasnippetModes.scopes(ofMode: "emacs-lisp-mode") == ["emacs-lisp", "elisp"])
        #expect(YasnippetModes.scopes(ofMode: "text-mode") == [])
        #expect(YasnippetModes.scopes(ofMode: "fundamental-mode") == [])
        #expect(YasnippetModes.scopes(ofMode: "prog-mode") == ["prog-mode"])
        #expect(YasnippetModes.scopes(ofMode: "tuareg-mode") == ["ocaml"])
        #expect(YasnippetModes.scopes(ofMode: "sh-mode") == ["shellscript", "sh", "bash"])
        #expect(YasnippetModes.scopes(ofMode: "foo-bar-ts-mode") == ["foo-bar"])
        #expect(YasnippetModes.scopes(ofMode: "cider-repl-mode") == ["cider-repl"])
    }

    @Test func escapesAreReadAsYasnippetReadsThem() {
        let cases: [(template: String, body: String)] = [
            ("cost: \\$5 and $HOME", "cost: \\$5 and \\$HOME"),
            ("a\\}b } c", "a\\}b \\} c"),
            ("back\\\\slash \\n", "back\\\\slash \\\\n"),
            ("quote \\`x\\` here", "quote `x` here"),
            ("${1:one{\\}}, ${2:two{\\}}.", "${1:one{\\}}, ${2:two{\\}}."),
            ("Printf(${1:format string}, ${2:args ...interface{\\}})${0}", "Printf(${1:format string}, ${2:args ...interface{\\}})$0"),
            ("make \\$(CC) $(CFLAGS)", "make \\$(CC) \\$(CFLAGS)"),
        ]
        for (template, body) in cases {
            let library = check("# key: k\n# --\n" + template)
            #expect(library.snippets.first?.body == body, "\(template)")
            #expect(library.diagnostics.isEmpty, "\(template): \(library.diagnostics)")
        }
    }

    @Test func fieldsMirrorsAndUnnumberedFields() {
        let cases: [(template: String, body: String)] = [
            ("${1:brother} from another $1", "${1:brother} from another $1"),
            ("brother from ${2:another ${3:mother}}!", "brother from ${2:another ${3:mother}}!"),
            ("${3:${test}bla}$0${2:ble}", "${3:${4:test}bla}$0${2:ble}"),
            ("${1:FOOOOOOO}${2:$1}${3:$2}${4:$3}", "${1:FOOOOOOO}${2:$1}${3:$2}${4:$3}"),
            ("${0:exit text} ${12}", "${0:exit text} $12"),
            ("${1:x} ${1:$(upcase yas-text)} ${1:$(downcase yas-text)} ${1:$(yas-text)}",
             "${1:x} ${1/(.*)/${1:/upcase}/s} ${1/(.*)/${1:/downcase}/s} $1"),
        ]
        for (template, body) in cases {
            let library = check("# key: k\n# --\n" + template)
            #expect(library.snippets.first?.body == body, "\(template)")
            #expect(library.diagnostics.allSatisfy { $0.severity == .note }, "\(template): \(library.diagnostics)")
        }
    }

    /// A field number given a default twice is two fields, each inserting its own default: yasnippet's
    /// `yas--field-parse-create` makes a field of every `${N:…}`. Mirrors (`$N`, `${N:$(…)}`) follow the last one,
    /// which `yas--snippet-find-field` finds first in the list the fields were pushed onto, and navigation visits
    /// the last one first (`yas--snippet-field-compare` ties keep that list's order), all before field N+1.
    /// Bodies from yasnippet-snippets (../shared/corpora): `latex-mode/moderncv-cvcomputer` and `js-mode/bnd`.
    @Test func aFieldNumberWithTwoDefaultsIsTwoFieldsEachInsertingItsOwn() {
        let cases: [(template: String, body: String, inserted: String)] = [
            ("\\cvcomputer{${1:category}}{${2:programs}}{${3:category}}{${3:programs}}\n$0\n",
             #"\\cvcomputer{${1:category}\}{${2:programs}\}{${4:category}\}{${3:programs}\}"# + "\n$0\n",
             "\\cvcomputer{category}{programs}{category}{programs}\n\n"),
            ("this.${1:methodName} = this.${1:methodName}.bind(this)$0",
             "this.${2:methodName} = this.${1:methodName}.bind(this)$0",
             "this.methodName = this.methodName.bind(this)"),
            // Later numbers move up to make room; mirrors of 1 show the last field 1; unnumbered fields come after.
            ("${1:a} ${2:b} ${1:c} $1 ${1:$(upcase yas-text)} $2 ${d}",
             "${2:a} ${3:b} ${1:c} $1 ${1/(.*)/${1:/upcase}/s} $3 ${4:d}",
             "a b c c C b d"),
        ]
        for (template, body, inserted) in cases {
            let library = check("# key: k\n# --\n" + template)
            #expect(library.snippets.first?.body == body, "\(template)")
            let parsed = SnippetBody.parse(library.snippets.first?.body ?? "")
            #expect(parsed.problems.isEmpty)
            #expect(parsed.body.plainText() == inserted, "\(template)")
            #expect(library.diagnostics.allSatisfy { $0.severity == .note }, "\(template): \(library.diagnostics)")
        }
    }

    /// `${N}` is `$N`, as yasnippet reads it since 0.14.2 (commit 8e9ce76, "Recognize `${N}` as an alternative
    /// syntax for `$N`": `yas--field-parse-create` hands an all-digit `${…}` to `yas--one-simple-fom`); 0.14.0 and
    /// 0.14.1 read it through `yas--field-regexp` alone, as an unnumbered field holding the text `N`. yasnippet-tests.el
    /// `escaping-for-lsp-style-snippet-syntax` ends a template with `${0}` (in the peer cases); yasnippet-snippets
    /// writes `${N}` in 11 bodies, such as `js-mode/prom` and `chef-mode/not_if`, meaning the tabstop.
    @Test func aNumberInBracesIsATabstopAsYasnippetSince0142ReadsIt() {
        let library = check("# key: k\n# --\nnot_if { ${1} }$0\nthen(${2:x} => ${2})")
        #expect(library.snippets.first?.body == "not_if { $1 \\}$0\nthen(${2:x} => $2)")
        #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
    }

    @Test func emacsLispIsNotedAtItsPositionAndMappedOnlyWhereTheMeaningIsTheSame() throws {
        let marked = Self.marked("""
            # name: header
            # condition: 1️⃣(not (file-exists-p "x"))
            # expand-env: 2️⃣((yas-indent-line 'fixed))
            # --
            ;; 3️⃣`(file-name-nondirectory (buffer-file-name))` by 4️⃣`(user-full-name)`
            ${1:name} 5️⃣${1:$(make-string (string-width yas-text) ?\\=)}
            ${2:pub6️⃣$$(yas-choose-value '("public" "private" ""))} ${3:x7️⃣$(capitalize yas-text)}
            8️⃣$>`yas-selected-text`

            """)
        let library = check(marked.text, mode: "emacs-lisp-mode")
        let snippet = try #require(library.snippets.first)
        #expect(snippet.body == ";; ${TM_FILENAME} by \n${1:name} \n${2|public,private|} ${3:x}\n${TM_SELECTED_TEXT}\n")
        let notes = library.diagnostics.map { ($0.code.rawValue, $0.position) }
        let expected: [(String, SourcePosition)] = [
            ("emacs-lisp-condition", marked.positions["1️⃣"]!), ("emacs-lisp-expand-env", marked.positions["2️⃣"]!),
            ("emacs-lisp-backquote", marked.positions["3️⃣"]!), ("emacs-lisp-backquote", marked.positions["4️⃣"]!),
            ("emacs-lisp-mirror", marked.positions["5️⃣"]!), ("yasnippet-choice", marked.positions["6️⃣"]!),
            ("emacs-lisp-field", marked.positions["7️⃣"]!), ("yasnippet-indent-marker", marked.positions["8️⃣"]!),
            ("emacs-lisp-backquote", SourcePosition(line: 7, asciiColumn: 2)),
        ]
        #expect(notes.map(\.0) == expected.map(\.0))
        #expect(notes.map(\.1) == expected.map(\.1))
        #expect(library.diagnostics.allSatisfy { $0.severity == .note })
        let messages = library.diagnostics.map(\.message)
        #expect(messages[2].contains("replaced by ${TM_FILENAME}"))
        #expect(messages[3].contains("`(user-full-name)` is not run") && messages[3].contains("left out"))
        #expect(messages[5].contains("'public' or 'private'") && messages[5].contains("empty option"))
    }

    @Test func aCommandSnippetIsNotLoadedAndSaysSo() {
        let marked = Self.marked("# name: cmd\n# type: 1️⃣command\n# --\n(shell-command \"touch /tmp/pwned\")\n")
        let library = check(marked.text)
        #expect(library.snippets.isEmpty)
        #expect(library.diagnostics.map(\.code.rawValue) == ["yasnippet-command"])
        #expect(library.diagnostics.first?.position == marked.positions["1️⃣"])
    }

    @Test func unknownDirectivesWarnAtTheirLineAndChoiceSyntaxIsAFieldsText() {
        let marked = Self.marked("# name: x\n1️⃣# colour: red\n# --\nline ${1|a,b|}\n")
        let library = check(marked.text)
        #expect(library.diagnostics.map(\.code.rawValue) == ["unknown-directive"])
        #expect(library.diagnostics.map(\.position) == [marked.positions["1️⃣"]!])
        // yasnippet has no choices: `${1|a,b|}` is an unnumbered field holding `1|a,b|`.
        #expect(library.snippets.first?.body == "line ${1:1|a,b|}\n")
    }

    @Test func nonASCIIPositionsAreExactInEveryEncoding() throws {
        let marked = Self.marked("# name: é\n# --\n¡olé! 1️⃣`(user-login-name)`\n")
        let library = check(marked.text)
        let note = try #require(library.diagnostics.first)
        #expect(note.position == marked.positions["1️⃣"])
        #expect(note.position.utf8Column == 8 && note.position.utf16Column == 6)
    }

    @Test func hostileTemplatesLoadWithoutExhaustingTheStack() async throws {
        let deep = String(repeating: "${1:", count: 100_000) + String(repeating: "}", count: 100_000)
        let unclosed = String(repeating: "${1:x$(", count: 50_000) + String(repeating: "${1:$(", count: 50_000)
        let braces = String(repeating: "${", count: 100_000) + "}"
        for template in [deep, unclosed, braces] {
            // Seconds of parsing: on a thread of its own, off the pool other tests' timers need (see `onOwnThread`).
            let (library, lspBytes) = await onOwnThread { () -> (SnippetLibrary, Int?) in
                let library = self.check("# key: k\n# --\n" + template)
                return (library, library.snippets.first.map { SnippetBody.parse($0.body).body.lspText().utf8.count })
            }
            #expect(library.snippets.count == 1)
            #expect((lspBytes ?? 0) > 0)
            #expect(library.diagnostics.count <= 60, "\(library.diagnostics.count) diagnostics")
        }
    }
}
