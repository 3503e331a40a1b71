/// One comparison of a trusted model's reply with an answer the server knows itself: an answerable probe (its
/// answer key names the snippet), or an ask whose own words name one candidate beyond doubt (`AskPipeline`).
public enum ModelCheck: String, Hashable, Sendable, Codable, CaseIterable {
    /// The reply agreed with the known answer.
    case agreed
    /// It said none fits, where the server knows which snippet answers.
    case declined
    /// It cited other snippets than the one the server knows answers.
    case citedOther
    /// Its answer failed the audit (`AnswerAudit`), so it was not shown.
    case failedAudit

    /// Whether the reply disagreed with what the server knows.
    public var isDisagreement: Bool { self != .agreed }
}

/// The latest checks of a trusted model, and the rule that ends its trust.
///
/// **Invariant (trust that expires):** a trusted role is kept only while the model keeps agreeing with what the
/// server can verify itself. A trusted model is checked at least once every `asksPerCheck` asks: every ask whose
/// answer the server knows is a check, and after at most `asksPerCheck` asks without one an answerable probe follows
/// (while that probe is due and unanswered, asks see the model `advisory`, basis `checking`). When
/// `demotingDisagreements` of its latest `window` checks disagree, it is `advisory` (basis `demoted`) from the next
/// ask on, and the demotion is kept in the cache. So a model that disagrees with every check from some ask on is
/// demoted within at most `mostAsksBeforeDemotion` (9) asks of it starting to disagree, and a restart does not
/// restore its trust.
public struct TrustChecks: Hashable, Sendable, Codable {
    /// How many of the latest checks are kept.
    public static let window = 5
    /// How many disagreements among the kept checks end trust: a majority of a full window, so one unlucky reply
    /// (a model measured trusted agrees 9 times in 10) does not, and three in a row do.
    public static let demotingDisagreements = 3
    /// The most asks a trusted model answers between two checks. Small, because each is a veto it may cast wrongly;
    /// a probe costs the model two calls in a moment the user does not use it, so not every ask.
    public static let asksPerCheck = 3
    /// The most asks a model that disagrees with every check keeps its trust after it starts to disagree.
    public static let mostAsksBeforeDemotion = demotingDisagreements * asksPerCheck

    /// The latest checks, oldest first, at most `window`.
    public private(set) var latest: [ModelCheck]

    /// A record holding the last `window` of `latest`.
    public init(latest: [ModelCheck] = []) {
        self.latest = Array(latest.suffix(Self.window))
    }

    /// Adds `check`, forgetting the oldest past `window`.
    public mutating func record(_ check: ModelCheck) {
        latest.append(check)
        if latest.count > Self.window { latest.removeFirst(latest.count - Self.window) }
    }

    /// How many of the latest checks disagreed.
    public var disagreements: Int { latest.filter(\.isDisagreement).count }

    /// Whether these checks end the model's trust.
    public var endTrust: Bool { disagreements >= Self.demotingDisagreements }

    /// How many of the latest checks came out as `check`.
    public func count(of check: ModelCheck) -> Int { latest.filter { $0 == check }.count }

    /// "declined 3 of the last 5 checks", "declined 2 and failed the audit in 1 of the last 4 checks".
    public var summary: String {
        Self.summary(declined: count(of: .declined), citedOther: count(of: .citedOther), failedAudit: count(of: .failedAudit), of: latest.count)
    }

    /// The summary from its figures (the wire form carries these).
    public static func summary(declined: Int, citedOther: Int, failedAudit: Int, of checks: Int) -> String {
        var parts: [String] = []
        if declined > 0 { parts.append("declined \(declined)") }
        if citedOther > 0 { parts.append("cited another snippet in \(citedOther)") }
        if failedAudit > 0 { parts.append("failed the audit in \(failedAudit)") }
        if parts.isEmpty { parts.append("disagreed with none") }
        return parts.listed(conjunction: "and") + " of the last \(checks) check\(checks == 1 ? "" : "s") with a known answer"
    }
}
