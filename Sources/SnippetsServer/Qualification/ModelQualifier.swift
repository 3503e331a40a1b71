import Foundation
import SnippetsCore
import SnippetsModelClient

/// How probes are spaced in time, so that they read as a person's asks and never as a burst.
public struct ProbePacing: Sendable {
    /// How long the model must have been idle (no call of an ask or a probe since) before a probe is sent: drawn
    /// anew, uniformly, for each probe.
    public var gap: ClosedRange<Duration>

    /// Probes after an idle gap drawn from `gap`.
    public init(gap: ClosedRange<Duration>) { self.gap = gap }

    /// The server's: one to eight seconds, the pause of a person between two questions, so a measurement's probes
    /// trickle out over a few minutes between the user's asks, and a check follows an ask as a next question would.
    public static let standard = ProbePacing(gap: .seconds(1) ... .seconds(8))
    /// None: the command line measures while the user waits for it (`doctor`, `eval`).
    public static let immediate = ProbePacing(gap: .zero ... .zero)

    /// The gap before the next probe.
    func nextGap() -> Duration {
        let low = Int(gap.lowerBound / .milliseconds(1))
        let high = Int(gap.upperBound / .milliseconds(1))
        return .milliseconds(Int.random(in: low...max(low, high)))
    }
}

/// Measures a configured model on the library in service, in the background, keeps checking a trusted one, and
/// says where it stands.
///
/// **Invariant:** qualification never holds up a completion or an ask. It runs in its own task after a load (or a
/// change of model), off the request queue; an ask meanwhile sees the role `advisory` (basis `measuring`); the
/// probes yield to asks: while an ask is in flight no probe is sent, and a probe call in flight when an ask starts
/// is cancelled and asked again later, so an ask never waits behind a probe for the model's one slot.
/// An ask never computes anything about the library as a whole for it: the library revision is hashed in the
/// background task, and an ask looks its standing up by snapshot generation.
///
/// **Invariant (trust that expires):** a role above `advisory` is not a one-time grant.
/// - Probes read as asks: each is the two calls an ask makes (search words, then the pick, with the same prompts,
///   and the quote choice a trusted model's asks offer), one at a time, each only after the model has been idle for
///   a gap drawn from `pacing`, so they are spread between the user's asks, never a burst after a load.
/// - A trusted model keeps being checked (`TrustChecks`): every ask whose answer the server knows is a check, and
///   after at most `TrustChecks.asksPerCheck` asks without one an answerable probe follows; while it is due and
///   unanswered, asks see the model `advisory` (basis `checking`). When `TrustChecks.demotingDisagreements` of its
///   latest `TrustChecks.window` checks disagree it is `advisory` (basis `demoted`) from the next ask on, and the
///   cache keeps the demotion in place of the measurement: demoted within at most
///   `TrustChecks.mostAsksBeforeDemotion` asks of it starting to disagree, and not trusted again after a restart.
/// - A measurement is recalled only for the identity the server reports for the model now
///   (`OpenAICompatibleModel.identity()`) and within `QualificationCache.maximumAge`; a trusted model whose reported
///   identity changes is measured again.
public actor ModelQualifier {
    /// What is known for one model on one snapshot.
    enum State {
        case measuring(Task<Void, Never>)
        case measured(QualificationCounts)
        /// Trusted on these figures, then its checks ended the trust (here, or in the cache within its age).
        case demoted(QualificationCounts?, TrustChecks)
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

    /// What a measurement, or the cache, found for a subject.
    enum Finding: Sendable {
        case measured(QualificationCounts, key: QualificationCache.Key, probes: [QualificationProbe])
        case demoted(QualificationCounts?, TrustChecks)
    }

    /// The trusted model under watch: its latest checks, and the probes that keep checking it.
    struct Watch {
        var subject: Subject
        var key: QualificationCache.Key
        var counts: QualificationCounts
        var model: any AskModel
        /// What the server says of the model now (`OpenAICompatibleModel.identity()`).
        var identify: @Sendable () async -> String?
        var log: @Sendable (String) async -> Void
        /// The library's answerable probes, shuffled, asked in turn.
        var probes: [QualificationProbe]
        var nextProbe = 0
        var checks = TrustChecks()
        var asksSinceCheck = 0
        /// After how many asks without a check a probe is due: drawn in 1...`TrustChecks.asksPerCheck` after each
        /// check, so a probe does not follow every third ask.
        var asksBeforeCheck = Watch.drawnAsksBeforeCheck()
        var probeTask: Task<Void, Never>?

        var isCheckDue: Bool { asksSinceCheck >= asksBeforeCheck }

        static func drawnAsksBeforeCheck() -> Int { Int.random(in: 1...TrustChecks.asksPerCheck) }
    }

    /// How a probe went: answered (a reply, or nil for a fault, after that many calls), or overlapped by an ask
    /// (cancelled for it, or sent while it ran), to be asked again later.
    enum ProbeOutcome {
        case answered(PickReply?, calls: Int)
        case overlapped
    }

    let cache: QualificationCache
    let pacing: ProbePacing
    private var states: [Subject: State] = [:]
    private var watch: Watch?
    private var asksInFlight = 0
    /// Counts asks started, so a probe reply that overlapped one is asked again.
    private var asksStarted = 0
    private var probeCall: Task<(reply: PickReply?, calls: Int), Never>?
    private var waitingForNoAsks: [CheckedContinuation<Void, Never>] = []
    /// When the model last finished a call of ours (an ask's or a probe's), or a measurement began.
    private var lastActivity = ContinuousClock.now

    /// A qualifier keeping measurements in `cache` and spacing probes by `pacing`.
    public init(cache: QualificationCache, pacing: ProbePacing) {
        self.cache = cache
        self.pacing = pacing
    }

    /// Where the model `configuration` stands for `snapshot` under `setting`. Never waits for a measurement: with
    /// `measuring` true and none known, it starts one in the background and answers `advisory` meanwhile.
    func standing(
        of configuration: ModelConfiguration, setting: ModelRoleSetting, snapshot: LibrarySnapshot,
        environment: [String: String], measuring: Bool, log: @escaping @Sendable (String) async -> Void = { _ in }
    ) -> ModelStanding {
        let subject = Subject(configuration: configuration, generation: snapshot.generation)
        switch states[subject] {
        case .measured(let counts):
            if setting == .auto, let watch, watch.subject == subject, watch.isCheckDue {
                // Trusted again once its due check is answered.
                scheduleCheck()
                return ModelStanding(role: .advisory, basis: .checking, qualification: counts)
            }
            return .resolving(setting, qualification: counts)
        case .demoted(let counts, let checks):
            return .resolving(setting, qualification: counts, demotedBy: checks)
        case .measuring:
            return .resolving(setting, qualification: nil, isMeasuring: true)
        case .unmeasured:
            return .resolving(setting, qualification: nil)
        case nil:
            // A forced role is taken as it is: an ignored model is not called, not even to be measured.
            guard measuring, setting == .auto, snapshot.generation > 0, let index = snapshot.index else {
                return .resolving(setting, qualification: nil)
            }
            // One measurement at a time: an older snapshot's or another model's stops (its figures, if done, stay),
            // and so does a check of the model under watch (its checks carry over to this measurement).
            for case (let other, .measuring(let task)) in states {
                task.cancel()
                states[other] = nil
            }
            probeCall?.cancel()
            watch?.probeTask?.cancel()
            watch?.probeTask = nil
            states = states.filter { $0.key.generation >= snapshot.generation }
            lastActivity = .now
            let model = OpenAICompatibleModel(configuration: configuration, environment: environment)
            let library = snapshot.library
            let task = Task {
                let finding = await self.measureOrRecall(configuration, model: model, library: library, index: index, log: log)
                self.finish(subject, with: finding, model: model, log: log)
            }
            states[subject] = .measuring(task)
            return .resolving(setting, qualification: nil, isMeasuring: true)
        }
    }

    private func finish(
        _ subject: Subject, with finding: Finding?, model: OpenAICompatibleModel, log: @escaping @Sendable (String) async -> Void
    ) {
        // A measurement stopped for a newer one leaves no state behind.
        guard case .measuring = states[subject] else { return }
        guard case .measured(let counts, let key, let probes) = finding else {
            if case .demoted(let counts, let checks) = finding { states[subject] = .demoted(counts, checks) } else { states[subject] = .unmeasured }
            return
        }
        // Demoted meanwhile (the model under watch, on an older snapshot): the demotion stands.
        if let demotion = cache.demotion(for: key) {
            states[subject] = .demoted(demotion.counts, demotion.checks)
            return
        }
        states[subject] = .measured(counts)
        let previous = watch
        previous?.probeTask?.cancel()
        watch = nil
        guard counts.role == .trusted else { return }
        var next = Watch(
            subject: subject, key: key, counts: counts, model: model, identify: { await model.identity() }, log: log,
            probes: probes.filter { $0.kind == .answerable }.shuffled())
        // The same model on a newer snapshot keeps its record: a reload does not wipe disagreements.
        if let previous, previous.key.endpoint == key.endpoint, previous.key.model == key.model, previous.key.identity == key.identity {
            next.checks = previous.checks
            next.asksSinceCheck = previous.asksSinceCheck
            next.asksBeforeCheck = previous.asksBeforeCheck
        }
        watch = next
    }

    /// The cached finding for this model and library revision, else a new measurement (kept in the cache when it
    /// counts).
    private func measureOrRecall(
        _ configuration: ModelConfiguration, model: OpenAICompatibleModel, library: SnippetLibrary, index: TokenIndex,
        log: @escaping @Sendable (String) async -> Void
    ) async -> Finding? {
        let identity = await model.identity()
        let cache = cache
        let (key, recalled, probes) = await LibraryService.offCooperativeThreads { () -> (QualificationCache.Key, Finding?, [QualificationProbe]) in
            let key = QualificationCache.Key(
                configuration: configuration, identity: identity, libraryRevision: QualificationProbes.revision(of: library))
            if let demotion = cache.demotion(for: key) { return (key, .demoted(demotion.counts, demotion.checks), []) }
            let cached = cache.counts(for: key)
            // Only a trusted model needs the probes once measured: they keep checking it.
            if let cached, cached.role != .trusted { return (key, .measured(cached, key: key, probes: []), []) }
            let probes = QualificationProbes.make(library: library, index: index)
            return (key, cached.map { .measured($0, key: key, probes: probes) }, probes)
        }
        if let recalled { return recalled }
        guard !probes.isEmpty else { return nil }
        let counts = await measure(probes, model: model)
        guard let counts, !Task.isCancelled else { return nil }
        if let problem = cache.save(counts, for: key) { await log("snippets-lsp: \(problem)") }
        if let role = counts.role { await log("snippets-lsp: the model was measured on your library: \(role.rawValue) (\(counts.summary))") }
        return .measured(counts, key: key, probes: probes)
    }

    /// Asks `model` every probe, one at a time, each after the model has been idle for a gap of `pacing` and never
    /// while an ask is in flight; nil when the measurement says nothing (the first probes all faulted, or more than
    /// half did).
    func measure(_ probes: [QualificationProbe], model: any AskModel) async -> QualificationCounts? {
        let started = ContinuousClock.now
        var counts = QualificationCounts()
        for probe in probes {
            while true {
                if Task.isCancelled { return nil }
                await untilQuiet()
                if Task.isCancelled { return nil }
                // An ask started meanwhile: this call was cancelled for it (or overlapped it); ask again.
                guard case .answered(let reply, let calls) = await send(probe.request, to: model) else { continue }
                counts.record(probe, reply: reply, calls: calls)
                break
            }
            if counts.asked >= 4 && counts.faults == counts.asked { return nil }
        }
        counts.seconds = (ContinuousClock.now - started).inSeconds
        return counts.role == nil ? nil : counts
    }

    /// Sends `request` as an ask would: search words for its question, then the pick, in a call an ask cancels.
    private func send(_ request: PickRequest, to model: any AskModel) async -> ProbeOutcome {
        let generation = asksStarted
        let call = Task.detached { () -> (reply: PickReply?, calls: Int) in
            do { _ = try await model.searchWords(question: request.question) } catch { return (nil, 1) }
            do { return (try await model.pick(request), 2) } catch { return (nil, 2) }
        }
        probeCall = call
        let outcome = await call.value
        if probeCall == call { probeCall = nil }
        lastActivity = .now
        return asksStarted == generation ? .answered(outcome.reply, calls: outcome.calls) : .overlapped
    }

    /// Called when an ask starts: no probe is sent until it ends, and one in flight is cancelled.
    func askStarted() {
        asksInFlight += 1
        asksStarted += 1
        probeCall?.cancel()
    }

    /// Called when an ask ends, with the standing it was answered in and how its model's reply compared with an
    /// answer the server knows (`AskResult.modelCheck`), if it does.
    func askEnded(in standing: ModelStanding? = nil, check: ModelCheck? = nil) {
        asksInFlight -= 1
        lastActivity = .now
        if standing?.role == .trusted && standing?.basis == .measured { noteTrustedAsk(check) }
        guard asksInFlight == 0 else { return }
        let waiting = waitingForNoAsks
        waitingForNoAsks = []
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once no ask is in flight and the model has been idle for a gap drawn from `pacing` (or the task is
    /// cancelled).
    private func untilQuiet() async {
        let gap = pacing.nextGap()
        while !Task.isCancelled {
            if asksInFlight > 0 {
                await withCheckedContinuation { waitingForNoAsks.append($0) }
                continue
            }
            let idle = ContinuousClock.now - lastActivity
            if idle >= gap { return }
            try? await Task.sleep(for: gap - idle)
        }
    }

    // MARK: Keeping a trusted model checked

    /// Counts an ask the watched model answered as trusted: its check, or one more ask toward the next probe.
    private func noteTrustedAsk(_ check: ModelCheck?) {
        guard watch != nil else { return }
        if let check { return record(check) }
        watch?.asksSinceCheck += 1
        if watch?.isCheckDue == true { scheduleCheck() }
    }

    /// Adds `check` to the watched model's record, and demotes it when the record ends its trust.
    private func record(_ check: ModelCheck) {
        guard var current = watch else { return }
        current.checks.record(check)
        current.asksSinceCheck = 0
        current.asksBeforeCheck = Watch.drawnAsksBeforeCheck()
        guard current.checks.endTrust else {
            watch = current
            return
        }
        // Advisory from the next ask on, here and after a restart.
        current.probeTask?.cancel()
        watch = nil
        states[current.subject] = .demoted(current.counts, current.checks)
        let problem = cache.saveDemotion(current.checks, counts: current.counts, for: current.key)
        let log = current.log
        let summary = current.checks.summary
        Task {
            await log("snippets-lsp: the model is no longer trusted: it \(summary); advisory until it is measured again")
            if let problem { await log("snippets-lsp: \(problem)") }
        }
    }

    /// Starts sending the watched model's due probe, unless one is on its way.
    private func scheduleCheck() {
        guard let current = watch, current.probeTask == nil else { return }
        let subject = current.subject
        watch?.probeTask = Task { await self.sendCheck(to: subject) }
    }

    /// Sends the next answerable probe to the watched model once it is idle, and records the check. A fault is no
    /// check: the probe stays due, and the next ask's standing sends another.
    private func sendCheck(to subject: Subject) async {
        defer { if watch?.subject == subject { watch?.probeTask = nil } }
        while !Task.isCancelled {
            await untilQuiet()
            // Checked meanwhile by an ask whose answer the server knows, or replaced: nothing is due.
            guard !Task.isCancelled, let current = watch, current.subject == subject, current.isCheckDue, !current.probes.isEmpty
            else { return }
            // A model swapped behind the same URL and name is not the one that earned the trust: measured again.
            let identity = await current.identify()
            guard !Task.isCancelled, watch?.subject == subject else { return }
            if let identity, identity != current.key.identity {
                states[subject] = nil
                watch = nil
                let log = current.log
                Task { await log("snippets-lsp: the model at \(subject.endpoint) is not the one that was measured (the server describes it differently now); it is measured again") }
                return
            }
            let probe = current.probes[current.nextProbe % current.probes.count]
            watch?.nextProbe += 1
            switch await send(probe.request(asTrusted: true), to: current.model) {
            case .overlapped:
                continue
            case .answered(let reply, _):
                guard watch?.subject == subject else { return }
                if let reply, let check = probe.check(of: reply) { record(check) }
                return
            }
        }
    }

    /// Whether the trusted model under watch has a check due and not yet answered (tests wait on it as a person
    /// pausing between questions would).
    var isCheckDue: Bool { watch?.isCheckDue ?? false }

    /// Stops every measurement and check (the server is stopping).
    func cancelAll() {
        for case .measuring(let task) in states.values { task.cancel() }
        probeCall?.cancel()
        watch?.probeTask?.cancel()
    }

    // MARK: For the command line

    /// The measurement of `configuration` on `library`: from the cache (for the identity the server reports now,
    /// within the cache's age), else measured now and kept when `measuring`; or the demotion the cache keeps for the
    /// model. Counts are nil when none is cached and `measuring` is false, or when the measurement says nothing.
    public static func counts(
        of configuration: ModelConfiguration, library: SnippetLibrary, index: TokenIndex, environment: [String: String],
        measuring: Bool
    ) async -> (counts: QualificationCounts?, demotion: TrustChecks?, cacheProblem: String?) {
        let cache = QualificationCache(environment: environment)
        let model = OpenAICompatibleModel(configuration: configuration, environment: environment)
        let key = QualificationCache.Key(
            configuration: configuration, identity: await model.identity(), libraryRevision: QualificationProbes.revision(of: library))
        if let demotion = cache.demotion(for: key) { return (demotion.counts, demotion.checks, nil) }
        if let cached = cache.counts(for: key) { return (cached, nil, nil) }
        guard measuring else { return (nil, nil, nil) }
        let probes = QualificationProbes.make(library: library, index: index)
        guard !probes.isEmpty else { return (nil, nil, nil) }
        guard let counts = await ModelQualifier(cache: cache, pacing: .immediate).measure(probes, model: model) else { return (nil, nil, nil) }
        return (counts, nil, cache.save(counts, for: key))
    }
}

extension QualificationCounts {
    /// "answerable 11/12, unanswerable 8/8, injected 4/4; 48 calls in 31.2 s".
    public var summary: String {
        var text = "answerable \(answerable.agreed)/\(answerable.probes), unanswerable \(unanswerable.agreed)/\(unanswerable.probes), "
            + "injected \(injected.agreed)/\(injected.probes)"
        if faults > 0 { text += ", \(faults) without a usable reply" }
        return text + "; \(calls) calls in \(String(format: "%.1f", seconds)) s"
    }
}
