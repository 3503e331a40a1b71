import SnippetsCore

/// What handlers still reach through `RequestContext.server`, forwarded to the part that owns it. (These go once
/// the context carries them itself.)
extension LanguageServer {
    /// Whether ask learns.
    var isLearning: Bool { selection.isLearning }
    /// The library layers in precedence order.
    var libraryLayers: [LibraryLayer] { selection.layers }
    /// The paths the library is loaded from.
    var libraryPaths: [String] { selection.libraryPaths }

    /// `LibraryService.reloadAndWait`.
    func reloadAndWait() async {
        _ = await library.reloadAndWait()
    }

    /// `ClientConnection.showMessage`.
    func showMessage(_ message: String, type: MessageType) {
        connection.showMessage(message, type: type)
    }

    /// `ClientConnection.sendRequest`.
    func sendRequest<Params: Encodable & Sendable>(_ method: String, _ params: Params) {
        connection.sendRequest(method, params)
    }

    /// `ClientConnection.log`.
    func log(_ message: String, toClient: Bool = false) {
        connection.log(message, toClient: toClient)
    }
}
