import Foundation

#if canImport(_FoundationICU)
    import _FoundationICU
#endif

/// How much work library-supplied regular expressions (transforms) may do, counted in ICU's match ticks.
///
/// ICU's matcher counts its steps and, every 10,000 of them (a tick), calls the match callback, which can stop the
/// match; a tick took 0.15–0.25 ms on the machines measured (4–6 ticks a millisecond, whatever the pattern). A
/// budget is therefore a count of work, the same on every run and machine, not a clock. One is made per snippet
/// rendered (`perSnippet`) and one per request or tool call (`perRequest`, reached through `RegexBudget.request`);
/// a match charges both and stops when either is spent, and the transform is then shown unapplied.
public final class RegexBudget: @unchecked Sendable {  // `spent` is only touched under `lock`.
    /// ICU's steps per tick (`TIMER_INITIAL_VALUE` in ICU's `rematch.cpp`).
    public static let stepsPerTick = 10_000
    /// Ticks one snippet's transforms may use in all: about 10 ms.
    public static let perSnippet = 40
    /// Ticks one request's transforms may use in all, across every snippet it renders: about 30 ms.
    public static let perRequest = 120

    /// The budget of the request (or MCP tool call) being answered, set by the server around each one; nil outside
    /// a request, where only the per-snippet budget applies.
    @TaskLocal public static var request: RegexBudget?

    /// The ticks this budget allows.
    public let limit: Int
    private let lock = NSLock()
    private var spent = 0

    /// A budget of `limit` ticks.
    public init(ticks limit: Int) {
        self.limit = limit
    }

    /// The ticks used so far (at most `limit`): a work count tests and the benchmark read.
    public var spentTicks: Int {
        lock.lock()
        defer { lock.unlock() }
        return spent
    }

    /// Whether nothing is left.
    public var isSpent: Bool { spentTicks >= limit }

    /// Takes one tick; false when none was left.
    func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard spent < limit else { return false }
        spent += 1
        return true
    }
}

/// Matches of a regular expression over a text, found by ICU under one or more `RegexBudget`s.
enum BudgetedRegex {
    /// One match: the UTF-16 range of each capture group (group 0 is the whole match), nil where a group did not
    /// take part.
    typealias Match = [NSRange?]

    /// The matches of `pattern` in `text` (the first only unless `all`), or nil when the pattern does not compile
    /// or a budget ran out before matching ended.
    static func matches(
        of pattern: String, options: NSRegularExpression.Options, in text: String, all: Bool, budgets: [RegexBudget]
    ) -> [Match]? {
        guard budgets.allSatisfy({ !$0.isSpent }) else { return nil }
        #if canImport(_FoundationICU)
            return icuMatches(of: pattern, options: options, in: text, all: all, budgets: budgets)
        #else
            // Without ICU's C API (Darwin's Foundation keeps it private) the match cannot be stopped; the static
            // check (`RegexBacktracking`) and the input cap are then the only bounds.
            guard let expression = try? NSRegularExpression(pattern: pattern, options: options) else { return nil }
            let found = expression.matches(in: text, range: NSRange(location: 0, length: (text as NSString).length))
            return (all ? found : Array(found.prefix(1))).map { match in
                (0..<match.numberOfRanges).map { match.range(at: $0).location == NSNotFound ? nil : match.range(at: $0) }
            }
        #endif
    }

    #if canImport(_FoundationICU)
        /// What the match callback charges: every budget, one tick each.
        private final class Charge {
            let budgets: [RegexBudget]
            init(budgets: [RegexBudget]) { self.budgets = budgets }
        }

        private static func icuMatches(
            of pattern: String, options: NSRegularExpression.Options, in text: String, all: Bool,
            budgets: [RegexBudget]
        ) -> [Match]? {
            var flags: UInt32 = 0
            if options.contains(.caseInsensitive) { flags |= UREGEX_CASE_INSENSITIVE.rawValue }
            if options.contains(.anchorsMatchLines) { flags |= UREGEX_MULTILINE.rawValue }
            if options.contains(.dotMatchesLineSeparators) { flags |= UREGEX_DOTALL.rawValue }
            var status = U_ZERO_ERROR
            let patternUnits = Array(pattern.utf16)
            guard let regex = swift_uregex_open(patternUnits, Int32(patternUnits.count), flags, nil, &status),
                status.rawValue <= U_ZERO_ERROR.rawValue
            else { return nil }
            defer { swift_uregex_close(regex) }
            let charge = Charge(budgets: budgets)
            let context = Unmanaged.passUnretained(charge).toOpaque()
            swift_uregex_setMatchCallback(
                regex,
                { context, _ in
                    guard let context else { return 0 }
                    let charge = Unmanaged<Charge>.fromOpaque(context).takeUnretainedValue()
                    // A tick is taken from every budget or from none: the match stops at the first one spent.
                    guard charge.budgets.allSatisfy({ !$0.isSpent }) else { return 0 }
                    for budget in charge.budgets { _ = budget.take() }
                    return 1
                }, context, &status)
            guard status.rawValue <= U_ZERO_ERROR.rawValue else { return nil }
            let textUnits = Array(text.utf16)
            let groupCount = Int(swift_uregex_groupCount(regex, &status))
            var found: [Match] = []
            let finished: Bool = withExtendedLifetime(charge) {
                textUnits.withUnsafeBufferPointer { buffer in
                    swift_uregex_setText(regex, buffer.baseAddress, Int32(buffer.count), &status)
                    guard status.rawValue <= U_ZERO_ERROR.rawValue else { return false }
                    while swift_uregex_findNext(regex, &status) != 0 {
                        var match: Match = []
                        for group in 0...groupCount {
                            let start = Int(swift_uregex_start(regex, Int32(group), &status))
                            let end = Int(swift_uregex_end(regex, Int32(group), &status))
                            match.append(start < 0 ? nil : NSRange(location: start, length: end - start))
                        }
                        found.append(match)
                        if !all { break }
                    }
                    // U_REGEX_STOPPED_BY_CALLER when a budget ran out.
                    return status.rawValue <= U_ZERO_ERROR.rawValue
                }
            }
            return finished ? found : nil
        }
    #endif
}
