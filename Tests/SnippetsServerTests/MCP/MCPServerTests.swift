import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// A library source the test replaces snapshots of by hand.
private actor ScriptedLibrary: MCPLibrarySource {
    nonisolated let layers = [LibraryLayer(path: "/lib")]
    nonisolated let isLearning = false
    private var snapshot = LibrarySnapshot.empty
    private var waiters: [(Int, CheckedContinuation<LibrarySnapshot, Never>)] = []

    func install(_ files: [String: String]) {
        let library = LibraryLoader(fileSystem: InMemoryFileSystem(files: files)).load(layers: layers)
        snapshot = LibrarySnapshot(library: library, index: TokenIndex(library: library), generation: snapshot.generation + 1)
        let ready = waiters.filter { $0.0 < snapshot.generation }
        waiters.removeAll { $0.0 < snapshot.generation }
        for (_, continuation) in ready { continuation.resume(returning: snapshot) }
    }

    func current() -> LibrarySnapshot { snapshot }
    func snapshot(after generation: Int) async -> LibrarySnapshot {
        if snapshot.generation > generation { return snapshot }
        return await withCheckedContinuation { waiters.append((generation, $0)) }
    }
    func reload() async -> LibrarySnapshot { snapshot }
}

/// The MCP server in-process over an in-memory transport: lines in, lines out.
struct MCPServerTests {
    private static let file = """
        {"Invoice footer": {"prefix": "invfoot", "body": "Payment is due within ${1:14} days.", "description": "Footer for invoices"}}
        """

    /// Reads lines from `transport` until one satisfies `isWanted`.
    private func line(from replies: inout AsyncStream<[UInt8]>.Iterator, buffer: inout [UInt8], where isWanted: (JSONValue) -> Bool) async throws -> JSONValue {
        while true {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let value = try JSONValue.parse(Array(buffer[..<newline]))
                buffer.removeSubrange(...newline)
                if isWanted(value) { return value }
            }
            guard let chunk = await replies.next() else { throw CancellationError() }
            buffer += chunk
        }
    }

    @Test func answersToolsAndAnnouncesAReload() async throws {
        let (client, serverEnd) = InMemoryTransport.pair()
        let library = ScriptedLibrary()
        await library.install(["/lib/a.code-snippets": Self.file])
        let server = MCPServer(transport: serverEnd, library: library, options: MCPServerOptions(environment: [:], log: { _ in }))
        let running = Task { await server.run() }
        var replies = client.incoming.makeAsyncIterator()
        var buffer: [UInt8] = []
        func send(_ text: String) { client.send(Array((text + "\n").utf8)) }

        send(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#)
        let initialized = try await line(from: &replies, buffer: &buffer) { $0["id"] == 1 }
        #expect(initialized["result"]?["protocolVersion"] == "2025-06-18")
        send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)

        send(#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_snippets","arguments":{"query":"invfoot"}}}"#)
        let found = try await line(from: &replies, buffer: &buffer) { $0["id"] == 2 }
        let hit = found["result"]?["structuredContent"]?["results"]?.arrayValue?.first
        #expect(hit?["title"] == "Invoice footer")
        #expect(hit?["body"] == "Payment is due within 14 days.")
        #expect(hit?["location"] == "/lib/a.code-snippets:1")

        await library.install(["/lib/a.code-snippets": Self.file, "/lib/b.code-snippets": #"{"Signature": {"prefix": "sig", "body": "Mira"}}"#])
        let announced = try await line(from: &replies, buffer: &buffer) { $0["method"] != nil }
        #expect(announced["method"] == "notifications/resources/list_changed")

        send(#"{"jsonrpc":"2.0","id":3,"method":"resources/list"}"#)
        let listed = try await line(from: &replies, buffer: &buffer) { $0["id"] == 3 }
        #expect(listed["result"]?["resources"]?.arrayValue?.compactMap { $0["name"]?.stringValue }.sorted() == ["Invoice footer", "Signature"])

        send(#"{"jsonrpc":"2.0","id":4,"method":"nope"}"#)
        let unknown = try await line(from: &replies, buffer: &buffer) { $0["id"] == 4 }
        #expect(unknown["error"]?["code"] == -32601)

        client.close()
        #expect(await running.value == 0)
    }
}
