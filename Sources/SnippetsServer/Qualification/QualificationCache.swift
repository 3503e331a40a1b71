import Foundation
import SnippetsCore
import SnippetsModelClient

/// Measurements kept under `$XDG_CACHE_HOME/snippets-lsp/qualification/` (by default
/// `~/.cache/snippets-lsp/qualification/`), one file per endpoint, model, model identity and library revision, so a
/// model is measured once per library revision, not once per start; and one file per endpoint, model and identity
/// for a model whose trust ended (`TrustChecks`), so a restart does not restore it.
///
/// **Invariant:** the cache is written only under the cache directory, never inside a library, holds figures only
/// (no question, no snippet text, never a key), and a file that cannot be read or does not match its key counts as
/// no measurement.
///
/// **Invariant (trust that expires):** a kept measurement or demotion speaks for `maximumAge` from when it was made,
/// then the model is measured again; and only for the model identity the server reported then
/// (`OpenAICompatibleModel.identity()`): another model served under the same URL and name inherits nothing.
public struct QualificationCache: Sendable {
    /// The folder the measurements are kept in.
    public let folder: String
    /// The most bytes of a cache file read.
    static let maximumFileSize = 64 << 10
    /// How long a kept measurement (or demotion) is used: a week. Long enough that a model in daily use is not
    /// measured at every start (a measurement is a few dozen calls over minutes), short enough that a model changed
    /// where the server cannot tell (a hosted name that now means newer weights, a server that lists no identity)
    /// is measured again within days, and a demoted model gets another chance.
    public static let maximumAge: TimeInterval = 7 * 24 * 60 * 60

    public init(folder: String) { self.folder = folder }

    /// The cache for `environment`: `$XDG_CACHE_HOME` when it is absolute, else `$HOME/.cache`.
    public init(environment: [String: String]) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? LibraryPath.join(home, ".cache")
        self.init(folder: LibraryPath.join(cache, "snippets-lsp/qualification"))
    }

    /// What identifies one measurement: the endpoint, the model name, what the server says of the model, the
    /// library revision, the probes' version.
    public struct Key: Hashable, Sendable {
        public var endpoint: String
        public var model: String
        /// `OpenAICompatibleModel.identity()`; empty when the server does not say.
        public var identity: String
        public var libraryRevision: String

        public init(configuration: ModelConfiguration, identity: String?, libraryRevision: String) {
            endpoint = configuration.baseURL.absoluteString
            model = configuration.modelName ?? ""
            self.identity = identity ?? ""
            self.libraryRevision = libraryRevision
        }

        /// The file name: a hash of the key, so no part of a URL becomes a path.
        var fileName: String {
            let text = "\(QualificationProbes.version)\n\(endpoint)\n\(model)\n\(identity)\n\(libraryRevision)"
            return FNV1a.hex(FNV1a.hash(text.utf8)) + ".json"
        }

        /// The name of the model's demotion file: a demotion speaks of the model, whatever the library revision.
        var demotionFileName: String {
            let text = "demoted\n\(endpoint)\n\(model)\n\(identity)"
            return FNV1a.hex(FNV1a.hash(text.utf8)) + ".json"
        }
    }

    /// One kept measurement, as written.
    struct File: Codable {
        var version: Int
        var endpoint: String
        var model: String
        var identity: String
        var libraryRevision: String
        /// When it was measured, in seconds since 1970.
        var measuredAt: Double
        var counts: QualificationCounts
    }

    /// One kept demotion, as written.
    struct DemotionFile: Codable {
        var version: Int
        var endpoint: String
        var model: String
        var identity: String
        /// When the model was demoted, in seconds since 1970.
        var demotedAt: Double
        /// The measurement it had been trusted on.
        var counts: QualificationCounts?
        var checks: TrustChecks
    }

    /// The path of `key`'s measurement.
    public func path(for key: Key) -> String { LibraryPath.join(folder, key.fileName) }

    /// The path of `key`'s model's demotion.
    public func demotionPath(for key: Key) -> String { LibraryPath.join(folder, key.demotionFileName) }

    /// Whether something made at `date` (seconds since 1970) may still be used at `now`: not past `maximumAge`, and
    /// not from the future (a clock set back would otherwise keep it forever).
    static func isFresh(_ date: Double, now: Date) -> Bool {
        let age = now.timeIntervalSince1970 - date
        return age <= maximumAge && age >= -60
    }

    private func read<Entry: Decodable>(_ type: Entry.Type, at path: String) -> Entry? {
        guard let bytes = try? BoundedFileRead.contents(of: path, maximumSize: Self.maximumFileSize) else { return nil }
        return try? JSONDecoder().decode(Entry.self, from: Data(bytes))
    }

    /// The cached measurement for `key`, or nil (none, another key's, or older than `maximumAge` at `now`).
    public func counts(for key: Key, now: Date = Date()) -> QualificationCounts? {
        guard let file = read(File.self, at: path(for: key)),
            file.version == QualificationProbes.version, file.endpoint == key.endpoint, file.model == key.model,
            file.identity == key.identity, file.libraryRevision == key.libraryRevision, Self.isFresh(file.measuredAt, now: now)
        else { return nil }
        return file.counts
    }

    /// The checks that ended the trust of `key`'s model, with the measurement it had been trusted on, when it was
    /// demoted less than `maximumAge` before `now`; else nil.
    public func demotion(for key: Key, now: Date = Date()) -> (checks: TrustChecks, counts: QualificationCounts?)? {
        guard let file = read(DemotionFile.self, at: demotionPath(for: key)),
            file.version == QualificationProbes.version, file.endpoint == key.endpoint, file.model == key.model,
            file.identity == key.identity, Self.isFresh(file.demotedAt, now: now)
        else { return nil }
        return (file.checks, file.counts)
    }

    /// Keeps `counts` for `key`, measured at `measuredAt`. Returns a message when it could not (a cache that cannot
    /// be written costs a measurement at the next start, nothing else).
    @discardableResult
    public func save(_ counts: QualificationCounts, for key: Key, measuredAt: Date = Date()) -> String? {
        write(
            File(
                version: QualificationProbes.version, endpoint: key.endpoint, model: key.model, identity: key.identity,
                libraryRevision: key.libraryRevision, measuredAt: measuredAt.timeIntervalSince1970, counts: counts),
            to: path(for: key))
    }

    /// Keeps the demotion of `key`'s model by `checks` (it had been trusted on `counts`), and drops the measurement
    /// that trusted it, so a restart does not restore the trust. Returns a message when it could not.
    @discardableResult
    public func saveDemotion(_ checks: TrustChecks, counts: QualificationCounts?, for key: Key, at date: Date = Date()) -> String? {
        try? FileManager.default.removeItem(atPath: path(for: key))
        return write(
            DemotionFile(
                version: QualificationProbes.version, endpoint: key.endpoint, model: key.model, identity: key.identity,
                demotedAt: date.timeIntervalSince1970, counts: counts, checks: checks),
            to: demotionPath(for: key))
    }

    private func write(_ entry: some Encodable, to path: String) -> String? {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(entry).write(to: URL(fileURLWithPath: path), options: .atomic)
            return nil
        } catch {
            return "could not keep the model's measurement in \(folder): \(error.localizedDescription)"
        }
    }
}
