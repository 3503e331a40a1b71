import Foundation
import SnippetsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One question the library could not answer, and how often it was asked.
public struct Gap: Codable, Hashable, Sendable {
    public var question: String
    public var count: Int
    /// When it was last asked, ISO 8601.
    public var lastAsked: String
}

/// The local log of questions answered with `noMatch` (what the library lacks), kept in
/// `$XDG_STATE_HOME/snippets-lsp/gaps.json` (by default `~/.local/state/snippets-lsp/gaps.json`).
///
/// **Invariant:** the gap log is written only under the state directory, never inside a library, and never sent
/// anywhere; nothing is logged while learning is off. Every read-modify-write holds an exclusive `flock` on
/// `gaps.json.lock` beside it, so two servers (or a server and `ask`) asking at once lose no question.
public struct GapLog: Sendable {
    /// The log file's path.
    public let path: String
    /// The most distinct questions kept; the least asked (then oldest) go first.
    public static let maximumEntries = 500

    /// Serialises read-modify-write of the log within this process (asks run concurrently); `flock` serialises
    /// processes.
    private static let lock = NSLock()
    /// How long to wait for another process's lock before giving up on recording one question.
    static let lockWait: Duration = .seconds(5)

    public init(path: String) {
        self.path = path
    }

    /// The log for `environment`: `$XDG_STATE_HOME` when it is absolute, else `$HOME/.local/state`.
    public init(environment: [String: String]) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? LibraryPath.join(home, ".local/state")
        self.init(path: LibraryPath.join(state, "snippets-lsp/gaps.json"))
    }

    /// Whether `result` is a gap: the library was searched and nothing fits. A question with no words to search
    /// for is not one (there is no snippet to write for it).
    public static func isGap(_ result: AskResult) -> Bool {
        result.status == .noMatch && result.reason?.code != .noSearchWords
    }

    /// The logged gaps, most asked first (then most recent). A missing or unreadable log is empty.
    public func gaps() -> [Gap] {
        guard let data = FileManager.default.contents(atPath: path),
            let file = try? JSONDecoder().decode(File.self, from: data)
        else { return [] }
        return Self.sorted(file.gaps)
    }

    /// Counts one more asking of `question`. Failures are returned as a message, never thrown: a gap log that
    /// cannot be written must not fail an ask.
    @discardableResult
    public func record(_ question: String, at date: Date = Date()) -> String? {
        let text = Self.normalized(question)
        guard !text.isEmpty else { return nil }
        return update { gaps in
            let key = text.lowercased()
            let stamp = ISO8601DateFormatter().string(from: date)
            if let position = gaps.firstIndex(where: { $0.question.lowercased() == key }) {
                gaps[position].count += 1
                gaps[position].lastAsked = stamp
            } else {
                gaps.append(Gap(question: text, count: 1, lastAsked: stamp))
            }
        }
    }

    /// Removes `question` (as `record` counts it: case and runs of white space aside) once it has been taught: its
    /// words learned for a snippet, or a snippet saved for it. Failures are returned as a message, as `record`'s.
    @discardableResult
    public func forget(_ question: String) -> String? {
        let key = Self.normalized(question).lowercased()
        guard !key.isEmpty, gaps().contains(where: { $0.question.lowercased() == key }) else { return nil }
        return update { gaps in gaps.removeAll { $0.question.lowercased() == key } }
    }

    /// The question as the log keeps it: white space runs made one space, none at the ends.
    private static func normalized(_ question: String) -> String {
        question.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Reads, changes and writes the log under both locks.
    private func update(_ change: (inout [Gap]) -> Void) -> String? {
        Self.lock.lock()
        defer { Self.lock.unlock() }
        let locked: Int32
        switch lockAcrossProcesses() {
        case .success(let descriptor): locked = descriptor
        case .failure(let failure): return failure.message
        }
        defer { close(locked) }  // releases the lock
        var gaps = self.gaps()
        change(&gaps)
        return save(Array(Self.sorted(gaps).prefix(Self.maximumEntries)))
    }

    /// Empties the log. Returns a message when it could not.
    @discardableResult
    public func clear() -> String? {
        Self.lock.lock()
        defer { Self.lock.unlock() }
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let locked: Int32
        switch lockAcrossProcesses() {
        case .success(let descriptor): locked = descriptor
        case .failure(let failure): return failure.message
        }
        defer { close(locked) }
        do {
            try FileManager.default.removeItem(atPath: path)
            return nil
        } catch {
            return "could not remove \(path): \(error.localizedDescription)"
        }
    }

    private struct LockFailure: Error {
        var message: String
    }

    /// An exclusive `flock` on the lock file beside the log (the log itself is replaced by a rename, so it cannot
    /// carry the lock), its folder made first; the descriptor holds the lock until it is closed.
    private func lockAcrossProcesses() -> Result<Int32, LockFailure> {
        let directory = LibraryPath.parent(path)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return .failure(LockFailure(message: "could not create \(directory): \(error.localizedDescription)"))
        }
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            return .failure(LockFailure(message: "could not open the gap log's lock \(lockPath): \(String(cString: strerror(errno)))"))
        }
        let deadline = ContinuousClock.now + Self.lockWait
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { break }  // no locking here (NFS without locks): go on
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                return .failure(LockFailure(message: "the gap log \(path) stayed locked by another process; this question was not logged"))
            }
            usleep(5_000)
        }
        return .success(descriptor)
    }

    private struct File: Codable {
        var gaps: [Gap]
    }

    private static func sorted(_ gaps: [Gap]) -> [Gap] {
        gaps.sorted { ($0.count, $0.lastAsked, $1.question) > ($1.count, $1.lastAsked, $0.question) }
    }

    /// Writes the log atomically (a temporary file beside it, then a rename), its folder private to the user.
    private func save(_ gaps: [Gap]) -> String? {
        let directory = LibraryPath.parent(path)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(File(gaps: gaps))
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            return nil
        } catch {
            return "could not write the gap log \(path): \(error.localizedDescription)"
        }
    }
}
