import Testing

@testable import SnippetsServer

/// Newline-delimited framing is a pure function over bytes: lines whole however they arrive, long lines dropped
/// without being held.
struct MCPLineFramerTests {
    private func lines(_ chunks: [String], limit: Int = 64) -> [String] {
        var framer = MCPLineFramer(maximumLineLength: limit)
        var frames = chunks.flatMap { framer.append(Array($0.utf8)) }
        if let last = framer.finish() { frames.append(last) }
        return frames.map { frame in
            switch frame {
            case .message(let bytes): String(decoding: bytes, as: UTF8.self)
            case .oversized(let prefix, let length): "oversized \(length): \(String(decoding: prefix, as: UTF8.self))"
            }
        }
    }

    @Test(arguments: [
        (["{\"a\":1}\n"], ["{\"a\":1}"]),
        (["{\"a\":1}\r\n{\"b\":2}\n"], ["{\"a\":1}", "{\"b\":2}"]),
        (["{\"a\"", ":1}\n{", "}\n"], ["{\"a\":1}", "{}"]),
        (["\n\n  \n{}\n"], ["{}"]),
        (["{}"], ["{}"]),
    ])
    func splitsLines(_ chunks: [String], _ expected: [String]) {
        #expect(lines(chunks) == expected)
    }

    @Test func feedingOneByteAtATimeGivesTheSameLines() {
        let input = "{\"jsonrpc\":\"2.0\",\"id\":1}\n{\"id\":\"é\"}\r\n"
        #expect(lines(input.map { String($0) }) == ["{\"jsonrpc\":\"2.0\",\"id\":1}", "{\"id\":\"é\"}"])
    }

    @Test func aLongLineIsDroppedAndReadingResumesAtTheNextNewline() {
        let long = "{\"id\":7," + String(repeating: "x", count: 100) + "}"
        let result = lines([String(long.prefix(30)), String(long.dropFirst(30)) + "\n{}\n"], limit: 64)
        #expect(result.count == 2)
        #expect(result[0].hasPrefix("oversized \(long.utf8.count): {\"id\":7,"))
        #expect(result[1] == "{}")
    }

    @Test func anOversizedLineKeepsOnlyItsPrefix() {
        var framer = MCPLineFramer(maximumLineLength: 1024)
        let big = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        #expect(framer.append(big).isEmpty)
        #expect(framer.append(big).isEmpty)
        guard case .oversized(let prefix, let length)? = framer.append(Array("\n".utf8)).first else {
            Issue.record("no oversized frame")
            return
        }
        #expect(prefix.count == MCPLineFramer.keptPrefixLength)
        #expect(length == 2 << 20)
    }

    @Test(arguments: [
        (#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"#, RequestID.number(12)),
        (#"{ "id" : "abc", "params": {"#, RequestID.string("abc")),
        (#"{"method":"x","params":{"id":3,"#, nil),
        (#"{"method":"x","note":"\"id\":4","id":5,"#, RequestID.number(5)),
        (#"{"jsonrpc":"2.0","id":12"#, nil),
        (#"["id",1]"#, nil),
    ] as [(String, RequestID?)])
    func readsTheTopLevelIDOfAnOversizedRequest(_ prefix: String, _ expected: RequestID?) {
        #expect(MCPLineFramer.requestID(inPrefix: Array(prefix.utf8)) == expected)
    }
}

/// Tool arguments are checked with messages that name the argument, so an agent can correct its call.
struct MCPToolArgumentsTests {
    private func problem(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? MCPToolArguments.Problem)?.description ?? "\(error)"
        }
    }

    @Test func namesTheArgumentThatIsWrong() throws {
        let accepted = ["question", "limit"]
        #expect(problem { _ = try MCPToolArguments(tool: "t", arguments: ["questoin": "x"], accepted: accepted) }
            == "t: unknown argument 'questoin'; it takes 'question' and 'limit'")
        let given = try MCPToolArguments(tool: "t", arguments: ["question": 4, "limit": 90], accepted: accepted)
        #expect(problem { _ = try given.string("question", required: true, maximumLength: 10) } == "t: 'question' must be a string, not a number")
        #expect(problem { _ = try given.integer("limit", in: 1...50) } == "t: 'limit' must be from 1 to 50, not 90")
        let empty = try MCPToolArguments(tool: "t", arguments: [:], accepted: accepted)
        #expect(problem { _ = try empty.string("question", required: true, maximumLength: 10) } == "t: missing required argument 'question'")
        #expect(try empty.integer("limit", in: 1...50) == nil)
        let long = try MCPToolArguments(tool: "t", arguments: ["question": .string(String(repeating: "é", count: 11))], accepted: accepted)
        #expect(problem { _ = try long.string("question", maximumLength: 10) } == "t: 'question' is longer than 10 characters (22 bytes)")
    }

    @Test func snippetURIsNameIDsOnly() {
        #expect(SnippetResourceURI.id(in: "snippet://s0123456789abcdef")?.rawValue == "s0123456789abcdef")
        #expect(SnippetResourceURI.id(in: "snippet://../etc/passwd") == nil)
        #expect(SnippetResourceURI.id(in: "file:///s0123456789abcdef") == nil)
        #expect(SnippetResourceURI.id(in: "snippet://") == nil)
    }
}
