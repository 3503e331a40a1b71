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

    /// A pipeline over `library`, searching `index` (built from the same library). Pass `facts` kept with the
    /// library (one per snapshot) so that an ask does no work proportional to the library's size.
    public init(
        library: SnippetLibrary, index: TokenIndex, facts: AskLibraryFacts? = nil, model: (any AskModel)? = nil,
        modelStanding: ModelStanding = .unmeasured, picker: CandidatePicker = .init(), learned: LearnedWords = .none
    ) {
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
        picker: CandidatePicker = .init(), learned: LearnedWords = .none
    ) {
        self.init(
            library: library, index: TokenIndex(library: library), model: model, modelStanding: modelStanding, picker: picker,
            learned: learned)
    }

    /// The answer to `request`. Never fails for a reason a person should see: every outcome is a status with a reason.
    /// Throws only when the surrounding task is cancelled. An invalid request (see `AskRequest.problem`) is clamped.
    public func answer(
        _ request: AskRequest, progress: @Sendable (AskStage) async -> Void = { _ in }
    ) async throws(CancellationError) -> AskResult {
        var result = try await search(request, progress: progress)
        if model != nil { result.model = modelStanding }
        return Self.noting(unsearched: facts.facts.unsearched, in: result)
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

    private func search(
        _ request: AskRequest, progress: @Sendable (AskStage) async -> Void
    ) async throws(CancellationError) -> AskResult {
        let question = String(String.UnicodeScalarView(request.question.unicodeScalars.prefix(AskRequest.questionLength.upperBound)))
        let limit = min(max(request.limit, 1), AskRequest.maximumLimit)

        if let unusable = LibraryState.result(for: library) { return unusable }

        let (words, language) = scopedWords(of: question, language: request.language)
        let ownTerms = Self.uniqued(words.flatMap(\.forms))
        var terms = ownTerms

        await progress(.searching)
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
        guard !terms.isEmpty else {
            return AskResult(
                status: .noMatch, answer: "Your question has no words to search for, so nothing was searched.",
                searchTerms: [],
                reason: AskReason(
                    code: .noSearchWords,
                    message: "The question holds only common words (such as \"what\" or \"snippet\"). Name what the snippet is about."))
        }

        // Retrieval: real snippets only, each looked up again by its identifier on the way out.
        // Learned words count like a description, in retrieval and in the evidence the picker and audit read.
        func retrieve(_ terms: [String]) -> (snippets: [Snippet], taught: [SnippetID: Set<String>]) {
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
                var evidence = SnippetEvidence(snippet)
                evidence.learnedStems = taught[snippet.id] ?? []
                return evidence
            }
        }
        let retrieved = retrieve(terms)
        var candidates = retrieved.snippets
        // The deterministic pick reads what the question's own words retrieve, so a model's words never change it.
        let own = terms == ownTerms ? retrieved : retrieve(ownTerms)
        let ownCandidates = own.snippets
        let ownEvidence = evidenceOf(ownCandidates, taught: own.taught)
        try Self.checkCancellation()
        // The deterministic pick: the answer when there is no model, and the replacement whenever the model fails.
        let deterministic =
            ownCandidates.isEmpty
            ? nil
            : deterministicAnswer(
                words: words, language: language, candidates: ownEvidence,
                audit: AnswerAudit(question: question, evidence: ownEvidence, facts: facts.facts))
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
        let evidence = terms == ownTerms ? ownEvidence : evidenceOf(candidates, taught: retrieved.taught.merging(own.taught) { $0.union($1) })
        let audit = AnswerAudit(question: question, evidence: evidence, facts: facts.facts)

        guard !candidates.isEmpty else {
            let searched = terms.joined(separator: ", ")
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
                return finished(deterministic, status: status, terms: terms, candidates: candidateEntries, reason: reason)
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
        let request = PickRequest(
            question: question,
            candidates: evidence.map {
                PickCandidate(
                    id: $0.snippet.id.rawValue, title: $0.snippet.title, description: $0.snippet.description,
                    excerpt: $0.excerptForModel, sentences: isTrusted ? $0.quotableSentences : [])
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
                return AskResult(
                    status: .noMatch, answer: "None of the snippets that share words with the question answers it.",
                    searchTerms: terms, candidates: candidateEntries,
                    reason: AskReason(
                        code: .modelVetoed,
                        message: "The model, trusted after measurement on your library, read \(candidates.count) matching snippet\(candidates.count == 1 ? "" : "s") and found none that answers the question, though they share its words."))
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
        let draft = Self.draft(for: reply, candidates: candidates)
        let failures = audit.failures(of: draft)
        if failures.isEmpty {
            guard let deterministic, !isTrusted else {
                // The deterministic picker abstains (this is where a model helps: questions in other words), or the
                // model is trusted: its audited pick stands.
                var result = finished(draft, status: .answered, terms: terms, candidates: candidateEntries, reason: nil)
                if isTrusted, let quote = reply.quote, result.citations.contains(where: { $0.snippetID.rawValue == quote.candidateID }) {
                    result.modelQuote = quote
                }
                return result
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
                reason: nil)
        }
        let rules = AuditRule.allCases.filter { rule in failures.contains { $0.rule == rule } }
        return deterministicResult(
            status: .fallback,
            reason: AskReason(
                code: .auditFailed,
                message: "The model's answer failed the checks (\(rules.map(\.rawValue).joined(separator: ", "))), so this answer was put together from the matching snippets directly.",
                failedRules: rules))
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

    /// The deterministic answer naming the candidates that cover the question well, or nil to abstain.
    private func deterministicAnswer(
        words: [QuestionWord], language: String?, candidates: [SnippetEvidence], audit: AnswerAudit
    ) -> DraftAnswer? {
        let facts = facts.facts
        let inScope = facts.inScopeCount(language: language, library: library)
        let weighed = words.filter { !$0.isCompound }
        let weights = weighed.map { word in
            // Snippets that contain the word, plus those scoped to a language of that name (see `SnippetEvidence.stems`).
            let scoped = facts.scopedCount(named: [word.word, word.stem], language: language, library: library)
            let containing = index.documentFrequency(of: word.forms, language: language)
                + learnedDocumentFrequency(of: word.stem, in: candidates)
            return CandidatePicker.weight(documentFrequency: min(containing + scoped, inScope), snippetCount: inScope)
        }
        let supports = picker.supports(for: weighed, weights: weights, candidates: candidates)
        let picked = picker.picks(from: supports).compactMap { id in candidates.first { $0.snippet.id == id }?.snippet }
        guard !picked.isEmpty else { return nil }
        var draft = AnswerComposer.naming(picked, note: Self.learnedNote(words: weighed, picked: picked, candidates: candidates))
        if !audit.failures(of: draft).isEmpty { draft = AnswerComposer.naming(picked) }
        let failures = audit.failures(of: draft)
        guard failures.isEmpty else {
            // Cannot happen by construction; if it ever does, naming nothing is the safe answer.
            assertionFailure("the deterministic answer failed the audit: \(failures)")
            return nil
        }
        return draft
    }

    /// The answer a model's reply proposes, exactly as proposed: the audit decides whether it may be returned.
    private static func draft(for reply: PickReply, candidates: [Snippet]) -> DraftAnswer {
        let titleByID = Dictionary(candidates.map { ($0.id.rawValue, $0.title) }, uniquingKeysWith: { first, _ in first })
        // An identifier that was not a candidate has no title to write; it stays a claim the audit rejects.
        let unknown = reply.cited.filter { titleByID[$0] == nil }.map { DraftAnswer.Citation(citedID: $0, title: "", utf8Range: 0..<0) }
        switch reply.status {
        case .answered:
            var draft = AnswerComposer.naming(
                reply.cited.compactMap { id in titleByID[id].map { (id: id, title: $0) } }, note: reply.note.sentence)
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
        _ draft: DraftAnswer, status: AskStatus, terms: [String], candidates: [AskCandidate], reason: AskReason?
    ) -> AskResult {
        let citations = draft.citations.compactMap { citation -> AskCitation? in
            guard let snippet = library.snippet(withID: SnippetID(rawValue: citation.citedID)) else { return nil }
            return AskCitation(
                snippetID: snippet.id, title: snippet.title, answerUTF8Range: citation.utf8Range, location: snippet.location)
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
            : "Looked in: \(library.searchedPaths.joined(separator: ", ")). Add .code-snippets, .json or .snippets files there."
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
