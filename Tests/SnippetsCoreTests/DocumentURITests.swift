import Foundation
import Testing
@testable import SnippetsCore

/// File URIs reach the server from clients (documents, workspace folders) and from the loader (diagnostics,
/// locations); `DocumentURI` is the one conversion between them and paths.
@Suite struct DocumentURITests {
    @Test(arguments: [
        ("file:///home/ana/My%20Notes/a.md", "/home/ana/My Notes/a.md"),
        ("file:///lib/My%20Snippets/%C3%A9t%C3%A9%231.code-snippets", "/lib/My Snippets/été#1.code-snippets"),
        ("FILE:///lib/a.json", "/lib/a.json"),
        ("file://localhost/lib/a.json", "/lib/a.json"),
        ("file:///lib/100%zz.json", "/lib/100%zz.json"),
        ("file:///lib/a%2", "/lib/a%2"),
        ("file:///lib/a.json#L3", "/lib/a.json"),
        ("file:///lib/caf%c3%a9", "/lib/café"),
    ])
    func fileURIsBecomePaths(uri: String, path: String) {
        #expect(DocumentURI(uri).filePath == path)
        #expect(DocumentURI(uri).displayPath == path)
    }

    @Test(arguments: ["untitled:Untitled-1", "vscode-notebook-cell:/a.ipynb#W1", "file://", "fil:///x", "/lib/a.json"])
    func otherURIsHaveNoPath(uri: String) {
        #expect(DocumentURI(uri).filePath == nil)
        #expect(DocumentURI(uri).displayPath == uri)
    }

    @Test func pathsBecomeEncodedURIsThatReadBack() {
        let path = "/lib/My Snippets/été#1?.code-snippets"
        let uri = DocumentURI(filePath: path)
        #expect(uri.stringValue == "file:///lib/My%20Snippets/%C3%A9t%C3%A9%231%3F.code-snippets")
        #expect(uri.filePath == path)
    }
}

/// Every file path becomes a `file:` URI through `DocumentURI` alone: Foundation's `URL(fileURLWithPath:)` spells
/// `+`, `,` and `@` otherwise, and a snippet's id hashes its URI, so a second conversion gave a saved snippet an id
/// no other request knew (a library folder named `c++ lib`).
@Suite struct OneURIConversionTests {
    @Test func noSourceFileTurnsAPathIntoAURIThroughFoundation() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50)
        let conversion = try Regex(#"URL\(fileURLWithPath:[^\n]*\)\s*\.absoluteString|\.fileURL[^\n]*\.absoluteString"#)
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            #expect(text.firstMatch(of: conversion) == nil, "\(file) turns a path into a URI outside DocumentURI")
        }
    }
}
