import SnippetsCore
import Testing

@testable import SnippetsServer

/// What a hostile or broken client can send: the framer finds its footing again, refuses lengths it will not
/// buffer, and a completion inside an enormous line costs what one inside a short line does.
struct HostileInputTests {
    private func frames(_ input: [UInt8]) -> [String] { framedMessages(input) }
    private func frames(_ input: String) -> [String] { frames(Array(input.utf8)) }

    @Test func aBodyShorterThanItsHeaderSaidCostsOnlyThatMessage() {
        // The header says 10 but 14 bytes follow: the last 4 run into the next header, which is found again.
        let result = frames("Content-Length: 10\r\n\r\n{\"a\":12345}\r\nContent-Length: 2\r\n\r\n{}")
        #expect(result == ["{\"a\":12345", "malformed: header line without a colon: }", "{}"])
    }

    @Test func aNegativeLengthIsRefusedAndTheNextMessageIsRead() {
        let result = frames("Content-Length: -5\r\n\r\n{\"x\":1}Content-Length: 2\r\n\r\n[]")
        #expect(result == ["malformed: Content-Length is not a length: -5", "malformed: no Content-Length header", "[]"])
    }

    @Test func aHugeLengthIsRefusedInsteadOfBufferedForever() {
        let result = frames("Content-Length: 99999999999999\r\n\r\n{\"x\":1}Content-Length: 2\r\n\r\n[]")
        #expect(result.first == "malformed: Content-Length 99999999999999 is over the limit of 67108864 bytes")
        #expect(result.last == "[]")
    }

    @Test func aLengthThatOverflowsIntIsNotALength() {
        let result = frames("Content-Length: 99999999999999999999999\r\n\r\nContent-Length: 2\r\n\r\n[]")
        #expect(result == ["malformed: Content-Length is not a length: 99999999999999999999999", "[]"])
    }

    @Test func bytesWithoutAnEndOfHeadersAreDroppedNotHoarded() {
        var framer = MessageFramer()
        framer.append([UInt8](repeating: UInt8(ascii: "x"), count: 100_000))
        #expect(framer.next() == .malformedHeader(reason: "no end of headers within 8192 bytes"))
        #expect(framer.next() == nil)
        framer.append(Array("Content-Length: 2\r\n\r\n{}".utf8))
        var bodies: [String] = []
        while let event = framer.next() {
            if case .message(let body) = event { bodies.append(String(decoding: body, as: UTF8.self)) }
        }
        #expect(bodies == ["{}"])
    }

    @Test func aHeaderNameIsFoundAgainWhateverItsCase() {
        #expect(frames("garbageCONTENT-length: 2\r\n\r\n{}") == ["malformed: no Content-Length header", "{}"])
    }

    @Test func aBodyAtTheLimitIsStillAMessage() {
        let body = [UInt8](repeating: UInt8(ascii: " "), count: 1024)
        #expect(MessageFramer.parse(MessageFramer.frame(body)[...]) != .incomplete)
        #expect(MessageFramer.maximumBodyLength >= 16 * 1024 * 1024)  // 10 MB strings must still fit
    }

    @Test func aWordLongerThanAnyTriggerIsNotATypedPrefix() {
        let line = String(repeating: "a", count: 1_000_000)
        let table = LineTable(line)
        let atEnd = TypedPrefix(at: line.utf8.count, in: table)
        #expect(atEnd.wordRun == nil)
        #expect(atEnd.longRun == nil)
        let nearStart = TypedPrefix(at: 3, in: table)
        #expect(nearStart.wordRun?.text == "aaa")
        #expect(nearStart.wordEndAfterCursor == 3 + TypedPrefix.maximumRunLength)
    }

    @Test func aWordOfExactlyTheLimitIsStillTyped() {
        let line = "x " + String(repeating: "b", count: TypedPrefix.maximumRunLength)
        let prefix = TypedPrefix(at: line.utf8.count, in: LineTable(line))
        #expect(prefix.wordRun?.text.count == TypedPrefix.maximumRunLength)
        #expect(prefix.longRun?.text.count == TypedPrefix.maximumRunLength)
    }
}
