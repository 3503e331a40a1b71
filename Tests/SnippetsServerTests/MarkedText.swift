import SnippetsCore
import Testing

@testable import SnippetsServer

/// A document's text written with position markers (`1️⃣`, `2️⃣` …, as sourcekit-lsp's tests write them): the text
/// without them, and where each marker stood as an LSP position, so a test says "the cursor is here" in the text
/// itself instead of counting columns.
struct MarkedText {
    /// The text as the editor holds it, markers taken out.
    let text: String
    /// Each marker's line and the part of that line before it.
    private let places: [String: (line: Int, before: String)]

    init(_ marked: String) {
        var text = ""
        var places: [String: (line: Int, before: String)] = [:]
        var line = 0
        var currentLine = ""
        for character in marked {
            if Self.isMarker(character) {
                precondition(places[String(character)] == nil, "marker \(character) is used twice")
                places[String(character)] = (line, currentLine)
                continue
            }
            text.append(character)
            if character == "\n" {
                line += 1
                currentLine = ""
            } else {
                currentLine.append(character)
            }
        }
        self.text = text
        self.places = places
    }

    /// Where `marker` stood, its column counted in `encoding`'s units (UTF-16 unless the client chose another).
    func position(_ marker: String, in encoding: PositionEncoding = .utf16) -> Position {
        guard let place = places[marker] else {
            Issue.record("no marker \(marker) in the text")
            return Position(line: 0, character: 0)
        }
        return Position(line: place.line, character: encoding.length(of: place.before))
    }

    /// Where `marker` stood, in UTF-16.
    subscript(_ marker: String) -> Position { position(marker) }

    /// The range from one marker to another.
    func range(_ start: String, _ end: String, in encoding: PositionEncoding = .utf16) -> LSPRange {
        LSPRange(start: position(start, in: encoding), end: position(end, in: encoding))
    }

    /// A keycap emoji: a digit, U+FE0F, U+20E3.
    private static func isMarker(_ character: Character) -> Bool {
        let scalars = Array(character.unicodeScalars)
        return scalars.count == 3 && ("0"..."9").contains(scalars[0]) && scalars[1] == "\u{FE0F}" && scalars[2] == "\u{20E3}"
    }
}

extension TestClient {
    /// Opens `uri` holding `document`'s text.
    func open(_ uri: String, language: String, marked document: MarkedText) {
        open(uri, language: language, text: document.text)
    }

    /// The completion list at `position`.
    func complete(_ uri: String, at position: Position) async throws -> CompletionList {
        try await complete(uri, line: position.line, character: position.character)
    }
}

@Suite struct MarkedTextTests {
    @Test func markersAreTakenOutAndPlacedInEachEncoding() {
        let document = MarkedText("line one\n1️⃣😀 при2️⃣\n3️⃣")
        #expect(document.text == "line one\n😀 при\n")
        #expect(document["1️⃣"] == Position(line: 1, character: 0))
        #expect(document["2️⃣"] == Position(line: 1, character: 6))
        #expect(document.position("2️⃣", in: .utf8) == Position(line: 1, character: 11))
        #expect(document.position("2️⃣", in: .utf32) == Position(line: 1, character: 5))
        #expect(document["3️⃣"] == Position(line: 2, character: 0))
    }
}
