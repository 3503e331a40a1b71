import Testing
@testable import SnippetsServer

@Suite struct ArgumentParserTests {
    @Test func readsOptionsFlagsAndPositionals() throws {
        let parsed = try ParsedArguments(
            ["hello world", "--library", "a", "--library=b", "--json", "--", "--not-a-flag"],
            options: ["--library"], flags: ["--json"])
        #expect(parsed.positionals == ["hello world", "--not-a-flag"])
        #expect(parsed.values("--library") == ["a", "b"])
        #expect(parsed.has("--json"))
    }

    @Test func namesTheArgumentThatIsWrong() {
        #expect(throws: ArgumentError.unknownOption("--lib")) {
            try ParsedArguments(["--lib", "x"], options: ["--library"], flags: [])
        }
        #expect(throws: ArgumentError.missingValue("--library")) {
            try ParsedArguments(["--library"], options: ["--library"], flags: [])
        }
        #expect(throws: ArgumentError.invalidValue("--limit", "0", "a positive whole number")) {
            try ParsedArguments(["--limit", "0"], options: ["--limit"], flags: []).positiveInteger("--limit")
        }
    }
}
