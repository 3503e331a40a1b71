/// One capability registered with `client/registerCapability`: its id (to unregister it by), the method, and the
/// method's registration options.
public struct Registration: Codable, Hashable, Sendable {
    public var id: String
    public var method: String
    /// The options, as the method defines them (`CompletionRegistrationOptions`,
    /// `DidChangeWatchedFilesRegistrationOptions`).
    public var registerOptions: JSONValue?

    public init(id: String, method: String, registerOptions: JSONValue? = nil) {
        self.id = id
        self.method = method
        self.registerOptions = registerOptions
    }

    // The options below are plain values: encoding them cannot fail.

    /// Completion, with its trigger characters.
    public static func completion(id: String, options: CompletionRegistrationOptions) -> Registration {
        Registration(id: id, method: "textDocument/completion", registerOptions: try? JSONValue(encoding: options))
    }

    /// A file watcher.
    public static func watchedFiles(id: String, options: DidChangeWatchedFilesRegistrationOptions) -> Registration {
        Registration(id: id, method: "workspace/didChangeWatchedFiles", registerOptions: try? JSONValue(encoding: options))
    }
}
