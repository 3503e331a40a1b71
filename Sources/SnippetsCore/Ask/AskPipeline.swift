/// A step of a long ask, for progress reports.
public enum AskStage: String, Hashable, Sendable, CaseIterable {
    case searching
    case askingModel
    case checking

    /// A few words for a progress report.
    public var message: String {
        switch self {
        case .searching: "Searching your snippets"
        case .askingModel: "Asking the model"
        case .checking: "Checking the answer"
        }
    }
}

/// Answers a question from the library: the question's words (plus a model's), literal retrieval, picking among
/// the retrieved candidates, and the audit. A model is optional; without one every step is deterministic.
public struct AskPipeline: Sendable {
    public let library: SnippetLibrary
    public let index: TokenIndex
    public let model: (any AskModel)?
    public let picker: CandidatePicker
    /// Words the user taught (see `LearnedWords`): a separate input, counted like each snippet's description.
    public let learned: LearnedWords
    /// What every ask needs about the whole library, computed once per library.
    public let facts: AskLibraryFacts
    /// The model's role and the figures it came from (see `ModelRole`); `advisory` until measured.
    public let modelStanding: ModelStanding
    /// Where cited snippets' files are read for quoting; nil quotes nothing.
    public let sources: (any SnippetSources)?

    /// A pipeline over `library`, searching `index` (built from the same library). Pass `facts` kept with the
    /// library (one per snapshot) so that an ask does no work proportional to the library's size.
    public init(
        library: SnippetLibrary, index: TokenIndex, facts: AskLibraryFacts? = nil, model: (any AskModel)? = nil,
        modelStanding: ModelStanding = .unmeasured, picker: CandidatePicker = .init(), learned: LearnedWords = .none,
        sources: (any SnippetSources)? = nil
    ) {
        self.sources = sources
        self.library = library
        self.index = index
        self.facts = facts ?? AskLibraryFacts(library: library)
        self.model = model
        self.picker = picker
        self.learned = learned
        self.modelStanding = modelStanding
    }

    /// A pipeline that builds its own index of `library`.
    public init(
        library: SnippetLibrary, model: (any AskModel)? = nil, modelStanding: ModelStanding = .unmeasured,
        picker: CandidatePicker = .init(), learned: LearnedWords = .none, sources: (any SnippetSources)? = nil
    ) {
        self.init(
            library: library, index: TokenIndex(library: library), model: model, modelStanding: modelStanding, picker: picker,
            learned: learned, sources: sources)
    }

    /// The sentences of `snippet` an answer may quote, read from its file as it is now (see `QuoteFinder`), with
    /// stable indexes a per-question schema can offer as a choice. Empty without `sources` or when the file no
    /// longer holds the snippet.
    public func quotableSentences(of snippet: Snippet) -> [QuotableSentence] {
        QuoteReader(sources: sources, caches: facts.caches).sentences(of: snippet)
    }

    /// The answer to `request`. Never fails for a reason a person should see: every outcome is a status with a reason.
    /// Throws only when the surrounding task is cancelled. An invalid request (see `AskRequest.problem`) is clamped.
    public func answer(
        _ request: AskRequest, progress: @Sendable (AskStage) async -> Void = { _ in }
    ) async throws(CancellationError) -> AskResult {
        var questionVector: [Float]?
        var result = try await search(request, vector: &questionVector, progress: progress)
        if let questionVector { result = suggesting(in: result, vector: questionVector, language: request.language) }
        if model != nil { result.model = modelStanding }
        result.meaning = facts.meaning.status
        if let meaning = result.meaning { result = Self.noting(partialMeaning: meaning, in: result) }
        result.searchTerms = showingCorrections(in: result.searchTerms, question: request.question, language: request.language)
        return Self.noting(unsearched: facts.facts.unsearched, in: result)
    }

    /// The declines that may name snippets near the question in meaning: those the deterministic picker made after
    /// searching (a model's "none fits" is its own judgement, and a question without words asked nothing).
    static let suggestingReasons: Set<AskReasonCode> = [.nothingRetrieved, .nothingFits, .premiseNotFound]

    /// The most snippets a declining answer names as near in meaning.
    static let maximumSuggestions = 3

    /// `result`, when it names nothing for one of `suggestingReasons`, with the snippets nearest the question in
    /// meaning named as such ("Nearest in meaning, not confirmed: …"): the document's language's (else any), at most
    /// `maximumSuggestions`, each at least the calibrated `nearness` and within the calibrated margin of the nearest,
    /// never one whose title reads as an instruction. They join the candidates, so every title the answer names is
    /// a candidate's; they are not citations and the status stays `noMatch`: a question in other words than the
    /// snippet's often has its snippet first in meaning, by a lead too small to name it as the answer.
    private func suggesting(in result: AskResult, vector: [Float], language: String?) -> AskResult {
        guard result.status == .noMatch, result.citations.isEmpty, let code = result.reason?.code,
            Self.suggestingReasons.contains(code)
        else { return result }
        let meaning = facts.meaning
        let thresholds = meaning.thresholds
        func nearest(in scope: String?) -> [Snippet] {
            let top = meaning.nearest(to: vector, limit: Self.maximumSuggestions) { id in
                guard let snippet = library.snippet(withID: id) else { return false }
                return library.applies(snippet, toLanguage: scope) && !AskText.isInstruction(snippet.title)
            }
            guard let first = top.first, first.similarity >= thresholds.nearness else { return [] }
            return top.filter { first.similarity - $0.similarity <= thresholds.margin }.compactMap { library.snippet(withID: $0.id) }
        }
        var near = nearest(in: language)
        if near.isEmpty, language != nil { near = nearest(in: nil) }
        guard !near.isEmpty else { return result }
        var result = result
        for snippet in near where !result.candidates.contains(where: { $0.snippetID == snippet.id }) {
            result.candidates.append(AskCandidate(snippet))
        }
        let named = near.map { "\"\($0.title)\"" }.listed(conjunction: "and")
        // Before every snippet is embedded, "nearest" is of those that are: said, as "nothing matches" never is of
        // what was not searched.
        let status = meaning.status
        let among = status.state == .embedding ? " of the \(status.embedded) of \(status.total) snippets embedded so far" : ""
        result.answer += " Nearest in meaning\(among), not confirmed: \(named)."
        result.suggested = near.map(\.id)
        return result
    }

    /// `terms` with each correction of a mistyped question word shown as `recieve → receive`.
    private func showingCorrections(in terms: [String], question: String, language: String?) -> [String] {
        guard !terms.isEmpty else { return terms }
        let question = String(String.UnicodeScalarView(question.unicodeScalars.prefix(AskRequest.questionLength.upperBound)))
        var shown: [String: String] = [:]
        for word in forgiving(scopedWords(of: question, language: language).words) {
            if let correction = word.correction { shown[correction] = "\(word.word) → \(correction)" }
        }
        guard !shown.isEmpty else { return terms }
        return terms.map { shown[$0] ?? $0 }
    }

    /// `result`, saying how much of the library meaning search had covered when it names nothing while snippets are
    /// still being embedded (a decline that names the nearest already says it, in `suggesting`).
    static func noting(partialMeaning meaning: AskMeaning, in result: AskResult) -> AskResult {
        guard meaning.state == .embedding, result.status == .noMatch, result.citations.isEmpty, result.suggested.isEmpty,
            let code = result.reason?.code, suggestingReasons.contains(code)
        else { return result }
        var result = result
        // "Nothing matches" holds only so far: meaning has not looked at every snippet yet.
        let nothing = "Nothing in your library "
        if result.answer.hasPrefix(nothing) {
            result.answer = "So far, nothing in your library " + result.answer.dropFirst(nothing.count)
        }
        result.answer += " Matching by meaning has covered only \(meaning.embedded) of \(meaning.total) snippets."
        return result
    }

    /// `result`, saying what was not searched when it names no snippet and part of the library could not be read:
    /// "nothing matches" is never said about a library that was only partly searched.
    static func noting(unsearched: [String], in result: AskResult) -> AskResult {
        guard !unsearched.isEmpty, result.citations.isEmpty, result.status == .noMatch || result.status == .fallback
        else { return result }
        var result = result
        let parts = unsearched.prefix(3).joined(separator: "; ") + (unsearched.count > 3 ? "; and \(unsearched.count - 3) more" : "")
        result.answer += " Part of your library could not be read, so it was not searched."
        let note = "Not searched: \(parts)."
        if var reason = result.reason {
            reason.message += " " + note
            result.reason = reason
        }
        return result
    }

    /// The answer before `answer(_:)` adds what every result says; `vector` is set to the question's meaning when
    /// it was encoded.
    private func search(
        _ request: AskRequest, vector: inout [Float]?, progress: @Sendable (AskStage) async -> Void
    ) async throws(CancellationError) -> AskResult {
        let question = String(String.UnicodeScalarView(request.question.unicodeScalars.prefix(AskRequest.questionLength.upperBound)))
        let limit = min(max(request.limit, 1), AskRequest.maximumLimit)

        if let unusable = LibraryState.result(for: library) { return unusable }

        let (asked, language) = scopedWords(of: question, language: request.language)
        let words = forgiving(asked)
        let ownTerms = Self.uniqued(words.flatMap(\.forms))
        var terms = ownTerms

        await progress(.searching)
        // The question's meaning, when an encoder is on: it only proposes candidates (see `meaningAnswer`).
        let questionVector = facts.meaning.questionEmbedder.map { $0.embed([question])[0] }
        vector = questionVector
        var modelFault: AskModelError?
        // An ignored model is not called at all.
        let model = modelStanding.role == .ignored ? nil : self.model
        let isTrusted = modelStanding.role == .trusted
        if let model {
            do {
                let extra = try await model.searchWords(question: question)
                let extraTokens = extra.prefix(32).flatMap { AskWords.tokens(in: $0) }.filter { !QuestionWord.isIgnorable($0) }
                terms = Self.uniqued(terms + extraTokens.flatMap(AskWords.searchForms(of:)))
            } catch {
                modelFault = error
            }
            try Self.checkCancellation()
        }
        guard !terms.isEmpty || questionVector != nil else {
            return AskResult(
                status: .noMatch, answer: "Your question has no words to search for, so nothing was searched.",
                searchTerms: [],
                reason: AskReason(
                    code: .noSearchWords,
                    message: "The question holds only common words (such as \"what\" or \"snippet\"). Name what the snippet is about."))
        }

        // Retrieval: real snippets only, each looked up again by its identifier on the way out.
        // Learned words count like a description, in retrieval and in the evidence the picker and audit read.
        func retrieve(_ terms: [String], in language: String?) -> (snippets: [Snippet], taught: [SnippetID: Set<String>]) {
            let taught = learnedMatches(for: terms, language: language)
            let hits = taught.isEmpty
                ? index.search(terms: terms, language: language, limit: limit).hits
                : hitsCountingLearned(taught, terms: terms, language: language, limit: limit)
            let snippets = hits.compactMap { hit -> Snippet? in
                guard let snippet = library.snippet(withID: hit.snippetID),
                    library.applies(snippet, toLanguage: language)
                else { return nil }
                return snippet
            }
            return (snippets, taught)
        }
        func evidenceOf(_ snippets: [Snippet], taught: [SnippetID: Set<String>]) -> [SnippetEvidence] {
            snippets.map { snippet in
                var evidence = facts.caches.evidence(of: snippet)
                evidence.learnedStems = taught[snippet.id] ?? []
                return evidence
            }
        }
        // The whole library is searched: the document's language first, then every other snippet, so that
        // "nothing matches" is never said about a snippet of another language.
        func retrieveAll(_ terms: [String]) -> (inLanguage: [Snippet], others: [Snippet], taught: [SnippetID: Set<String>]) {
            let first = retrieve(terms, in: language)
            guard language != nil else { return (first.snippets, [], first.taught) }
            let wide = retrieve(terms, in: nil)
            let others = wide.snippets.filter { !library.applies($0, toLanguage: language) }
            return (first.snippets, others, first.taught.merging(wide.taught) { $0.union($1) })
        }
        func shown(_ found: (inLanguage: [Snippet], others: [Snippet], taught: [SnippetID: Set<String>])) -> [Snippet] {
            found.inLanguage + found.others.prefix(max(0, limit - found.inLanguage.count))
        }
        let retrieved = retrieveAll(terms)
        var candidates = shown(retrieved)
        // The deterministic pick reads what the question's own words retrieve, so a model's words never change it.
        var own = terms == ownTerms ? retrieved : retrieveAll(ownTerms)
        // A question the user taught for a snippet, asked again, is answered with that snippet.
        let taughtAgain = taughtSnippets(for: question, words: words, language: language)
        for snippet in taughtAgain.reversed() where !own.inLanguage.contains(where: { $0.id == snippet.id }) {
            own.inLanguage.insert(snippet, at: 0)
        }
        let ownEvidence = evidenceOf(own.inLanguage, taught: own.taught)
        let otherEvidence = evidenceOf(own.others, taught: own.taught)
        try Self.checkCancellation()
        // The deterministic pick: the answer when there is no model, and the replacement whenever the model fails.
        // The document's language first; another language's snippets only when none of its own fits.
        let quotes = QuoteReader(sources: sources, caches: facts.caches)
        let ownAudit = AnswerAudit(question: question, evidence: ownEvidence + otherEvidence, facts: facts.facts)
        var abstention: Abstention?
        var deterministic: DraftAnswer?
        if !ownEvidence.isEmpty {
            switch deterministicAnswer(
                question: question, words: words, terms: ownTerms, language: language, candidates: ownEvidence,
                audit: ownAudit, taught: Set(taughtAgain.map(\.id)), quotes: quotes)
            {
            case .picked(let draft): deterministic = draft
            case .abstained(let reason): abstention = reason
            }
        }
        if deterministic == nil, let language, !otherEvidence.isEmpty {
            switch deterministicAnswer(
                question: question, words: words, terms: ownTerms, language: nil, candidates: otherEvidence,
                audit: ownAudit, taught: [], quotes: quotes, otherLanguage: language)
            {
            case .picked(let draft): deterministic = draft
            case .abstained(let reason): abstention = abstention ?? reason
            }
        }
        // Words alone found nothing to name, and the question names nothing they miss: meaning may propose one
        // snippet, which must lead every other by the calibrated margin and hold the question's figures and names.
        var foundByMeaning = false
        // Not for a question that asks for a figure ("what do I charge per mile?"): a near snippet's figure would be
        // quoted as the answer, and a wrong price reads exactly like a right one.
        // Nor before every snippet is embedded: a lead over the snippets that have vectors says nothing about those
        // that do not yet (a twin not embedded yet would make the other lead by any margin); the decline names the
        // nearest of those embedded, as such (`suggesting`).
        if deterministic == nil, abstention?.missing.isEmpty ?? true, let questionVector, taughtAgain.isEmpty,
            !QuoteFinder.asksForFigure(question), facts.meaning.status.state == .ready
        {
            let (pick, leader) = meaningAnswer(
                question: question, words: words, terms: ownTerms, vector: questionVector, language: language, quotes: quotes)
            // The snippet meaning proposed was looked at, named or not.
            if let leader, !own.inLanguage.contains(where: { $0.id == leader.id }) && !own.others.contains(where: { $0.id == leader.id }) {
                own.others.append(leader)
                candidates.append(leader)
            }
            switch pick {
            case .picked(let draft):
                deterministic = draft
                foundByMeaning = true
            case .abstained(let reason):
                if !reason.missing.isEmpty { abstention = reason }
            }
        } else if let picked = deterministic, let questionVector, taughtAgain.isEmpty {
            // Words and meaning agreeing on retrieval's first candidate outrank a lower one the word picker chose.
            let all = own.inLanguage + own.others
            let pickedSnippets = picked.citations.compactMap { citation in all.first { $0.id.rawValue == citation.citedID } }
            if let leader = Self.leaderPassedOver(picked: pickedSnippets, candidates: all, vector: questionVector, meaning: facts.meaning),
                case .picked(let draft) = deterministicAnswer(
                    question: question, words: words, terms: ownTerms, language: language, candidates: evidenceOf([leader], taught: own.taught),
                    audit: ownAudit, taught: [leader.id], quotes: quotes,
                    otherLanguage: language.flatMap { library.applies(leader, toLanguage: $0) ? nil : $0 })
            {
                deterministic = draft
            } else if let kept = Self.picksNearInMeaning(pickedSnippets, vector: questionVector, meaning: facts.meaning),
                case .picked(let draft) = deterministicAnswer(
                    question: question, words: words, terms: ownTerms, language: language, candidates: evidenceOf(kept, taught: own.taught),
                    audit: ownAudit, taught: Set(kept.map(\.id)), quotes: quotes,
                    otherLanguage: language.flatMap { language in kept.contains { library.applies($0, toLanguage: language) } ? nil : language })
            {
                deterministic = draft
            }
        }
        let ownCandidates = own.inLanguage + own.others
        if let deterministic {
            // The model is shown what the deterministic picker chose, so that it can confirm it.
            let picked = deterministic.citations.compactMap { citation in ownCandidates.first { $0.id.rawValue == citation.citedID } }
            let missing = picked.filter { pick in !candidates.contains { $0.id == pick.id } }
            if !missing.isEmpty {
                // Room is made by dropping the weakest candidates that are not picks.
                let pickedIDs = Set(picked.map(\.id))
                candidates = missing + candidates
                var position = candidates.count - 1
                while candidates.count > max(limit, picked.count) && position >= 0 {
                    if !pickedIDs.contains(candidates[position].id) { candidates.remove(at: position) }
                    position -= 1
                }
            }
        }
        let candidateEntries = candidates.map(AskCandidate.init)
        // The deterministic pass's evidence is reused where the candidates are the same snippets.
        let evidence: [SnippetEvidence]
        if terms == ownTerms {
            let known = Dictionary((ownEvidence + otherEvidence).map { ($0.snippet.id, $0) }, uniquingKeysWith: { first, _ in first })
            evidence = candidates.map { known[$0.id] ?? evidenceOf([$0], taught: own.taught)[0] }
        } else {
            evidence = evidenceOf(candidates, taught: retrieved.taught.merging(own.taught) { $0.union($1) })
        }
        var audit = AnswerAudit(question: question, evidence: evidence, facts: facts.facts)

        guard !candidates.isEmpty else {
            let searched = terms.joined(separator: ", ")
            if terms.isEmpty {
                return AskResult(
                    status: .noMatch, answer: "Nothing in your library is near this question in meaning, and it has no words to search for.",
                    searchTerms: [],
                    reason: AskReason(
                        code: .noSearchWords,
                        message: "The question holds only common words (such as \"what\" or \"snippet\"), and no snippet stands out as near it in meaning. Name what the snippet is about."))
            }
            if let modelFault {
                return AskResult(
                    status: .fallback,
                    answer: "Nothing in your library matches the question's own words, and the model could not suggest others.",
                    searchTerms: terms,
                    reason: AskReason(code: modelFault.reasonCode, message: "Searched for: \(searched). Then \(modelFault).".capitalizedFirst))
            }
            return AskResult(
                status: .noMatch, answer: "Nothing in your library matches this question.", searchTerms: terms,
                reason: AskReason(code: .nothingRetrieved, message: "No snippet contains any of the searched words: \(searched)."))
        }

        func deterministicResult(status: AskStatus, reason: AskReason?) -> AskResult {
            if let deterministic {
                var result = finished(deterministic, status: status, terms: terms, candidates: candidateEntries, reason: reason, quotes: quotes)
                result.foundByMeaning = foundByMeaning
                return result
            }
            if reason == nil, let abstention, !abstention.missing.isEmpty {
                let named = abstention.missing.prefix(4).map { "\"\($0)\"" }.listed(conjunction: "or")
                return AskResult(
                    status: .noMatch, answer: "No snippet in your library has what the question names, so none is named.",
                    searchTerms: terms, candidates: candidateEntries,
                    reason: AskReason(
                        code: .premiseNotFound,
                        message: "Not found in any matching snippet: \(named). \(candidates.count) snippet\(candidates.count == 1 ? "" : "s") shared only the question's common words."))
            }
            let answer = "Some snippets share words with the question, but none of them fits it well enough to name."
            return AskResult(
                status: reason == nil ? .noMatch : status, answer: answer, searchTerms: terms, candidates: candidateEntries,
                reason: reason
                    ?? AskReason(
                        code: .nothingFits,
                        message: "\(candidates.count) snippet\(candidates.count == 1 ? "" : "s") matched only part of the question; none is named."))
        }

        guard let model, modelFault == nil else {
            if let modelFault {
                return deterministicResult(
                    status: .fallback,
                    reason: AskReason(code: modelFault.reasonCode, message: Self.fallbackMessage(for: modelFault)))
            }
            return deterministicResult(status: .answered, reason: nil)
        }

        await progress(.askingModel)
        // Where the question's own words name one candidate beyond doubt, a trusted model's reply is checked against
        // it (`TrustChecks`): the server knows that answer itself.
        let known = isTrusted ? Self.knownAnswer(words: words, picked: deterministic, candidates: candidates) : nil
        func checked(_ result: AskResult, _ check: ModelCheck?) -> AskResult {
            var result = result
            result.modelCheck = isTrusted ? check : nil
            return result
        }
        let request = PickRequest(
            question: question,
            candidates: evidence.map {
                PickCandidate(
                    id: $0.snippet.id.rawValue, title: $0.snippet.title, description: $0.snippet.description,
                    excerpt: $0.excerptForModel,
                    // The sentences as the file has them (what an answer may quote), so that a chosen index names
                    // exactly the quote the audit checks; without sources, the entry's own lines.
                    sentences: !isTrusted ? [] : sources == nil ? $0.quotableSentences : quotes.sentences(of: $0.snippet).map(\.text))
            },
            // Only a trusted model chooses what to quote, and only among these sentences.
            offersQuoteChoice: isTrusted)
        let reply: PickReply
        do {
            reply = try await model.pick(request)
        } catch {
            try Self.checkCancellation()
            return deterministicResult(
                status: .fallback, reason: AskReason(code: error.reasonCode, message: Self.fallbackMessage(for: error)))
        }
        try Self.checkCancellation()

        await progress(.checking)
        if reply.status == .noneFit && reply.cited.isEmpty {
            // A trusted model's "none fits" vetoes the deterministic pick: it earned that by declining what must be
            // declined on this library's probes.
            if deterministic != nil && isTrusted {
                return checked(
                    AskResult(
                        status: .noMatch, answer: "None of the snippets that share words with the question answers it.",
                        searchTerms: terms, candidates: candidateEntries,
                        reason: AskReason(
                            code: .modelVetoed,
                            message: "The model, trusted after measurement on your library, read \(candidates.count) matching snippet\(candidates.count == 1 ? "" : "s") and found none that answers the question, though they share its words.")),
                    known == nil ? nil : .declined)
            }
            // Where the question's own words clearly name snippets, an advisory model that finds none is overruled.
            if deterministic != nil {
                return deterministicResult(
                    status: .fallback,
                    reason: Self.disagreement("said none of the \(candidates.count) matching snippet\(candidates.count == 1 ? "" : "s") answers the question"))
            }
            return AskResult(
                status: .noMatch, answer: "None of the snippets that share words with the question answers it.",
                searchTerms: terms, candidates: candidateEntries,
                reason: AskReason(
                    code: .modelFoundNone,
                    message: "The model read \(candidates.count) matching snippet\(candidates.count == 1 ? "" : "s") and found none that answers the question."))
        }
        let cited = reply.cited.compactMap { id in candidates.first { $0.id.rawValue == id } }
        var chosen = quoteChoices(for: cited, question: question, words: words, terms: terms, language: language, reader: quotes)
        // A trusted model may choose which of a cited snippet's sentences to quote: only an index into the
        // sentences it was shown, never text of its own; the audit checks the quote against the file like any.
        if isTrusted, let choice = reply.quote, let snippet = cited.first(where: { $0.id.rawValue == choice.candidateID }) {
            let sentences = quotes.sentences(of: snippet)
            if sentences.indices.contains(choice.sentence) { chosen[snippet.id] = sentences[choice.sentence] }
        }
        audit.quotable = quotes.quotable(for: cited)
        let draft = Self.draft(for: reply, candidates: candidates, quotes: chosen)
        let failures = audit.failures(of: draft)
        if failures.isEmpty {
            guard let deterministic, !isTrusted else {
                // The deterministic picker abstains (this is where a model helps: questions in other words), or the
                // model is trusted: its audited pick stands.
                var result = finished(draft, status: .answered, terms: terms, candidates: candidateEntries, reason: nil, quotes: quotes)
                if isTrusted, let quote = reply.quote, result.citations.contains(where: { $0.snippetID.rawValue == quote.candidateID }) {
                    result.modelQuote = quote
                }
                return checked(result, known.map { draft.citations.map(\.citedID).contains($0) ? .agreed : .citedOther })
            }
            // The deterministic picker is confident: the model may confirm its picks, not drop them or add to them.
            let modelCited = Set(draft.citations.map(\.citedID))
            let confident = Set(deterministic.citations.map(\.citedID))
            let leftOut = confident.subtracting(modelCited).count
            if leftOut > 0 {
                return deterministicResult(
                    status: .fallback,
                    reason: Self.disagreement(
                        confident.count == 1
                            ? "left out the snippet they match" : "left out \(leftOut) of the \(confident.count) snippets they match"))
            }
            return finished(
                modelCited == confident ? draft : deterministic, status: .answered, terms: terms, candidates: candidateEntries,
                reason: nil, quotes: quotes)
        }
        let rules = AuditRule.allCases.filter { rule in failures.contains { $0.rule == rule } }
        return checked(
            deterministicResult(
                status: .fallback,
                reason: AskReason(
                    code: .auditFailed,
                    message: "The model's answer failed the checks (\(rules.map(\.rawValue).joined(separator: ", "))), so this answer was put together from the matching snippets directly.",
                    failedRules: rules)),
            .failedAudit)
    }

    /// The one candidate the question's own words name beyond doubt, by its identifier: every content word of the
    /// question (two at least) is in its title and not all of them in any other candidate's title, and the
    /// deterministic picker chose it alone. A trusted model that declines it or cites another disagrees with what
    /// the server knows; a model's veto of anything less plain is its own judgement and is not checked.
    static func knownAnswer(words: [QuestionWord], picked: DraftAnswer?, candidates: [Snippet]) -> String? {
        let content = words.filter { !$0.isCompound }
        guard content.count >= 2, let picked, picked.citations.count == 1, let id = picked.citations.first?.citedID else { return nil }
        let naming = candidates.filter { candidate in
            let titleStems = Set(AskWords.tokens(in: candidate.title).map(AskWords.stem))
            return content.allSatisfy { $0.isMatched(by: titleStems) }
        }
        guard naming.count == 1, naming[0].id.rawValue == id else { return nil }
        return id
    }

    /// `words` with the library's spelling: a word no snippet holds is read as the library word it most likely
    /// mistypes (`recieve` → receive, shown in `searchTerms`), and every word also matches library words of its
    /// derivational family (`delivery` finds `delivering`). Ask only: completion never corrects.
    private func forgiving(_ words: [QuestionWord]) -> [QuestionWord] {
        guard !words.isEmpty else { return words }
        let neighbourhood = facts.words(index: index)
        return words.map { word in
            // A negated word ("unpaid") and a compound are matched as they are.
            guard !word.isCompound, word.stem == AskWords.stem(word.word) else { return word }
            var word = word
            if !word.forms.contains(where: index.holds(term:)), neighbourhood.family(of: word.word).isEmpty,
                let correction = neighbourhood.correction(of: word.word)
            {
                word.correction = correction
                word.forms = AskWords.searchForms(of: correction)
                word.stem = AskWords.stem(correction)
            }
            let base = word.correction ?? word.word
            for related in neighbourhood.family(of: base).prefix(4) {
                word.forms.append(related)
                let stem = AskWords.stem(related)
                if stem != word.stem && !word.relatedStems.contains(stem) { word.relatedStems.append(stem) }
            }
            return word
        }
    }

    /// The snippets a repeated taught question names: those taught `question` itself (`LearnedWords.questionMark`:
    /// whatever words it taught), and those that learned one of its words and whose own text and learned words
    /// together hold every content word of it, in identifier order.
    private func taughtSnippets(for question: String, words: [QuestionWord], language: String?) -> [Snippet] {
        guard !learned.isEmpty else { return [] }
        let weighed = words.filter { !$0.isCompound }
        var learners: Set<SnippetID> = []
        for word in weighed { learners.formUnion(learned.snippets(learningStem: word.stem)) }
        let askedBefore = learned.snippets(taughtQuestion: question)
        return learners.union(askedBefore).sorted().compactMap { id -> Snippet? in
            guard let snippet = library.snippet(withID: id), library.applies(snippet, toLanguage: language) else { return nil }
            if askedBefore.contains(id) { return snippet }
            let stems = facts.caches.evidence(of: snippet).ownStems.union(learned.stems(for: id))
            // Learning never records a bare number ("turning 40"), so a taught question with one is still a repeat
            // when its other words, two at least, are all held; a question of one held word and a number is not.
            let numbers = weighed.filter { $0.word.allSatisfy(\.isNumber) }
            let rest = weighed.filter { !$0.word.allSatisfy(\.isNumber) }
            guard !rest.isEmpty, rest.allSatisfy({ $0.isMatched(by: stems) }), numbers.isEmpty || rest.count >= 2 else { return nil }
            return snippet
        }.prefix(picker.maximumPicks).map { $0 }
    }

    /// The question's content words, and the language to search in: the document's, else a library language the
    /// question names ("a for loop in python"), whose name is then a scope rather than a word to search for.
    private func scopedWords(of question: String, language: String?) -> (words: [QuestionWord], language: String?) {
        var words = QuestionWord.words(in: question)
        guard language == nil else { return (words, language) }
        let scopes = facts.facts.scopeNames
        let named = Set(words.map(\.word).filter(scopes.contains))
        guard named.count == 1, let scope = named.first, words.count > 1 else { return (words, nil) }
        words.removeAll { $0.word == scope }
        return (words, scope)
    }

    /// Why the deterministic picker named nothing: the question's specific words that no candidate holds (empty
    /// when the candidates simply cover too little of it).
    struct Abstention {
        var missing: [String]
    }

    enum DeterministicPick {
        case picked(DraftAnswer)
        case abstained(Abstention)
    }

    /// The deterministic answer naming the candidates that cover the question well, or why it abstains. `taught`:
    /// snippets a repeated taught question names (cited whatever the picker says). `otherLanguage`: the document's
    /// language, when `candidates` are snippets of other languages (the answer then says so).
    private func deterministicAnswer(
        question: String, words: [QuestionWord], terms: [String], language: String?, candidates: [SnippetEvidence],
        audit: AnswerAudit, taught: Set<SnippetID>, quotes: QuoteReader, otherLanguage: String? = nil
    ) -> DeterministicPick {
        let facts = facts.facts
        let inScope = facts.inScopeCount(language: language, library: library)
        let weighed = words.filter { !$0.isCompound }
        var frequencies: [Int] = []
        // The weights as the library's own text gives them, before learned words count.
        var ownWeights: [Double] = []
        let weights = weighed.map { word in
            // Snippets that contain the word, plus those scoped to a language of that name (see `SnippetEvidence.stems`).
            let scoped = facts.scopedCount(named: [word.word, word.stem], language: language, library: library)
            let own = index.documentFrequency(of: word.forms, language: language) + scoped
            let containing = own + learnedDocumentFrequency(of: word.stem, in: candidates)
            frequencies.append(min(containing, inScope))
            ownWeights.append(CandidatePicker.weight(documentFrequency: min(own, inScope), snippetCount: inScope))
            return CandidatePicker.weight(documentFrequency: min(containing, inScope), snippetCount: inScope)
        }
        var picked: [Snippet]
        if candidates.contains(where: { taught.contains($0.snippet.id) }) {
            // A taught question asked again names what the user taught beside, never instead of, what the question's
            // own words name without any lesson: one insert (a slip of RET included) weighs at most what a title word
            // does, so it cannot hide the snippet whose own words fit, which keeps its place in retrieval's order.
            let unlearned = candidates.map { evidence -> SnippetEvidence in
                var evidence = evidence
                evidence.learnedStems = []
                return evidence
            }
            let ownPicks = Set(picker.picks(from: picker.supports(for: weighed, weights: ownWeights, candidates: unlearned)))
            picked = candidates.filter { taught.contains($0.snippet.id) || ownPicks.contains($0.snippet.id) }
                .prefix(picker.maximumPicks).map(\.snippet)
        } else {
            let supports = picker.supports(for: weighed, weights: weights, candidates: candidates)
            picked = picker.picks(from: supports).compactMap { id in candidates.first { $0.snippet.id == id }?.snippet }
            if !picked.isEmpty, let missing = Self.unfoundPremise(
                question: question, words: weighed, specifics: words, frequencies: frequencies, inScope: inScope, candidates: candidates,
                picked: Set(picked.map(\.id)))
            {
                return .abstained(Abstention(missing: missing))
            }
        }
        guard !picked.isEmpty else {
            let missing = Self.unfoundSpecifics(question: question, words: words, candidates: candidates)
            return .abstained(Abstention(missing: missing))
        }
        let notes = [
            otherLanguage.map { Self.otherLanguageNote(picked: picked, document: $0) } ?? "",
            Self.learnedNote(words: weighed, picked: picked, candidates: candidates),
        ].filter { !$0.isEmpty }
        var audit = audit
        audit.quotable = quotes.quotable(for: picked)
        let chosen = Self.chooseQuotes(
            for: picked, question: question, words: weighed, weights: weights, terms: terms, reader: quotes)
        var draft = AnswerComposer.naming(picked, quotes: chosen, note: notes.joined(separator: " "))
        if !audit.failures(of: draft).isEmpty { draft = AnswerComposer.naming(picked, quotes: chosen, note: notes.first ?? "") }
        if !audit.failures(of: draft).isEmpty { draft = AnswerComposer.naming(picked, quotes: chosen) }
        if !audit.failures(of: draft).isEmpty { draft = AnswerComposer.naming(picked) }
        // Titles alone, as before quotes and layers: a layer name with digits, or four long quotes, can break the
        // number or length rules.
        if !audit.failures(of: draft).isEmpty { draft = AnswerComposer.naming(picked.map { (id: $0.id.rawValue, title: $0.title) }) }
        let failures = audit.failures(of: draft)
        guard failures.isEmpty else {
            // Cannot happen by construction; if it ever does, naming nothing is the safe answer.
            assertionFailure("the deterministic answer failed the audit: \(failures)")
            return .abstained(Abstention(missing: []))
        }
        return .picked(draft)
    }

    /// The first candidate retrieval ranked, when the word picker passed it over although it also leads by meaning:
    /// nearer the question than every pick by at least the calibrated margin. Words and meaning agreeing on a
    /// candidate outrank a lower one that merely covers more of the question's common words ("set up logging"
    /// must not name "Bash strict mode" over "Python logging setup").
    static func leaderPassedOver(picked: [Snippet], candidates: [Snippet], vector: [Float], meaning: SnapshotMeaning) -> Snippet? {
        guard let first = candidates.first, !picked.isEmpty, !picked.contains(where: { $0.id == first.id }) else { return nil }
        let similarity = meaning.similarities(of: vector, to: candidates.map(\.id))
        // A candidate without a vector yet may be nearer than the first: nothing is known to lead until all have one.
        guard similarity.count == Set(candidates.map(\.id)).count, let lead = similarity[first.id],
            candidates.allSatisfy({ similarity[$0.id]! <= lead })
        else { return nil }
        let margin = meaning.thresholds.margin
        guard picked.allSatisfy({ lead - (similarity[$0.id] ?? 1) >= margin }) else { return nil }
        return first
    }

    /// Of several snippets the word picker named, its first and those meaning puts no further from the question than
    /// the first by the calibrated margin; nil when that is all of them (or some have no vector yet). A snippet that
    /// shares the question's words but is far from its meaning is a word match, not an answer ("how much is a
    /// consultation?" names the price, not also the staff rota that mentions consultations), while snippets that
    /// answer together (every price of a kind) stay near one another. The picker's first choice is never dropped:
    /// meaning only removes extras, it does not choose.
    static func picksNearInMeaning(_ picked: [Snippet], vector: [Float], meaning: SnapshotMeaning) -> [Snippet]? {
        guard let first = picked.first, picked.count > 1 else { return nil }
        let similarity = meaning.similarities(of: vector, to: picked.map(\.id))
        guard similarity.count == picked.count, let anchor = similarity[first.id] else { return nil }
        let kept = picked.filter { $0.id == first.id || anchor - similarity[$0.id]! < meaning.thresholds.margin }
        return kept.count < picked.count ? kept : nil
    }

    /// The answer meaning proposes when words found nothing to name: the nearest snippet of the document's
    /// language (else of any), named only when it clears the calibrated thresholds (`MeaningThresholds.admits`)
    /// and holds every figure and name the question gives (else the abstention names what is missing). A meaning
    /// match is never evidence: the answer says it was found by meaning, and the audit checks it like any other.
    private func meaningAnswer(
        question: String, words: [QuestionWord], terms: [String], vector: [Float], language: String?, quotes: QuoteReader
    ) -> (DeterministicPick, Snippet?) {
        let meaning = facts.meaning
        let thresholds = meaning.thresholds
        func leader(in language: String?, excludingLanguage: String? = nil) -> Snippet? {
            let top = meaning.nearest(to: vector, limit: 2) { id in
                guard let snippet = library.snippet(withID: id) else { return false }
                if let excludingLanguage, library.applies(snippet, toLanguage: excludingLanguage) { return false }
                return library.applies(snippet, toLanguage: language)
            }
            guard let best = top.first, thresholds.admits(best: best.similarity, runnerUp: top.count > 1 ? top[1].similarity : nil)
            else { return nil }
            return library.snippet(withID: best.id)
        }
        var otherLanguage: String?
        var found = leader(in: language)
        if found == nil, let language {
            found = leader(in: nil, excludingLanguage: language)
            otherLanguage = language
        }
        guard let snippet = found else { return (.abstained(Abstention(missing: [])), nil) }
        let evidence = facts.caches.evidence(of: snippet)
        let missing = Self.unfoundSpecifics(question: question, words: words, candidates: [evidence])
        guard missing.isEmpty else { return (.abstained(Abstention(missing: missing)), snippet) }
        let weighed = words.filter { !$0.isCompound }
        let weights = weighed.map { _ in 1.0 }
        let chosen = Self.chooseQuotes(for: [snippet], question: question, words: weighed, weights: weights, terms: terms, reader: quotes)
        var notes = ["It was found by meaning rather than by matching words."]
        if let otherLanguage { notes.insert(Self.otherLanguageNote(picked: [snippet], document: otherLanguage), at: 0) }
        var audit = AnswerAudit(question: question, evidence: [evidence], facts: facts.facts)
        audit.quotable = quotes.quotable(for: [snippet])
        for draft in [
            AnswerComposer.naming([snippet], quotes: chosen, note: notes.joined(separator: " ")),
            AnswerComposer.naming([snippet], note: notes.joined(separator: " ")),
            AnswerComposer.naming([(id: snippet.id.rawValue, title: snippet.title)]),
        ] where audit.failures(of: draft).isEmpty {
            return (.picked(draft), snippet)
        }
        return (.abstained(Abstention(missing: [])), snippet)
    }

    /// The sentence to quote of each of `picked` (see `QuoteFinder.choose`), by identifier.
    static func chooseQuotes(
        for picked: [Snippet], question: String, words: [QuestionWord], weights: [Double], terms: [String], reader: QuoteReader
    ) -> [SnippetID: QuotableSentence] {
        let searchStems = Set(terms.map(AskWords.stem))
        var result: [SnippetID: QuotableSentence] = [:]
        for snippet in picked {
            if let sentence = QuoteFinder.choose(
                among: reader.sentences(of: snippet), question: question, words: words, weights: weights, searchStems: searchStems)
            {
                result[snippet.id] = sentence
            }
        }
        return result
    }

    /// The quotes for snippets a model cited: chosen as the deterministic picker chooses, with the question's
    /// words weighed by rarity in `language`.
    private func quoteChoices(
        for cited: [Snippet], question: String, words: [QuestionWord], terms: [String], language: String?, reader: QuoteReader
    ) -> [SnippetID: QuotableSentence] {
        guard sources != nil, !cited.isEmpty else { return [:] }
        let weighed = words.filter { !$0.isCompound }
        let inScope = facts.facts.inScopeCount(language: language, library: library)
        let weights = weighed.map {
            CandidatePicker.weight(documentFrequency: min(index.documentFrequency(of: $0.forms, language: language), inScope), snippetCount: inScope)
        }
        return Self.chooseQuotes(for: cited, question: question, words: weighed, weights: weights, terms: terms, reader: reader)
    }

    /// "It is in your python snippets, not markdown ones." for picks of another language than the document's.
    static func otherLanguageNote(picked: [Snippet], document: String) -> String {
        var scopes: [String] = []
        for snippet in picked {
            for scope in snippet.scopes.prefix(1) where !scopes.contains(scope) { scopes.append(scope) }
        }
        guard !scopes.isEmpty else { return "" }
        let named = scopes.listed(conjunction: "and")
        return "\(picked.count == 1 ? "It is" : "They are") in your \(named) snippets, not \(document) ones."
    }

    /// The figures and named things of the question (see `unfoundPremise`) that no candidate holds, as the question
    /// writes them. A figure is held only as the same whole number with the same unit (see `QuestionFigure`); a
    /// named compound ("A-level") only whole, not by its parts ("low-level" holds `level`, not `a-level`).
    static func unfoundSpecifics(question: String, words: [QuestionWord], candidates: [SnippetEvidence]) -> [String] {
        let named = QuestionWord.namedWords(in: question)
        let figures = QuestionFigure.figures(in: question)
        // Numbers are read as figures; a word that mixes digits and letters ("gpt4") is matched as a word.
        let specific = words.filter { word in
            !word.word.allSatisfy(\.isASCIIDigit) && (word.word.contains(where: \.isASCIIDigit) || named.contains(word.word))
        }
        guard !specific.isEmpty || !figures.isEmpty else { return [] }
        let stemsOf = candidates.map(\.stems)
        let texts = candidates.map(\.trustedText)
        let missingFigures = figures.filter { figure in !texts.contains { figure.isHeld(in: $0) } }.map(\.written)
        let missingWords = specific.filter { word in
            let held = word.isCompound
                ? stemsOf.contains { $0.contains(word.stem) || $0.contains(String(word.stem.filter { $0 != "-" && $0 != "_" })) }
                : stemsOf.contains { word.isMatched(by: $0) }
                    || (word.word.contains(where: \.isASCIIDigit) && texts.contains { AskText.contains(number: word.word, in: $0) })
            return !held
        }.map(\.word)
        return missingFigures + missingWords
    }

    /// The question's specific words that no candidate holds, when they make the picks wrong; nil when the picks
    /// stand. Specific are a figure ("15%", "2024"), a named thing (a capitalised word inside a sentence, an
    /// all-capitals word, a quoted word), and a word rare in the library; the picks stand unless one of the
    /// figures or names is in no candidate, or every word the picks hold is common while a rare or unknown
    /// question word is in no candidate.
    static func unfoundPremise(
        question: String, words: [QuestionWord], specifics: [QuestionWord]? = nil, frequencies: [Int], inScope: Int,
        candidates: [SnippetEvidence], picked: Set<SnippetID>
    ) -> [String]? {
        let missingSpecific = unfoundSpecifics(question: question, words: specifics ?? words, candidates: candidates)
        if !missingSpecific.isEmpty { return missingSpecific }
        let stemsOf = candidates.map(\.stems)
        func inSomeCandidate(_ word: QuestionWord) -> Bool { stemsOf.contains { word.isMatched(by: $0) } }
        // A word is common when more than 2% of the snippets in scope (and at least 3) hold it.
        let commonFrom = max(3, inScope / 50)
        // A form word ("command", "email") is not a premise: a snippet need not name its own form.
        let rareMissing = zip(words, frequencies)
            .filter { $0.1 < commonFrom && !inSomeCandidate($0.0) && !Lexicon.formWords.contains($0.0.word) }.map(\.0.word)
        guard !rareMissing.isEmpty else { return nil }
        for evidence in candidates where picked.contains(evidence.snippet.id) {
            let stems = evidence.stems
            let holdsRare = zip(words, frequencies).contains { $0.1 < commonFrom && $0.0.isMatched(by: stems) }
            if holdsRare { return nil }
        }
        return rareMissing
    }

    /// The answer a model's reply proposes, exactly as proposed: the audit decides whether it may be returned.
    private static func draft(for reply: PickReply, candidates: [Snippet], quotes: [SnippetID: QuotableSentence]) -> DraftAnswer {
        let snippetByID = Dictionary(candidates.map { ($0.id.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        // An identifier that was not a candidate has no title to write; it stays a claim the audit rejects.
        let unknown = reply.cited.filter { snippetByID[$0] == nil }.map { DraftAnswer.Citation(citedID: $0, title: "", utf8Range: 0..<0) }
        switch reply.status {
        case .answered:
            var draft = AnswerComposer.naming(
                AnswerComposer.entries(for: reply.cited.compactMap { snippetByID[$0] }, quotes: quotes), note: reply.note.sentence)
            draft.citations += unknown
            return draft
        case .noneFit:
            // "None fits" while citing is contradictory; the audit names it.
            return DraftAnswer(
                text: "None of the snippets answers the question.",
                citations: reply.cited.map { .init(citedID: $0, title: "", utf8Range: 0..<0) }, claimsAnswer: false)
        }
    }

    /// The result for a draft that passed the audit: citations resolved to the library's snippets.
    private func finished(
        _ draft: DraftAnswer, status: AskStatus, terms: [String], candidates: [AskCandidate], reason: AskReason?,
        quotes: QuoteReader
    ) -> AskResult {
        let citations = draft.citations.compactMap { citation -> AskCitation? in
            guard let snippet = library.snippet(withID: SnippetID(rawValue: citation.citedID)) else { return nil }
            let quote = citation.quote.flatMap { quote in
                quotes.sentences(of: snippet).first { $0.index == quote.sentence }.map {
                    AskQuote(sentence: $0.index, field: $0.field, text: $0.text, answerUTF8Range: quote.utf8Range, location: $0.location)
                }
            }
            return AskCitation(
                snippetID: snippet.id, title: snippet.title, answerUTF8Range: citation.utf8Range, location: snippet.location,
                quote: quote)
        }
        return AskResult(
            status: status, answer: draft.text, searchTerms: terms, citations: citations, candidates: candidates,
            reason: reason)
    }

    /// The `modelDisagreed` reason: the model `what` ("left out 1 of the 2 snippets ...").
    private static func disagreement(_ what: String) -> AskReason {
        AskReason(
            code: .modelDisagreed,
            message: "The model disagreed with the question's own words (it \(what)), so this answer was put together from the matching snippets directly.")
    }

    private static func fallbackMessage(for fault: AskModelError) -> String {
        "\(fault.description.capitalizedFirst), so this answer was put together from the matching snippets directly."
    }

    private static func checkCancellation() throws(CancellationError) {
        if Task.isCancelled { throw CancellationError() }
    }

    private static func uniqued(_ terms: [String]) -> [String] {
        var seen: Set<String> = []
        return terms.filter { seen.insert($0).inserted }
    }
}

/// Whether a library can be searched at all, and what to say when it cannot (`ask` and `search` say the same).
public enum LibraryState {
    /// The `emptyLibrary` or `libraryUnreadable` result for a library without snippets; nil when it has some.
    public static func result(for library: SnippetLibrary) -> AskResult? {
        guard library.snippets.isEmpty else { return nil }
        let errors = library.diagnostics.filter { $0.severity == .error }
        let everyFileFailed = !library.files.isEmpty && library.files.allSatisfy(\.hasErrors)
        let nothingReadable = library.files.isEmpty && !library.loaderDiagnostics.filter { $0.severity == .error }.isEmpty
        if everyFileFailed || nothingReadable {
            let problems = errors.prefix(3).map(\.message).joined(separator: " ")
            return AskResult(
                status: .libraryUnreadable, answer: "Your snippet library could not be read, so nothing was searched.",
                searchTerms: [],
                reason: AskReason(code: .libraryUnreadable, message: problems.isEmpty ? "Every library file failed to load." : problems))
        }
        let message =
            library.searchedPaths.isEmpty
            ? "No library path is configured. Point the server at a folder of snippet files."
            : "Looked in: \(library.searchedPaths.joined(separator: ", ")). Add \(FormatRegistry.whatToAdd) there."
        return AskResult(
            status: .emptyLibrary, answer: "Your snippet library is empty, so there is nothing to search.", searchTerms: [],
            reason: AskReason(code: .emptyLibrary, message: message))
    }
}

extension String {
    /// This string with its first character uppercased.
    var capitalizedFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}

/// The snippet files one ask reads for quoting, each read once, and the quotable sentences of each snippet.
final class QuoteReader {
    let sources: (any SnippetSources)?
    /// The snapshot's kept sentences, reused while a file holds the same entry.
    let caches: AskSnapshotCaches?
    private var files: [String: QuoteFile?] = [:]
    private var sentencesByID: [SnippetID: [QuotableSentence]] = [:]

    init(sources: (any SnippetSources)?, caches: AskSnapshotCaches? = nil) {
        self.sources = sources
        self.caches = caches
    }

    func file(_ uri: String) -> QuoteFile? {
        if let known = files[uri] { return known }
        let file = sources?.bytes(ofFileAt: uri).map(QuoteFile.init(bytes:))
        files[uri] = file
        return file
    }

    func sentences(of snippet: Snippet) -> [QuotableSentence] {
        if let known = sentencesByID[snippet.id] { return known }
        let sentences = file(snippet.location.uri).map { file in
            caches?.quotableSentences(of: snippet, in: file) ?? QuoteFinder.sentences(of: snippet, in: file)
        } ?? []
        sentencesByID[snippet.id] = sentences
        return sentences
    }

    /// What the audit checks quotes of `snippets` against.
    func quotable(for snippets: [Snippet]) -> [String: (sentences: [QuotableSentence], file: QuoteFile)] {
        var result: [String: (sentences: [QuotableSentence], file: QuoteFile)] = [:]
        for snippet in snippets {
            guard let file = file(snippet.location.uri) else { continue }
            result[snippet.id.rawValue] = (sentences(of: snippet), file)
        }
        return result
    }
}
