import Foundation
import Testing
@testable import SnippetsCore

@Suite struct FormatsEspansoTests {
    static let base = """
        global_vars:
          - name: today
            type: date
            params:
              format: "%d %B %Y"

        matches:
          - trigger: ":late"
            label: Unpaid invoice reminder
            replace: |
              Dear {{client.value}},
              invoice {{invoice.value}} from {{today}}; {{client.value}} again.
            vars:
              - name: client
                type: form
                params:
                  layout: "Client: [[value]]"
              - name: invoice
                type: form
                params:
                  layout: "Invoice: [[value]]"
                  fields:
                    value:
                      default: "2024/1"
          - triggers: [":thx", ":thanks"]
            replace: "Costs $5 {net} \\\\ (c:\\\\x) $|$ done $|$"
          - trigger: ":lang"
            replace: "{{pair}} / {{pair}}"
            vars:
              - name: pair
                type: choice
                params:
                  values:
                    - "Polish, English"
                    - label: German
                      id: "de|DE"
          - trigger: ":cb"
            replace: "> {{clip}} {{echoed}} {{pick}}"
            vars:
              - name: clip
                type: clipboard
              - name: echoed
                type: echo
                params:
                  echo: "{{clip}}!"
              - name: pick
                type: random
                params:
                  choices: ["first", "second"]
          - trigger: ":ip"
            replace: "ip={{ip}} out={{out}}"
            vars:
              - name: ip
                type: shell
                params:
                  cmd: "touch /tmp/never"
              - name: out
                type: script
                params:
                  args: [python, -c, "print(1)"]
          - trigger: ":nested"
            replace: "<{{inner}}>"
            vars:
              - name: inner
                type: match
                params:
                  trigger: ":thx"
          - regex: ":d\\\\((?P<fmt>.*)\\\\)"
            replace: "{{fmt}}"
          - trigger: ":img"
            image_path: "/x.png"
          - trigger: ":md"
            markdown: "**bold**"
          - trigger: ":when"
            replace: "{{later}} {{missing}}"
            vars:
              - name: later
                type: date
                params:
                  format: "%e %B"
          - trigger: "teh"
            replace: the
            word: true
            propagate_case: true
            wrod: true
          - trigger: ":f"
            form: "Hi [[name]], [[name]]!"
        """

    static func load(_ files: [String: String]) -> SnippetLibrary {
        loadLibrary(files, paths: ["/esp"])
    }

    static func snippet(_ library: SnippetLibrary, _ trigger: String) -> Snippet? {
        library.snippets.first { $0.triggers.contains(trigger) }
    }

    @Test func matchesBecomeSnippetsForEveryLanguageWithLSPBodies() throws {
        let library = Self.load(["/esp/match/base.yml": Self.base])
        let file = try #require(library.files.first)
        #expect(file.format == .espanso)
        #expect(library.snippets.count == 11, "\(library.snippets.map(\.triggers))")
        #expect(library.snippets.allSatisfy { $0.scopes.isEmpty && $0.format == .espanso })
        let late = try #require(Self.snippet(library, ":late"))
        #expect(late.title == "Unpaid invoice reminder")
        #expect(late.body == "Dear ${1:value},\ninvoice ${2:2024/1} from ${CURRENT_DATE} ${CURRENT_MONTH_NAME} ${CURRENT_YEAR}; $1 again.\n")
        let thx = try #require(Self.snippet(library, ":thx"))
        #expect(thx.triggers == [":thx", ":thanks"])
        #expect(thx.title == ":thx")
        #expect(thx.body == #"Costs \$5 {net\} \\ (c:\\x) $0 done \$|\$"#)
        #expect(Self.snippet(library, ":lang")?.body == #"${1|Polish\, English,de\|DE|} / $1"#)
        #expect(Self.snippet(library, ":cb")?.body == "> ${CLIPBOARD} ${CLIPBOARD}! first")
        #expect(Self.snippet(library, ":ip")?.body == "ip=${1:ip} out=${2:out}")
        #expect(Self.snippet(library, ":nested")?.body == #"<Costs \$5 {net\} \\ (c:\\x) \$|\$ done \$|\$>"#)
        #expect(Self.snippet(library, ":d(")?.body == "${1:fmt}")
        #expect(Self.snippet(library, ":img") == nil)
        #expect(Self.snippet(library, ":md")?.body == "**bold**")
        #expect(Self.snippet(library, ":when")?.body == "${1:later} ${2:missing}")
        #expect(Self.snippet(library, "teh")?.body == "the")
        #expect(Self.snippet(library, ":f")?.body == "Hi ${1:name}, $1!")
        // Every body reads back as the LSP grammar reads it, with no problem.
        for snippet in library.snippets {
            #expect(SnippetBody.problems(in: snippet.body).isEmpty, "\(snippet.title): \(snippet.body)")
        }
        // The location covers the whole match entry.
        let text = locatedText(late, in: Self.base)
        #expect(text.hasPrefix("trigger: \":late\""))
        #expect(text.hasSuffix("default: \"2024/1\""))
    }

    @Test func whatCannotBeSaidExactlyIsNotedWhereItIsWritten() {
        let library = Self.load(["/esp/match/base.yml": Self.base])
        #expect(
            Set(summaries(library.diagnostics)) == [
                "47:15 note espanso-random",
                "54:15 note espanso-shell-not-run",
                "58:15 note espanso-script-not-run",
                "68:12 note espanso-regex",
                "71:17 note espanso-image",
                "73:15 note espanso-markdown",
                "75:25 warning espanso-undefined-variable",
                "78:15 note espanso-date-unmapped",
                "85:5 note espanso-unknown-key",
            ])
        let messages = library.diagnostics.map(\.message)
        #expect(messages.contains("the shell variable 'ip' is never run; '{{ip}}' becomes a placeholder to fill in"))
        #expect(messages.contains("the date variable 'later' becomes a placeholder: %e has no LSP date variable"))
        #expect(messages.contains { $0.contains("':d\\((?P<fmt>.*)\\)' is offered as its literal start ':d('") })
    }

    @Test func aYAMLErrorIsLocatedAndTheRestOfTheLibraryLoads() {
        let library = Self.load([
            "/esp/match/bad.yml": "matches:\n  - trigger: \":a\"\n    replace: 'open\n",
            "/esp/match/good.yml": "matches:\n  - trigger: \":b\"\n    replace: b\n",
        ])
        #expect(summaries(library.diagnostics) == ["3:14 error yaml-syntax"])
        #expect(library.diagnostics[0].message.contains("not closed"))
        #expect(library.snippets.map(\.triggers) == [[":b"]])
    }

    @Test func onlyMatchFilesAreRead() {
        let library = Self.load([
            "/esp/config/default.yml": "toggle_key: OFF\n",
            "/esp/match/_private.yml": "matches:\n  - trigger: \":p\"\n    replace: p\n",
            "/esp/notes/other.yml": "title: not espanso\n",
            "/esp/notes/broken.yaml": "a: b: c\n",
            "/esp/notes/loose.yml": "matches:\n  - trigger: \":l\"\n    replace: l\n",
        ])
        #expect(library.snippets.map(\.triggers) == [[":l"]])
        #expect(summaries(library.diagnostics) == ["1:4 note yaml-syntax"])
    }

    @Test func importsAreReadInsideTheFolderOnly() {
        let library = Self.load([
            "/esp/match/base.yml": """
                imports:
                  - "_shared.yml"
                  - "../../outside.yml"
                  - "../config/../match/sub/more.yml"
                matches:
                  - trigger: ":sig"
                    replace: "{{name}} / {{hello}}"
                    vars:
                      - name: hello
                        type: match
                        params:
                          trigger: ":hello"
                """,
            "/esp/match/_shared.yml": """
                global_vars:
                  - name: name
                    type: echo
                    params:
                      echo: Marta
                matches:
                  - trigger: ":shared"
                    replace: shared
                """,
            "/esp/match/sub/more.yml": "matches:\n  - trigger: \":hello\"\n    replace: hi\n",
            "/outside.yml": "matches:\n  - trigger: \":out\"\n    replace: out\n",
        ])
        #expect(Self.snippet(library, ":sig")?.body == "Marta / hi")
        // The `_` file is read only through the import; `sub/more.yml` is read on its own, once.
        #expect(library.snippets.map(\.triggers).sorted { $0[0] < $1[0] } == [[":hello"], [":shared"], [":sig"]])
        #expect(Self.snippet(library, ":shared")?.location.uri == "file:///esp/match/_shared.yml")
        #expect(summaries(library.diagnostics) == ["3:5 warning espanso-import-outside"])
    }

    @Test func aFlowMappingOfTriggersIsRefusedAsEspansoRefusesIt() {
        let library = Self.load(["/esp/match/a.yml": "matches:\n  - triggers: {\"ipsl\", \"ilat\"}\n    replace: x\n  - trigger: y\n    replace: y\n"])
        #expect(library.snippets.map(\.triggers) == [["y"]])
        #expect(summaries(library.diagnostics) == ["2:15 warning espanso-triggers"])
    }

    @Test func regexLiteralPrefixes() {
        #expect(EspansoReader.literalPrefix(ofRegex: ":date\\((?P<fmt>.*)\\)") == ":date(")
        #expect(EspansoReader.literalPrefix(ofRegex: "^:up(?P<n>\\d+)") == ":up")
        #expect(EspansoReader.literalPrefix(ofRegex: "ab?c") == "a")
        #expect(EspansoReader.literalPrefix(ofRegex: "x+y") == "x")
        #expect(EspansoReader.literalPrefix(ofRegex: "\\d+") == "")
        #expect(EspansoReader.groupNames(ofRegex: "(?P<a>x)(?<b>y)(?:z)") == ["a", "b"])
    }

    @Test func dateFormatsMapToLSPVariables() {
        #expect(EspansoReplacement.dateText("%Y-%m-%d %H:%M").text == "${CURRENT_YEAR}-${CURRENT_MONTH}-${CURRENT_DATE} ${CURRENT_HOUR}:${CURRENT_MINUTE}")
        #expect(EspansoReplacement.dateText("%a, %b %y 100%%").text == "${CURRENT_DAY_NAME_SHORT}, ${CURRENT_MONTH_NAME_SHORT} ${CURRENT_YEAR_SHORT} 100%")
        #expect(EspansoReplacement.dateText("$%F}").text == "\\$${CURRENT_YEAR}-${CURRENT_MONTH}-${CURRENT_DATE}\\}")
        #expect(EspansoReplacement.dateText("%-d %j %I%p").unmapped == ["%-d", "%j", "%I", "%p"])
    }

    @Test func nestedMatchesCannotExpandWithoutBound() {
        // Each level names the one below twice: 2^30 copies if expanded blindly.
        var text = "matches:\n  - trigger: \":l0\"\n    replace: \"ha\"\n"
        for level in 1...30 {
            text += """
                  - trigger: ":l\(level)"
                    replace: "{{a}}{{b}}"
                    vars:
                      - {name: a, type: match, params: {trigger: ":l\(level - 1)"}}
                      - {name: b, type: match, params: {trigger: ":l\(level - 1)"}}

                """
        }
        text += "  - trigger: \":self\"\n    replace: \"{{me}}\"\n    vars:\n      - {name: me, type: match, params: {trigger: \":self\"}}\n"
        let library = Self.load(["/esp/match/deep.yml": text])
        #expect(library.snippets.count == 32)
        #expect(library.snippets.allSatisfy { $0.body.utf8.count <= 2 * EspansoReplacement.maximumBodyBytes })
        #expect(Self.snippet(library, ":self")?.body == "${1:me}")
    }

    /// Where espanso refuses to expand a match (its renderer returns an error and types nothing), the body keeps a
    /// placeholder and `check` warns at the line. espanso-render's own cases (espanso/espanso 16e342f):
    /// `renderer/mod.rs` `missing_variable` (`hello {{var}}` with no variable) and `missing_nested_match`,
    /// `extension/echo.rs` `missing_echo_parameter`, and `extension/random.rs` `missing_echo_parameter` (a random
    /// variable without `choices`).
    @Test func whereEspansoRefusesToExpandCheckWarnsAtTheLine() {
        let text = """
            matches:
              - trigger: ":nope"
                replace: "hello {{nope}}"
              - trigger: ":sub"
                replace: "hello {{var}}"
                vars:
                  - name: var
                    type: match
                    params:
                      trigger: ":nested"
              - trigger: ":echo"
                replace: "hello {{said}}"
                vars:
                  - name: said
                    type: echo
              - trigger: ":rand"
                replace: "hello {{pick}}"
                vars:
                  - name: pick
                    type: random
                    params:
                      other: 1
            """
        let library = Self.load(["/esp/match/base.yml": text])
        #expect(Self.snippet(library, ":nope")?.body == "hello ${1:nope}")
        #expect(Self.snippet(library, ":sub")?.body == "hello ${1:var}")
        #expect(Self.snippet(library, ":echo")?.body == "hello ${1:said}")
        #expect(Self.snippet(library, ":rand")?.body == "hello ${1:pick}")
        #expect(
            summaries(library.diagnostics) == [
                "3:21 warning espanso-undefined-variable",
                "8:15 warning espanso-match-not-found",
                "15:15 warning espanso-missing-param",
                "20:15 warning espanso-missing-param",
            ])
        #expect(library.diagnostics.allSatisfy { $0.message.contains("espanso refuses to expand") }, "\(library.diagnostics)")
    }

    /// A match variable of `type: global` names the global variable of that name (espanso-render's "global" alias):
    /// espanso/espanso 16e342f, `renderer/mod.rs` `variable_injection_with_global_variable` (`hello {{output}}`,
    /// `output` echoing `{{var}}`, gives `hello global`). Without such a global it names nothing, and espanso refuses.
    @Test func aMatchVariableOfTypeGlobalIsTheGlobalOfThatName() {
        let text = """
            global_vars:
              - name: var
                type: echo
                params:
                  echo: global
            matches:
              - trigger: ":g"
                replace: "hello {{output}}"
                vars:
                  - name: var
                    type: global
                  - name: output
                    type: echo
                    params:
                      echo: "{{var}}"
              - trigger: ":none"
                replace: "hello {{other}}"
                vars:
                  - name: other
                    type: global
            """
        let library = Self.load(["/esp/match/base.yml": text])
        #expect(Self.snippet(library, ":g")?.body == "hello global")
        #expect(Self.snippet(library, ":none")?.body == "hello ${1:other}")
        #expect(summaries(library.diagnostics) == ["17:21 warning espanso-undefined-variable"])
    }

    /// `propagate_case` and `uppercase_style` as espanso-config reads them (`propagate_case_maps_correctly`,
    /// `uppercase_style_maps_correctly`), and the styles as espanso applies them: `calculate_casing_style` in
    /// `espanso/src/cli/worker/engine/process/middleware/render/mod.rs` for the typed trigger, and espanso-render's
    /// `no_variable_capitalize`, `no_variable_capitalize_words`, `no_variable_uppercase` for the text.
    @Test func theCaseStyleIsEspansosForTheTypedTrigger() {
        let styles: [(typed: String, style: TriggerCasing, casing: TextCasing?)] = [
            (":sig", .uppercase, nil), (":Sig", .uppercase, .capitalize), (":SIG", .uppercase, .uppercase),
            (":S", .uppercase, .uppercase), (":S", .capitalize, .capitalize), (":S", .capitalizeWords, .capitalizeWords),
            (":Si", .capitalizeWords, .capitalizeWords), (":SI", .capitalizeWords, .uppercase), (":", .uppercase, nil),
            ("sIG", .uppercase, nil),
        ]
        for (typed, style, casing) in styles {
            #expect(style.casing(forTyped: typed) == casing, "\(typed) \(style)")
        }
        let body = SnippetBody.parse("plain body").body
        #expect(body.cased(.capitalize).lspText() == "Plain body")
        #expect(body.cased(.uppercase).lspText() == "PLAIN BODY")
        let words = SnippetBody.parse("ordinary least squares, with other.punctuation !Marks").body
        #expect(words.cased(.capitalizeWords).lspText() == "Ordinary Least Squares, With Other.Punctuation !Marks")
        // Placeholders' text and choices are cased as the text around them; a word split by a field stays one word.
        let fields = SnippetBody.parse("dear ${1:sir} ${2|mr,ms|}${3|s,ma'am|}, re${4:gards} $0").body
        #expect(fields.cased(.capitalizeWords).lspText() == "Dear ${1:Sir} ${2|Mr,Ms|}${3|s,ma'Am|}, Re${4:gards} $0")
        #expect(SnippetBody.parse("$1 text").body.cased(.capitalize).lspText() == "$1 text")
    }

    /// A style name of megabytes (a broken or hostile file) gives a note of bounded size.
    @Test func aHugeStyleNameGivesAShortNote() {
        let text = "matches:\n  - trigger: \":a\"\n    replace: a\n    propagate_case: true\n    uppercase_style: \"\(String(repeating: "x", count: 1_000_000))\"\n"
        let library = Self.load(["/esp/match/base.yml": text])
        let note = library.diagnostics.first { $0.code == .espansoUppercaseStyle }
        #expect(note?.message.count == LibraryDiagnostic.maximumMessageLength)
        #expect(note?.message.hasSuffix("…") == true)
        #expect(Self.snippet(library, ":a")?.triggerCasing == .uppercase)
    }

    @Test func propagateCaseAndItsStyleAreRead() {
        let text = """
            matches:
              - trigger: ":a"
                replace: "a"
                propagate_case: true
              - trigger: ":b"
                replace: "b"
                propagate_case: true
                uppercase_style: capitalize_words
              - trigger: ":c"
                replace: "c"
                uppercase_style: capitalize
              - trigger: ":d"
                replace: "d"
                propagate_case: true
                uppercase_style: loud
              - trigger: ":e"
                replace: "e"
            """
        let library = Self.load(["/esp/match/base.yml": text])
        #expect([":a", ":b", ":c", ":d", ":e"].map { Self.snippet(library, $0)?.triggerCasing } == [.uppercase, .capitalizeWords, nil, .uppercase, nil])
        #expect(summaries(library.diagnostics) == ["11:22 note espanso-uppercase-style", "15:22 note espanso-uppercase-style"])
    }

    /// `\{\{` and `\}\}` lose their backslashes, in a replacement and in a variable's text, and a variable with
    /// `inject_vars: false` keeps the `{{…}}` in its params as text. espanso-render's own cases (espanso/espanso
    /// 16e342f, `renderer/mod.rs`): `variable_escape` (`hello \{\{var\}\}` gives `hello {{var}}`),
    /// `escaped_variable_injection` and `disable_variable_injection` (both give `hello {{first}} two`); the
    /// unescaping is `unescape_variable_inections` in `renderer/util.rs`.
    @Test func escapedBracesAndInjectVarsFalseAreTextAsInEspanso() {
        let text = #"""
            matches:
              - trigger: ":esc"
                replace: 'hello \{\{var\}\}'
                vars:
                  - name: var
                    type: echo
                    params:
                      echo: world
              - trigger: ":inj"
                replace: "hello {{second}}"
                vars:
                  - name: first
                    type: echo
                    params:
                      echo: one
                  - name: second
                    type: echo
                    params:
                      echo: '\{\{first\}\} two'
              - trigger: ":off"
                replace: "hello {{second}}"
                vars:
                  - name: first
                    type: echo
                    params:
                      echo: one
                  - name: second
                    type: echo
                    inject_vars: false
                    params:
                      echo: "{{first}} two"
            """#
        // The hub's k8s package (../shared/corpora/espanso-hub/k8s/package.yml, `bb8s`): a Go template as text.
        let k8s = #"""
            matches:
              - trigger: "bb8s"
                replace: "-ogo-template='{{var}}'"
                vars:
                  - name: var
                    type: echo
                    inject_vars: false
                    params:
                      echo: "{{ range $k, $val := .data}}{{$k}}={{ $val | base64decode }}{{\"\\n\"}}{{end}}"
            """#
        let goTemplate = Self.load(["/esp/match/k8s.yml": k8s])
        #expect(goTemplate.diagnostics.isEmpty, "\(goTemplate.diagnostics)")
        #expect(
            SnippetBody.parse(goTemplate.snippets.first?.body ?? "").body.plainText()
                == #"-ogo-template='{{ range $k, $val := .data}}{{$k}}={{ $val | base64decode }}{{"\n"}}{{end}}'"#)
        let library = Self.load(["/esp/match/base.yml": text])
        #expect(Self.snippet(library, ":esc")?.body == #"hello {{var\}\}"#)
        #expect(Self.snippet(library, ":inj")?.body == #"hello {{first\}\} two"#)
        #expect(Self.snippet(library, ":off")?.body == #"hello {{first\}\} two"#)
        for trigger in [":esc", ":inj", ":off"] {
            let body = SnippetBody.parse(Self.snippet(library, trigger)?.body ?? "")
            #expect(body.problems.isEmpty)
            #expect(body.body.plainText() == (trigger == ":esc" ? "hello {{var}}" : "hello {{first}} two"))
        }
        #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
    }

    /// One case of espanso's own tests (`Tests/Fixtures/format-peers/espanso.json`).
    struct PeerCase: Decodable, CustomTestStringConvertible, Sendable {
        struct Ours: Decodable, Sendable {
            var triggers: [String]?
            var body: String?
            var codes: [String]
            /// The `TriggerCasing` raw value, where the text follows the typed trigger's case.
            var casing: String?
        }
        var test: String
        var repository: String
        var commit: String
        var files: [String: String]
        var ours: Ours
        var espanso: [String: JSONCValueBox]
        var difference: String?
        var testDescription: String { "\(repository) \(test)" }
    }

    /// Any JSON value, kept only to compare `espanso.triggers` with ours.
    struct JSONCValueBox: Decodable, Sendable {
        var strings: [String]?
        init(from decoder: any Decoder) throws {
            strings = try? decoder.singleValueContainer().decode([String].self)
        }
    }

    static let peerCases: [PeerCase] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/format-peers/espanso.json")
        struct Fixture: Decodable { var cases: [PeerCase] }
        guard let data = try? Data(contentsOf: url), let fixture = try? JSONDecoder().decode(Fixture.self, from: data) else {
            return []
        }
        return fixture.cases
    }()

    @Test func peerFixtureNamesItsSource() {
        #expect(Self.peerCases.count >= 15)
        #expect(Self.peerCases.allSatisfy { $0.repository == "espanso/espanso" && $0.commit.count == 40 })
    }

    @Test(arguments: peerCases) func espansoPeerCase(_ peer: PeerCase) {
        let library = Self.load(Dictionary(uniqueKeysWithValues: peer.files.map { ("/esp/" + $0.key, $0.value) }))
        #expect(library.snippets.first?.triggers == peer.ours.triggers)
        #expect(library.snippets.first?.body == peer.ours.body)
        #expect(library.snippets.count == (peer.ours.body == nil ? 0 : 1))
        #expect(library.snippets.first?.triggerCasing?.rawValue == peer.ours.casing)
        #expect(library.diagnostics.map(\.code.rawValue).sorted() == peer.ours.codes.sorted(), "\(library.diagnostics)")
        // Where nothing is said to differ, the triggers are espanso's own.
        if peer.difference == nil, let theirs = peer.espanso["triggers"]?.strings {
            #expect(library.snippets.first?.triggers == theirs)
        }
    }
}
