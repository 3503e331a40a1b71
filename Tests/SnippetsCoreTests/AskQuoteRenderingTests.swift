import Testing
@testable import SnippetsCore

/// A quote reads as what the snippet would insert (placeholders by their text, choices by their first option,
/// variables as the plain body shows them, tabstops as nothing), while its location covers the source text in the
/// file, snippet syntax and the file's escapes included.
@Suite struct AskQuoteRenderingTests {
    /// A VS Code file: a choice and a placeholder, an escaped `\$` (written `\\$` in JSON) beside a placeholder,
    /// variables, and a line that is only `$0`.
    static let text = #"""
        {
          "Move our call": {
            "prefix": "move",
            "body": [
              "Hi ${4:Dana},",
              "Could we move our call to ${1|Tuesday,Wednesday,Thursday|} at ${2:10:00}?",
              "The late fee is \\$45, paid by ${3:card}.",
              "Signed for $CLIENT, file ${TM_FILENAME:notes.txt}.",
              "$0"
            ]
          }
        }
        """#
    static let path = "/lib/calls.code-snippets"
    static let files = InMemoryFileSystem(files: [path: text])
    static let library = LibraryLoader(fileSystem: files).load(paths: [path])

    /// The text of `file` between two positions (UTF-16 columns).
    func fileText(_ range: SourceRange, in file: String = text) -> String {
        let table = LineTable(file)
        let start = table.utf8Offset(line: range.start.line, column: range.start.utf16Column, in: .utf16)
        let end = table.utf8Offset(line: range.end.line, column: range.end.utf16Column, in: .utf16)
        return String(table.slice(start..<end))
    }

    /// The quotable sentences of the library's only snippet, as (shown text, source text in the file).
    func sentences(of library: SnippetLibrary, in files: InMemoryFileSystem, file: String) throws -> [(text: String, source: String)] {
        let snippet = try #require(library.snippets.first)
        return AskPipeline(library: library, sources: FileSystemSnippetSources(fileSystem: files))
            .quotableSentences(of: snippet).map { ($0.text, fileText($0.location.range, in: file)) }
    }

    @Test func aBodyLineIsQuotedAsItShowsWithItsSourceRange() throws {
        let found = try sentences(of: Self.library, in: Self.files, file: Self.text)
        #expect(found.map(\.text) == [
            "Hi Dana,",
            "Could we move our call to Tuesday at 10:00?",
            "The late fee is $45, paid by card.",
            "Signed for CLIENT, file notes.txt.",
        ])
        #expect(found.map(\.source) == [
            "Hi ${4:Dana},",
            "Could we move our call to ${1|Tuesday,Wednesday,Thursday|} at ${2:10:00}?",
            #"The late fee is \\$45, paid by ${3:card}."#,
            "Signed for $CLIENT, file ${TM_FILENAME:notes.txt}.",
        ])
    }

    @Test func theAnswerQuotesTheRenderedLine() async throws {
        let result = try await AskPipeline(library: Self.library, sources: FileSystemSnippetSources(fileSystem: Self.files))
            .answer(AskRequest(question: "could we move our call?"))
        #expect(result.citations.map(\.title) == ["Move our call"])
        let quote = try #require(result.citations.first?.quote)
        #expect(quote.text == "Could we move our call to Tuesday at 10:00?")
        #expect(result.answer.contains("“Could we move our call to Tuesday at 10:00?”"))
        #expect(String(LineTable(result.answer).slice(quote.answerUTF8Range)) == quote.text)
        #expect(fileText(quote.location.range) == "Could we move our call to ${1|Tuesday,Wednesday,Thursday|} at ${2:10:00}?")
    }

    @Test func aLineThatShowsNothingIsNeverQuoted() throws {
        let text = """
            {
              "Only stops": {
                "prefix": "stops",
                "body": ["$0", "${1}", "${2:}", "Done."]
              }
            }
            """
        let files = InMemoryFileSystem(files: ["/lib/s.code-snippets": text])
        let library = LibraryLoader(fileSystem: files).load(paths: ["/lib/s.code-snippets"])
        #expect(try sentences(of: library, in: files, file: text).map(\.text) == ["Done."])
    }

    /// UltiSnips writes a placeholder, an escaped dollar and `$0` as LSP does; its lines are read by its converter.
    @Test func anUltiSnipsLineIsQuotedAsItShows() throws {
        let text = """
            snippet overdue "Overdue invoice"
            Hi ${1:name}, invoice ${2:INV-0000} is now overdue.
            The late fee is \\$45 a week.$0
            endsnippet
            """
        let path = "/lib/UltiSnips/all.snippets"
        let files = InMemoryFileSystem(files: [path: text])
        let library = LibraryLoader(fileSystem: files).load(paths: ["/lib"])
        let found = try sentences(of: library, in: files, file: text)
        #expect(found.map(\.text) == ["Overdue invoice", "Hi name, invoice INV-0000 is now overdue.", "The late fee is $45 a week."])
        #expect(found.map(\.source) == [
            "Overdue invoice", "Hi ${1:name}, invoice ${2:INV-0000} is now overdue.", "The late fee is \\$45 a week.$0",
        ])
    }

    @Test func theAuditAcceptsOnlyTheRenderingOfTheFilesText() throws {
        let snippet = try #require(Self.library.snippets.first)
        let reader = QuoteReader(sources: FileSystemSnippetSources(fileSystem: Self.files))
        var audit = AnswerAudit(question: "call", evidence: [SnippetEvidence(snippet)], facts: AskLibraryFacts.Facts(library: Self.library))
        audit.quotable = reader.quotable(for: [snippet])
        let sentence = try #require(reader.sentences(of: snippet).first { $0.text.contains("Tuesday") })
        #expect(audit.failures(of: AnswerComposer.naming([snippet], quotes: [snippet.id: sentence])) == [])
        // The source as written is text the file holds, but not what the snippet shows: not a quote.
        var raw = sentence
        raw.text = fileText(sentence.location.range)
        #expect(audit.failures(of: AnswerComposer.naming([snippet], quotes: [snippet.id: raw])).map(\.rule) == [.quotesExact])
        // Another rendering (the choice's second option) is not what the file shows either.
        var other = sentence
        other.text = "Could we move our call to Wednesday at 10:00?"
        #expect(audit.failures(of: AnswerComposer.naming([snippet], quotes: [snippet.id: other])).map(\.rule) == [.quotesExact])
        // A file whose placeholder changed since the sentence was read no longer shows it.
        let changed = InMemoryFileSystem(files: [Self.path: Self.text.replacingOccurrences(of: "${2:10:00}", with: "${2:11:00}")])
        var stale = audit
        let staleReader = QuoteReader(sources: FileSystemSnippetSources(fileSystem: changed))
        stale.quotable = [snippet.id.rawValue: (reader.sentences(of: snippet), try #require(staleReader.file(snippet.location.uri)))]
        #expect(stale.failures(of: AnswerComposer.naming([snippet], quotes: [snippet.id: sentence])).map(\.rule) == [.quotesExact])
    }
}
