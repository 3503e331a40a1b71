import Testing

@testable import SnippetsServer

/// Runs the framer over `input` in one piece and returns what it produced (bodies as text, refused headers as
/// "malformed: reason").
func framedMessages(_ input: [UInt8]) -> [String] {
    var framer = MessageFramer()
    framer.append(input)
    var result: [String] = []
    while let event = framer.next() {
        switch event {
        case .message(let body): result.append(String(decoding: body, as: UTF8.self))
        case .malformedHeader(let reason): result.append("malformed: \(reason)")
        }
    }
    return result
}

/// Framing is a pure function over bytes: table-driven cases and a byte-at-a-time feed.
struct MessageFramingTests {
    private func frames(_ input: String) -> [String] { framedMessages(Array(input.utf8)) }

    @Test(arguments: [
        ("Content-Length: 2\r\n\r\n{}", ["{}"]),
        ("content-length: 2\r\n\r\n{}", ["{}"]),
        ("CONTENT-LENGTH:2\r\n\r\n{}", ["{}"]),
        ("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}", ["{}"]),
        ("Content-Length: 2\r\nX-Unknown: 1\r\n\r\n{}", ["{}"]),
        ("Content-Length: 2\r\n\r\n{}Content-Length: 4\r\n\r\n[12]", ["{}", "[12]"]),
        ("Content-Length: 2\r\n\r\n{", []),
        ("Content-Length: 2\r\n", []),
        ("", []),
        ("X-Only: 1\r\n\r\nContent-Length: 2\r\n\r\n{}", ["malformed: no Content-Length header", "{}"]),
        ("Content-Length: abc\r\n\r\n", ["malformed: Content-Length is not a length: abc"]),
        // Lengths count bytes, not characters: "é" is 2 bytes, "😀" 4.
        ("Content-Length: 8\r\n\r\n\"é😀\"", ["\"é😀\""]),
    ])
    func framesTable(input: String, expected: [String]) {
        #expect(frames(input) == expected)
    }

    @Test func byteAtATimeGivesTheSameMessagesAsOnePiece() {
        let bodies = [#"{"a":"é"}"#, #"{"b":"😀 Привет 漢字"}"#, "{}"]
        let stream = bodies.flatMap { MessageFramer.frame(Array($0.utf8)) }
        var framer = MessageFramer()
        var received: [String] = []
        for byte in stream {
            framer.append([byte])
            while let event = framer.next() {
                if case .message(let body) = event { received.append(String(decoding: body, as: UTF8.self)) }
            }
        }
        #expect(received == bodies)
        #expect(framer.isAtMessageBoundary)
    }

    @Test func endOfInputInsideAMessageIsNotABoundary() {
        var framer = MessageFramer()
        framer.append(Array("Content-Length: 10\r\n\r\n{}".utf8))
        #expect(framer.next() == nil)
        #expect(!framer.isAtMessageBoundary)
    }

    @Test func frameWritesByteLength() {
        let framed = MessageFramer.frame(Array("\"😀\"".utf8))
        #expect(String(decoding: framed, as: UTF8.self) == "Content-Length: 6\r\n\r\n\"😀\"")
    }
}
