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

/// `snippets-lsp --help`: every user command and its summary, the summaries in one column; the developer tools
/// (benchmarks, batteries, parser dumps) only in `--help-developer`.
@Suite struct TopLevelHelpTests {
    @Test func everyCommandsSummaryStandsApartInOneColumnAndStartsWithACapital() async {
        let result = await runCommand(["--help"])
        #expect(result.status == 0)
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "Commands:" }.dropFirst()
            .prefix { !$0.isEmpty }
        let developer = await runCommand(["--help-developer"])
        #expect(developer.status == 0)
        let tools = developer.out.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().prefix { !$0.isEmpty }
        #expect(lines.count + tools.count == CommandLineTool.commands.count)
        #expect(tools.contains("  yaml-dump  Debugging aid: print how YAML files are read, as JSON"), "\(tools)")
        #expect(lines.contains("  serve      Speak LSP on stdin/stdout (the default)"), "\(lines)")
        for name in ["bench", "eval", "yaml-dump"] {
            #expect(!lines.contains { $0.hasPrefix("  \(name) ") }, "\(name) is in the help a user reads")
        }
        for line in lines + tools {
            let summary = line.dropFirst(2 + "yaml-dump".count + 2)
            #expect(line.dropFirst(2).prefix("yaml-dump".count + 2).hasSuffix(" "), "a name runs into its summary: \(line)")
            #expect(summary.first?.isUppercase == true, "\(line)")
        }
    }
}

/// Parsing, usage, help and errors come from one declaration per option.
@Suite struct CommandOptionsTests {
    static let options = LibraryOptions.options + CommandOptions([
        CommandOption("--limit", value: .wholeNumber(placeholder: "N", minimum: 1, maximum: 50), help: "How many."),
        CommandOption("--json", help: "Print JSON."),
    ])

    @Test func parsesWhatIsDeclared() throws {
        let parsed = try Self.options.parse(["--library", "a", "--limit=7", "q", "--json", "--library", "b"])
        #expect(parsed.values("--library") == ["a", "b"])
        #expect(try parsed.wholeNumber("--limit") == 7)
        #expect(parsed.has("--json") && parsed.positionals == ["q"])
        #expect(throws: ArgumentError.unknownOption("--lim")) { try Self.options.parse(["--lim", "3"]) }
        #expect(throws: ArgumentError.unexpectedValue("--json")) { try Self.options.parse(["--json=yes"]) }
    }

    @Test func aBadNumberSaysTheDeclaredRange() throws {
        #expect(throws: ArgumentError.invalidValue("--limit", "51", "a whole number from 1 to 50")) {
            try Self.options.parse(["--limit", "51"]).wholeNumber("--limit")
        }
        let unbounded = CommandOptions([CommandOption("--n", value: .wholeNumber(placeholder: "N", minimum: 1, maximum: nil), help: "")])
        #expect(throws: ArgumentError.invalidValue("--n", "0", "a positive whole number")) {
            try unbounded.parse(["--n", "0"]).wholeNumber("--n")
        }
    }

    @Test func usageAndHelpListEveryDeclaredOption() {
        #expect(CommandOptions.usage("x", arguments: "Q", [Self.options]) == "Usage: snippets-lsp x Q [--library PATH]... [--limit N] [--json]")
        let help = Self.options.helpText()
        #expect(help.split(separator: "\n").filter { $0.hasPrefix("  -") }.map { String($0.prefix(18)) } == [
            "  --library PATH  ", "  --limit N       ", "  --json          ", "  -h, --help      ",
        ])
    }

    @Test func helpIsAskedForOnlyWhereAnOptionStands() {
        #expect(Self.options.asksForHelp(["q", "--help"]))
        #expect(Self.options.asksForHelp(["-h"]))
        #expect(!Self.options.asksForHelp(["--", "how", "do", "I", "use", "--help"]))
        #expect(!Self.options.asksForHelp(["--library", "--help"]), "a value, not an option")
    }
}
