import Foundation
import SnippetsCore
import SnippetsModelClient

/// Measurements kept under `$XDG_CACHE_HOME/snippets-lsp/qualification/` (by default
/// `~/.cache/snippets-lsp/qualification/`), one file per endpoint, model and library revision, so a model is
/// measured once per library revision, not once per start.
///
/// **Invariant:** the cache is written only under the cache directory, never inside a library, holds figures only
/// (no question, no snippet text, never a key), and a file that cannot be read or does not match its key counts as
/// no measurement.
public struct QualificationCache: Sendable {
    /// The folder the measurements are kept in.
    public let folder: String
    /// The most bytes of a cache file read.
    static let maximumFileSize = 64 << 10

    public init(folder: String) { self.folder = folder }

    /// The cache for `environment`: `$XDG_CACHE_HOME` when it is absolute, else `$HOME/.cache`.
    public init(environment: [String: String]) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? LibraryPath.join(home, ".cache")
        self.init(folder: LibraryPath.join(cache, "snippets-lsp/qualification"))
    }

    /// What identifies one measurement: the endpoint, the model name, the library revision, the probes' version.
    public struct Key: Hashable, Sendable {
        public var endpoint: String
        public var model: String
        public var libraryRevision: String

        public init(configuration: ModelConfiguration, libraryRevision: String) {
            endpoint = configuration.baseURL.absoluteString
            model = configuration.modelName ?? ""
            self.libraryRevision = libraryRevision
        }

        /// The file name: a hash of the key, so no part of a URL becomes a path.
        var fileName: String {
            let text = "\(QualificationProbes.version)\n\(endpoint)\n\(model)\n\(libraryRevision)"
            return FNV1a.hex(FNV1a.hash(text.utf8)) + ".json"
        }
    }

    struct File: Codable {
        var version: Int
        var endpoint: String
        var model: String
        var libraryRevision: String
        var counts: QualificationCounts
    }

    /// The path of `key`'s measurement.
    public func path(for key: Key) -> String { LibraryPath.join(folder, key.fileName) }

    /// The cached measurement for `key`, or nil.
    public func counts(for key: Key) -> QualificationCounts? {
        guard let bytes = try? BoundedFileRead.contents(of: path(for: key), maximumSize: Self.maximumFileSize),
            let file = try? JSONDecoder().decode(File.self, from: Data(bytes)),
            file.version == QualificationProbes.version, file.endpoint == key.endpoint, file.model == key.model,
            file.libraryRevision == key.libraryRevision
        else { return nil }
        return file.counts
    }

    /// Keeps `counts` for `key`. Returns a message when it could not (a cache that cannot be written costs a
    /// measurement at the next start, nothing else).
    @discardableResult
    public func save(_ counts: QualificationCounts, for key: Key) -> String? {
        let file = File(
            version: QualificationProbes.version, endpoint: key.endpoint, model: key.model,
            libraryRevision: key.libraryRevision, counts: counts)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(file).write(to: URL(fileURLWithPath: path(for: key)), options: .atomic)
            return nil
        } catch {
            return "could not keep the model's measurement in \(folder): \(error.localizedDescription)"
        }
    }
}
