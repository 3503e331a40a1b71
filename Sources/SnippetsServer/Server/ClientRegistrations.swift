import Foundation
import SnippetsCore

/// What the client said it can do, and what the server registered with it since: completion's trigger characters
/// (in the `initialize` reply, or by `client/registerCapability` and again whenever a load changes them) and the
/// library's file watcher. Owned by `LanguageServer` and used only on it (not `Sendable`).
///
/// **Invariant:** completion is offered one way only: a client that can register it later gets no
/// `completionProvider` in the `initialize` reply, and at most one completion registration is live (the old one
/// is unregistered before the next is sent), registered only once the client sent `initialized` (`isClientReady`).
final class ClientRegistrations {
    private let connection: ClientConnection
    /// What the client can do, from `initialize`.
    private(set) var client = ClientCapabilities(raw: nil)
    /// Whether the client sent `initialized` (requests to it, and the announcements of a load, wait for it).
    private(set) var isClientReady = false
    /// The trigger characters the client was last told about (statically or by registration).
    private var advertisedTriggerCharacters: [String]?
    /// The id of the live completion registration.
    private var completionRegistrationID: String?

    /// The id of the library's file-watcher registration (registered again, under the same id, when the watched
    /// roots change).
    static let watcherRegistrationID = "snippets-library-watch"

    init(connection: ClientConnection) {
        self.connection = connection
    }

    /// Takes the client's capabilities from `initialize`.
    func initialize(_ client: ClientCapabilities) {
        self.client = client
    }

    /// The client sent `initialized`.
    func clientIsReady() {
        isClientReady = true
    }

    /// The `completionProvider` of the `initialize` reply, or nil for a client that registers completion once the
    /// library is read. `snapshot` is the library in service (the empty one when the first load did not end in
    /// time: then the fallback characters).
    func completionProvider(for snapshot: LibrarySnapshot) -> CompletionOptions? {
        guard !client.supportsCompletionRegistration else { return nil }
        let words = client.completesOnlyOnTriggerCharacters
        let characters =
            snapshot.generation > 0
            ? TriggerCharacters.advertised(for: snapshot.library, includingWordCharacters: words)
            : TriggerCharacters.fallback(includingWordCharacters: words)
        advertisedTriggerCharacters = characters
        return CompletionOptions(resolveProvider: true, triggerCharacters: characters)
    }

    /// The completion options of `initialize`'s reply with trigger characters a load of this library gave before
    /// (`TriggerCharacterMemory`), for a client that cannot register completion later.
    func completionProvider(remembered characters: [String]) -> CompletionOptions? {
        guard !client.supportsCompletionRegistration else { return nil }
        advertisedTriggerCharacters = characters
        return CompletionOptions(resolveProvider: true, triggerCharacters: characters)
    }

    /// Registers completion again when the trigger characters of `snapshot` differ from the ones the client was
    /// last told (for a client that can register completion).
    /// A language's snapshot (`LibrarySnapshot.language`) registers only while nothing is registered, so it never
    /// narrows the library's characters nor another language's.
    func updateTriggerCharacters(for snapshot: LibrarySnapshot) {
        guard client.supportsCompletionRegistration, snapshot.language == nil || completionRegistrationID == nil else { return }
        let characters = TriggerCharacters.advertised(
            for: snapshot.library, includingWordCharacters: client.completesOnlyOnTriggerCharacters)
        guard characters != advertisedTriggerCharacters else { return }
        if let old = completionRegistrationID {
            connection.sendRequest(
                UnregistrationParams.method,
                UnregistrationParams(unregisterations: [Unregistration(id: old, method: "textDocument/completion")]))
        }
        let id = "snippets-completion-\(snapshot.generation)"
        completionRegistrationID = id
        advertisedTriggerCharacters = characters
        let options = CompletionRegistrationOptions(resolveProvider: true, triggerCharacters: characters)
        connection.sendRequest(
            RegistrationParams.method, RegistrationParams(registrations: [.completion(id: id, options: options)]))
    }

    /// Registers a file watcher for `roots` when the client can register one (a directory is watched with
    /// everything under it); returns whether it could.
    func registerFileWatchers(for roots: [String]) -> Bool {
        guard client.supportsWatchedFileRegistration else { return false }
        let watchers = roots.flatMap { root -> [FileSystemWatcher] in
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory)
            if exists && !isDirectory.boolValue { return [FileSystemWatcher(globPattern: root)] }
            return FormatRegistry.watchGlobs.map { FileSystemWatcher(globPattern: root + "/" + $0) }
        }
        let registration = Registration.watchedFiles(
            id: Self.watcherRegistrationID, options: DidChangeWatchedFilesRegistrationOptions(watchers: watchers))
        connection.sendRequest(RegistrationParams.method, RegistrationParams(registrations: [registration]))
        return true
    }
}
