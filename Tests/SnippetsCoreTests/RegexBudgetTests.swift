import Testing

@testable import SnippetsCore

/// A library's transform regexes run under a budget of ICU match ticks (work counts, not seconds): per snippet, and
/// shared by every snippet of one request; past it a transform shows its value unapplied. `check` warns of the
/// shapes that backtrack without bound, since editors run them with no budget.
@Suite struct RegexBudgetTests {
    /// `${1:aaaa…a!}` followed by `count` transforms of tabstop 1 by `pattern`: a placeholder of 28 `a`s costs
    /// `^(a|a)*$` about 2^28 steps, minutes of CPU, unbounded.
    static func hostileBody(transforms count: Int, pattern: String = "^(a|a)*$") -> String {
        "${1:" + String(repeating: "a", count: 28) + "!}"
            + String(repeating: " ${1/\(pattern)/x/}", count: count)
    }

    @Test(arguments: ["^(a|a)*$", "^(a+)+$", "^(a*)*$", #"^(\w+\s?)*$"#, "^(.*)(.*)(.*)(.*)(.*)x$"])
    func oneSnippetsTransformsStopAtTheSnippetBudget(pattern: String) {
        let request = RegexBudget(ticks: .max)
        let text = RegexBudget.$request.withValue(request) {
            SnippetBody.parse(Self.hostileBody(transforms: 8, pattern: pattern)).body.plainText()
        }
        // Each transform that ran out shows its value unapplied.
        let value = String(repeating: "a", count: 28) + "!"
        #expect(text == value + String(repeating: " " + value, count: 8))
        #expect(request.spentTicks > 0)
        #expect(request.spentTicks <= RegexBudget.perSnippet)
    }

    @Test func aRequestRenderingManyHostileSnippetsSpendsOneRequestBudget() {
        let request = RegexBudget(ticks: RegexBudget.perRequest)
        let one = RegexBudget(ticks: .max)
        RegexBudget.$request.withValue(one) { _ = SnippetBody.parse(Self.hostileBody(transforms: 8)).body.plainText() }
        RegexBudget.$request.withValue(request) {
            for _ in 0..<50 { _ = SnippetBody.parse(Self.hostileBody(transforms: 8)).body.plainText() }
        }
        // Fifty snippets cost what the request allows, not fifty snippets' budgets.
        #expect(request.spentTicks == RegexBudget.perRequest)
        #expect(one.spentTicks == RegexBudget.perSnippet)
    }

    @Test func aSpentRequestBudgetLeavesLaterTransformsUnappliedAndFreshRequestsApplyThem() {
        let spent = RegexBudget(ticks: 1)
        RegexBudget.$request.withValue(spent) { _ = SnippetBody.parse(Self.hostileBody(transforms: 1)).body.plainText() }
        let cheap = SnippetBody.parse("${1:hello} ${1/(.*)/${1:/upcase}/}").body
        #expect(RegexBudget.$request.withValue(spent) { cheap.plainText() } == "hello hello")
        #expect(RegexBudget.$request.withValue(RegexBudget(ticks: RegexBudget.perRequest)) { cheap.plainText() }
            == "hello HELLO")
    }

    @Test func variableTransformsSentAsTextAreBudgetedToo() {
        let request = RegexBudget(ticks: .max)
        let body = SnippetBody.parse(String(repeating: "${TM_FILENAME/^(a|a)*$/x/} ", count: 8)).body
        let name = String(repeating: "a", count: 28) + "!"
        let text = RegexBudget.$request.withValue(request) { body.lspText(resolving: { _ in name }) }
        #expect(request.spentTicks <= RegexBudget.perSnippet)
        // Unapplied, the transform stays for the client.
        #expect(text.contains("${TM_FILENAME/^(a|a)*$/x/}"))
    }

    @Test func aGlobalTransformCannotMultiplyItsTextPastTheAllowance() {
        // 2,000 matches, each replaced by 200 copies of itself: 400,000 units from a 2,000-unit value.
        let format = String(repeating: "$0", count: 200)
        let body = SnippetBody.parse("${1:" + String(repeating: "b", count: 2_000) + "} ${1/./\(format)/g}").body
        let text = body.plainText()
        #expect(text.utf16.count <= 2 * 2_000 + 1 + SnippetTransform.outputAllowance)
        #expect(text == String(repeating: "b", count: 2_000) + " " + String(repeating: "b", count: 2_000))
    }

    // MARK: check

    @Test(arguments: [
        "^(a|a)*$", "(a+)+", "(a*)*", #"(\w+\s?)*"#, "(.*,)*", "^(a|ab)+$", "(.*)(.*)(.*)x", "(?:x+x+)+y", #"\w+\w*\w+"#,
        "((ab)*c?)*", "(a|)*",
    ])
    func superLinearShapesAreFlagged(pattern: String) {
        let problems = SnippetBody.parse("${1:a} ${1/\(pattern)/x/}").problems
        #expect(problems.map(\.code) == [.backtrackingRegex])
        #expect(problems.first?.severity == .warning)
    }

    @Test(arguments: [
        #"(.*)\..+$"#, "(foo|bar)*", "([^,]*,)*", #"(\w+\s)*"#, "^(.)", #"(\d{2})+"#, "[A-Z]", "(ab*)*", "^\\s*(.*)$",
        #"([a-z]+\.)*"#, "(?<name>x)+", "(a|b|c)+", #"\w+\w*"#,
    ])
    func linearShapesAreNotFlagged(pattern: String) {
        #expect(SnippetBody.parse("${1:a} ${1/\(pattern)/x/}").problems.isEmpty)
    }

    @Test func caseInsensitiveAlternativesOverlap() {
        #expect(SnippetBody.parse("${1:a} ${1/(A|a)*/x/}").problems.isEmpty)
        #expect(SnippetBody.parse("${1:a} ${1/(A|a)*/x/i}").problems.map(\.code) == [.backtrackingRegex])
    }
}
