import Foundation
import SnippetsCore
import Testing
@testable import SnippetsServer

@Suite struct LibraryPathsTests {
    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheDefault() {
        let environment = ["SNIPPETS_LIBRARY": "/env/a::rel/b", "XDG_CONFIG_HOME": "/xdg", "HOME": "/home/me"]
        let flags = LibraryPaths.resolve(flags: ["one", "/two/", "~/three"], environment: environment, currentDirectory: "/cwd")
        #expect(flags == LibraryPaths(paths: ["/cwd/one", "/two", "/home/me/three"], source: .flags))
        let variable = LibraryPaths.resolve(flags: [], environment: environment, currentDirectory: "/cwd")
        #expect(variable == LibraryPaths(paths: ["/env/a", "/cwd/rel/b"], source: .environment))
        let xdg = LibraryPaths.resolve(flags: [], environment: ["XDG_CONFIG_HOME": "/xdg", "HOME": "/home/me"], currentDirectory: "/cwd")
        #expect(xdg == LibraryPaths(paths: ["/xdg/snippets"], source: .defaultDirectory))
        let home = LibraryPaths.resolve(flags: [], environment: ["HOME": "/home/me", "SNIPPETS_LIBRARY": ""], currentDirectory: "/cwd")
        #expect(home == LibraryPaths(paths: ["/home/me/.config/snippets"], source: .defaultDirectory))
        #expect(home.sourceDescription == "the default library directory")
    }
}

/// The real file system, on a temporary directory: symbolic link loops, dangling links, special files.
@Suite struct LibraryDiskTests {
    func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snippets-lsp-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    @Test func linkLoopsDanglingLinksAndSpecialFilesAreReportedAndTheRestLoads() throws {
        try withTemporaryDirectory { root in
            let manager = FileManager.default
            try #"{ "A": { "prefix": "a", "body": "a" } }"#.write(toFile: root + "/a.code-snippets", atomically: true, encoding: .utf8)
            try manager.createSymbolicLink(atPath: root + "/loop.json", withDestinationPath: root + "/loop.json")
            try manager.createSymbolicLink(atPath: root + "/dangling.json", withDestinationPath: root + "/nothing.json")
            try manager.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
            try manager.createSymbolicLink(atPath: root + "/sub/back", withDestinationPath: root)
            #expect(mkfifo(root + "/pipe.snippets", 0o600) == 0)
            let library = LibraryPaths(paths: [root], source: .flags).load()
            #expect(library.snippets.map(\.title) == ["A"])
            #expect(
                library.loaderDiagnostics.map { "\($0.code) \(LibraryPath.name(DocumentURI($0.uri).displayPath))" } == [
                    "unusable-path dangling.json",
                    "unusable-path loop.json",
                    "unusable-path pipe.snippets",
                    "symlink-loop back",
                ])
            #expect(library.loaderDiagnostics[1].message.hasSuffix("cannot be used: a symbolic link loop"))
            #expect(library.loaderDiagnostics[2].message.hasSuffix("cannot be used: it is a FIFO (named pipe), not a regular file or directory"))
        }
    }

    @Test func unreadableFilesAreErrorsOnThatFile() throws {
        try withTemporaryDirectory { root in
            let path = root + "/locked.code-snippets"
            try #"{ "A": { "prefix": "a", "body": "a" } }"#.write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
            let library = LibraryPaths(paths: [root], source: .flags).load()
            if getuid() == 0 {
                // root reads anything; the in-memory file system test covers the unreadable case there.
                #expect(library.snippets.count == 1)
            } else {
                #expect(library.files.first?.diagnostics.map(\.message) == ["the file could not be read: permission denied"])
            }
        }
    }

    @Test func sameDirectoryThroughTwoPathsIsReadOnce() throws {
        try withTemporaryDirectory { root in
            try FileManager.default.createDirectory(atPath: root + "/real", withIntermediateDirectories: true)
            try #"{ "A": { "prefix": "a", "body": "a" } }"#.write(toFile: root + "/real/a.code-snippets", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: root + "/real")
            let library = LibraryPaths(paths: [root + "/real", root + "/alias"], source: .flags).load()
            #expect(library.snippets.count == 1)
            #expect(library.loaderDiagnostics.map(\.code.rawValue) == ["already-loaded"])
        }
    }
}
