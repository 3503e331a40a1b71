import Testing
@testable import SnippetsCore

/// Answers quote the sentence that answers, exactly as the file has it, with its range in the file in every
/// position encoding.
@Suite struct AskQuoteTests {
    /// A library file with non-ASCII text before and inside the quoted lines (é: 2 UTF-8 bytes, 1 UTF-16 unit;
    /// 🧾: 4 bytes, 2 units, 1 scalar), and a snippet whose figure sits in its second body line.
    static let text = """
        {
          // Café Müller 🧾 — prices for the café's catering
          "Tarif café 🧾": {
            "prefix": "tarif",
            "description": "Prix du café pour les clients — catering",
            "body": [
              "Bonjour ${1:name},",
              "🧾 Café crème: €4,50 la tasse, livraison comprise.",
              "Merci!"
            ]
          },
          "Adresse Müller": {
            "prefix": "adr",
            "body": "Müllerstraße 7\\nBerlin"
          }
        }
        """
    static let path = "/lib/café.code-snippets"
    static let files = InMemoryFileSystem(files: [path: text])
    static let library = LibraryLoader(fileSystem: files).load(paths: [path])

    func ask(_ question: String) async throws -> AskResult {
        try await AskPipeline(library: Self.library, sources: FileSystemSnippetSources(fileSystem: Self.files))
            .answer(AskRequest(question: question))
    }

    /// The text of the file between two positions, each read in `encoding`.
    func fileText(_ range: SourceRange, _ encoding: PositionEncoding) -> String {
        let table = LineTable(Self.text)
        let start = table.utf8Offset(line: range.start.line, column: range.start.column(in: encoding), in: encoding)
        let end = table.utf8Offset(line: range.end.line, column: range.end.column(in: encoding), in: encoding)
        return String(table.slice(start..<end))
    }

    @Test func aFigureIsQuotedExactlyWithItsRangeInEveryEncoding() async throws {
        let result = try await ask("how much is a café crème?")
        #expect(result.citations.map(\.title) == ["Tarif café 🧾"])
        let quote = try #require(result.citations.first?.quote)
        #expect(quote.text == "🧾 Café crème: €4,50 la tasse, livraison comprise.")
        #expect(quote.field == .body)
        #expect(result.answer.contains("“🧾 Café crème: €4,50 la tasse, livraison comprise.”"))
        // The range in the answer covers the quote, and the range in the file covers it in every encoding.
        #expect(String(LineTable(result.answer).slice(quote.answerUTF8Range)) == quote.text)
        for encoding in PositionEncoding.allCases {
            #expect(fileText(quote.location.range, encoding) == quote.text, "\(encoding)")
        }
        // The columns differ by encoding on this line (🧾 is 4, 2 and 1 units): each is its own count.
        let start = quote.location.range.start
        let end = quote.location.range.end
        #expect(end.utf8Column - start.utf8Column == quote.text.utf8.count)
        #expect(end.utf16Column - start.utf16Column == quote.text.utf16.count)
        #expect(end.scalarColumn - start.scalarColumn == quote.text.unicodeScalars.count)
        #expect(quote.location.uri == Self.library.snippets[0].location.uri)
    }

    @Test func theAuditChecksEveryQuoteAgainstTheFile() async throws {
        let snippet = try #require(Self.library.snippets.first { $0.title == "Tarif café 🧾" })
        let pipeline = AskPipeline(library: Self.library, sources: FileSystemSnippetSources(fileSystem: Self.files))
        let sentences = pipeline.quotableSentences(of: snippet)
        // Stable indexes, description first; every sentence is what the snippet shows of the file's text at its range.
        #expect(sentences.map(\.index) == Array(sentences.indices))
        #expect(sentences.first?.field == .description)
        for sentence in sentences {
            let source = fileText(sentence.location.range, .utf16)
            #expect(QuotableSentence.shownText(ofSource: source, field: sentence.field, format: snippet.format) == sentence.text)
        }
        #expect(sentences.map(\.text).contains("Bonjour name,"))
        let reader = QuoteReader(sources: pipeline.sources)
        var audit = AnswerAudit(question: "café", evidence: [SnippetEvidence(snippet)], facts: AskLibraryFacts.Facts(library: Self.library))
        audit.quotable = reader.quotable(for: [snippet])
        let figure = try #require(sentences.first { $0.text.contains("€4,50") })
        let good = AnswerComposer.naming([snippet], quotes: [snippet.id: figure])
        #expect(audit.failures(of: good) == [])
        // A quote whose text is not the file's at its range, or that names another sentence's number, fails.
        var altered = good
        altered.citations[0].quote?.text = "🧾 Café crème: €3,50 la tasse, livraison comprise."
        altered.text = altered.text.replacingOccurrences(of: "€4,50", with: "€3,50")
        #expect(audit.failures(of: altered).map(\.rule).contains(.quotesExact))
        var renumbered = good
        renumbered.citations[0].quote?.sentence = 0
        #expect(audit.failures(of: renumbered).map(\.rule).contains(.quotesExact))
        // A file changed since it was read no longer backs the quote.
        let changed = InMemoryFileSystem(files: [Self.path: Self.text.replacingOccurrences(of: "€4,50", with: "€5,00")])
        var stale = audit
        stale.quotable = QuoteReader(sources: FileSystemSnippetSources(fileSystem: changed)).quotable(for: [snippet])
        #expect(stale.failures(of: good).map(\.rule).contains(.quotesExact))
    }

    @Test func aStringBodyIsQuotedLineByLine() async throws {
        let result = try await ask("what is the adresse of Müller?")
        #expect(result.citations.map(\.title) == ["Adresse Müller"])
        let quote = try #require(result.citations.first?.quote)
        #expect(quote.text == "Müllerstraße 7")
        for encoding in PositionEncoding.allCases { #expect(fileText(quote.location.range, encoding) == "Müllerstraße 7") }
    }

    /// A tabstop's number and a lone digit in a name are not figures: asked "how much notice", the answer quotes the
    /// line with "48 hours", not the one with `${2:reason}` or a table header with "P1".
    @Test func aTabstopOrANamesDigitIsNotTheFigureAskedFor() async throws {
        let text = """
            {
              "Freeze exception request": {
                "prefix": "freeze",
                "body": [
                  "- Why it cannot wait until after the freeze: ${2:reason}",
                  "| Team | P1 notice for the freeze |",
                  "Send it at least 48 hours before the change window."
                ]
              }
            }
            """
        let files = InMemoryFileSystem(files: ["/lib/f.code-snippets": text])
        let library = LibraryLoader(fileSystem: files).load(paths: ["/lib/f.code-snippets"])
        let result = try await AskPipeline(library: library, sources: FileSystemSnippetSources(fileSystem: files))
            .answer(AskRequest(question: "how much notice does a freeze exception need?"))
        #expect(result.citations.first?.quote?.text == "Send it at least 48 hours before the change window.")
        #expect(!QuoteFinder.holdsFigure("${2:reason} and $1") && !QuoteFinder.holdsFigure("| P1 | S3 |"))
        #expect(QuoteFinder.holdsFigure("contract CDS-2291-LX") && QuoteFinder.holdsFigure("7 days") && QuoteFinder.holdsFigure("above 70% CPU"))
        #expect(QuoteFinder.holdsFigure("open 9am to 1pm") && QuoteFinder.holdsFigure("under 5kg"))
        #expect(QuoteFinder.asksForFigure("at what CPU usage does it scale?") && QuoteFinder.asksForFigure("how often is it backed up?"))
    }

    @Test func withoutSourcesNothingIsQuoted() async throws {
        let result = try await AskPipeline(library: Self.library).answer(AskRequest(question: "how much is a café crème?"))
        #expect(result.citations.map(\.title) == ["Tarif café 🧾"])
        #expect(result.citations.allSatisfy { $0.quote == nil })
    }
}
