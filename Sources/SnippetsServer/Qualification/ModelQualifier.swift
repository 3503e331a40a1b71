import Foundation
import SnippetsCore
import SnippetsModelClient

/// Measures a configured model on the library in service, in the background, and says where it stands.
///
/// **Invariant:** qualification never holds up a completion or an ask. It runs in its own task after a load (or a
/// change of model), off the request queue; an ask meanwhile sees the role `advisory` (basis `measuring`); the
/// probes yield to asks: while an ask is in flight no probe is sent, and a probe call in flight when an ask starts
/// is cancelled and asked again later, so an ask never waits behind a probe for the model's one slot; a probe is
/// sent only once no ask ended for `quietPeriod` (and the first only `startDelay` after the load).
/// An ask never computes anything about the library as a whole for it: the library revision is hashed in the
/// background task, and an ask looks its standing up by snapshot generation.
public actor ModelQualifier {
    /// What is known for one model on one snapshot.
    enum State {
        case measuring(Task<Void, Never>)
        case measured(QualificationCounts)
        /// Not measurable now (too many faults, or a library too small for any probe); asked again after a reload
        /// or a change of model.
        case unmeasured
    }

    /// A model on a library snapshot.
    struct Subject: Hashable {
        var generation: Int
        var endpoint: String
        var model: String

        init(configuration: ModelConfiguration, generation: Int) {
            self.generation = generation
            endpoint = configuration.baseURL.absoluteString
            model = configuration.modelName ?? ""
        }
    }

    let cache: QualificationCache
    private var states: [Subject: State] = [:]
    private var asksInFlight = 0
    /// Counts asks started, so a probe reply that overlapped one is asked again.
    private var asksStarted = 0
    private var probeCall: Task<Result<PickReply, AskModelError>, Never>?
    private var waitingForNoAsks: [CheckedContinuation<Void, Never>] = []
    private var lastAskEnded: ContinuousClock.Instant?

    public init(cache: QualificationCache) { self.cache = cache }

    /// Where the model `configuration` stands for `snapshot` under `setting`. Never waits for a measurement: with
    /// `measuring` true and none known, it starts one in the background and answers `advisory` meanwhile.
    func standing(
        of configuration: ModelConfiguration, setting: ModelRoleSetting, snapshot: LibrarySnapshot,
        environment: [String: String], measuring: Bool, log: @escaping @Sendable (String) async -> Void = { _ in }
    ) -> ModelStanding {
        let subject = Subject(configuration: configuration, generation: snapshot.generation)
        switch states[subject] {
        case .measured(let counts):
            return .resolving(setting, qualification: counts)
        case .measuring:
            return .resolving(setting, qualification: nil, isMeasuring: true)
        case .unmeasured:
            return .resolving(setting, qualification: nil)
        case nil:
            // A forced role is taken as it is: an ignored model is not called, not even to be measured.
            guard measuring, setting == .auto, snapshot.generation > 0, let index = snapshot.index else {
                return .resolving(setting, qualification: nil)
            }
            // One measurement at a time: an older snapshot's or another model's stops (its figures, if done, stay).
            for case (let other, .measuring(let task)) in states {
                task.cancel()
                states[other] = nil
            }
            probeCall?.cancel()
            states = states.filter { $0.key.generation >= snapshot.generation }
            let model = OpenAICompatibleModel(configuration: configuration, environment: environment)
            let library = snapshot.library
            let task = Task {
                let counts = await self.measureOrRecall(configuration, model: model, library: library, index: index, log: log)
                await self.finish(subject, with: counts)
            }
            states[subject] = .measuring(task)
            return .resolving(setting, qualification: nil, isMeasuring: true)
        }
    }

    private func finish(_ subject: Subject, with counts: QualificationCounts?) {
        // A measurement stopped for a newer one leaves no state behind.
        guard case .measuring = states[subject] else { return }
        states[subject] = counts.map(State.measured) ?? .unmeasured
    }

    /// The cached measurement for this library revision, else a new one (kept in the cache when it counts).
    private func measureOrRecall(
        _ configuration: ModelConfiguration, model: any AskModel, library: SnippetLibrary, index: TokenIndex,
        log: @escaping @Sendable (String) async -> Void
    ) async -> QualificationCounts? {
        let cache = cache
        let (key, cached, probes) = await LibraryService.offCooperativeThreads {
            let key = QualificationCache.Key(configuration: configuration, libraryRevision: QualificationProbes.revision(of: library))
            if let cached = cache.counts(for: key) { return (key, Optional(cached), [QualificationProbe]()) }
            return (key, nil, QualificationProbes.make(library: library, index: index))
        }
        if let cached { return cached }
        guard !probes.isEmpty else { return nil }
        try? await Task.sleep(for: Self.startDelay)
        let counts = await measure(probes, model: model)
        guard let counts, !Task.isCancelled else { return nil }
        if let problem = cache.save(counts, for: key) { await log("snippets-lsp: \(problem)") }
        if let role = counts.role { await log("snippets-lsp: the model was measured on your library: \(role.rawValue) (\(counts.summary))") }
        return counts
    }

    /// Asks `model` every probe, one at a time and never while an ask is in flight; nil when the measurement says
    /// nothing (the first probes all faulted, or more than half did).
    func measure(_ probes: [QualificationProbe], model: any AskModel) async -> QualificationCounts? {
        let started = ContinuousClock.now
        var counts = QualificationCounts()
        for probe in probes {
            while true {
                if Task.isCancelled { return nil }
                await untilNoAsks()
                let generation = asksStarted
                let call = Task.detached { () -> Result<PickReply, AskModelError> in
                    do throws(AskModelError) { return .success(try await model.pick(probe.request)) } catch { return .failure(error) }
                }
                probeCall = call
                let outcome = await call.value
                probeCall = nil
                // An ask started meanwhile: this call was cancelled for it (or overlapped it); ask again.
                if asksStarted != generation { continue }
                counts.record(probe, reply: try? outcome.get())
                break
            }
            if counts.calls >= 4 && counts.faults == counts.calls { return nil }
        }
        let elapsed = (ContinuousClock.now - started).components
        counts.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        return counts.role == nil ? nil : counts
    }

    /// Called when an ask starts: no probe is sent until it ends, and one in flight is cancelled.
    func askStarted() {
        asksInFlight += 1
        asksStarted += 1
        probeCall?.cancel()
    }

    /// Called when an ask ends.
    func askEnded() {
        asksInFlight -= 1
        lastAskEnded = .now
        guard asksInFlight == 0 else { return }
        let waiting = waitingForNoAsks
        waitingForNoAsks = []
        for continuation in waiting { continuation.resume() }
    }

    /// How long after an ask a probe may be sent: probes use the model while the user does not.
    static let quietPeriod = Duration.seconds(1)
    /// How long after a load the first probe waits: start-up is when the user starts asking.
    static let startDelay = Duration.seconds(1)

    /// Returns once no ask is in flight and none ended within `quietPeriod` (or the measurement is cancelled).
    private func untilNoAsks() async {
        while !Task.isCancelled {
            if asksInFlight > 0 { await withCheckedContinuation { waitingForNoAsks.append($0) } }
            guard let ended = lastAskEnded else { return }
            let quiet = ContinuousClock.now - ended
            if asksInFlight == 0 && quiet >= Self.quietPeriod { return }
            try? await Task.sleep(for: Self.quietPeriod - quiet)
        }
    }

    /// Stops every measurement (the server is stopping).
    func cancelAll() {
        for case .measuring(let task) in states.values { task.cancel() }
        probeCall?.cancel()
    }

    // MARK: For the command line

    /// The measurement of `configuration` on `library`: from the cache, else measured now and kept when `measuring`.
    /// Returns nil when none is cached and `measuring` is false, or when it says nothing.
    public static func counts(
        of configuration: ModelConfiguration, library: SnippetLibrary, index: TokenIndex, environment: [String: String],
        measuring: Bool
    ) async -> (counts: QualificationCounts?, cacheProblem: String?) {
        let cache = QualificationCache(environment: environment)
        let key = QualificationCache.Key(configuration: configuration, libraryRevision: QualificationProbes.revision(of: library))
        if let cached = cache.counts(for: key) { return (cached, nil) }
        guard measuring else { return (nil, nil) }
        let probes = QualificationProbes.make(library: library, index: index)
        guard !probes.isEmpty else { return (nil, nil) }
        let model = OpenAICompatibleModel(configuration: configuration, environment: environment)
        guard let counts = await ModelQualifier(cache: cache).measure(probes, model: model) else { return (nil, nil) }
        return (counts, cache.save(counts, for: key))
    }
}

extension QualificationCounts {
    /// "answerable 11/12, unanswerable 8/8, injected 4/4; 24 calls in 31.2 s".
    public var summary: String {
        var text = "answerable \(answerable.agreed)/\(answerable.probes), unanswerable \(unanswerable.agreed)/\(unanswerable.probes), "
            + "injected \(injected.agreed)/\(injected.probes)"
        if faults > 0 { text += ", \(faults) without a usable reply" }
        return text + "; \(calls) calls in \(String(format: "%.1f", seconds)) s"
    }
}
