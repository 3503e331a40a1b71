import Foundation
import SnippetsCore
import Synchronization
import Testing

@testable import SnippetsServer

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` on its own thread and says whether it finished within `seconds`: a call that blocks for good (an
/// `open` on a FIFO) fails the test instead of hanging the run.
private func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done.wait(timeout: .now() + seconds) == .success
}

/// Special files where the server expects a snippet file: FIFOs, devices, files over the limit. Nothing the server
/// opens may block, and nothing it reads may grow past the size limit.
@Suite struct SpecialFileTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "snippets-special-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    @Test func aFIFOSwappedInForALibraryFileIsRefusedAtOnceNamingIt() throws {
        let fifo = directory + "/swapped.code-snippets"
        #expect(mkfifo(fifo, 0o644) == 0)
        let outcome = Mutex<String?>(nil)
        #expect(finishes(within: 120) {
            do {
                _ = try DiskFileSystem().contents(of: fifo, maximumSize: 1024)
                outcome.withLock { $0 = "read" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
        })
        #expect(outcome.withLock { $0 }?.contains("FIFO") == true)
    }

    @Test func devZeroBehindALinkIsRefusedWithoutReadingIt() throws {
        let link = directory + "/zero.code-snippets"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/zero")
        #expect(throws: (any Error).self) { try DiskFileSystem().contents(of: link, maximumSize: 1 << 20) }
        let loaded = LibraryLoader(fileSystem: DiskFileSystem()).load(paths: [directory])
        let message = try #require(loaded.diagnostics.first?.message)
        #expect(message.contains("character device"))
        #expect(!message.contains("permission"))
    }

    @Test func aFileWhoseNameIsNotUTF8GetsAPreciseMessage() throws {
        let name = Array((directory + "/caf").utf8) + [0xE9] + Array(".code-snippets".utf8) + [0]
        let descriptor = name.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        #expect(descriptor >= 0)
        close(descriptor)
        let loaded = LibraryLoader(fileSystem: DiskFileSystem()).load(paths: [directory])
        let message = try #require(loaded.diagnostics.first?.message)
        #expect(message.contains("not valid UTF-8"))
        #expect(!message.contains("dangling"))
    }

    @Test func aFileThatGrowsPastTheLimitIsReadNoFurtherThanTheLimit() throws {
        let path = directory + "/big.code-snippets"
        try String(repeating: " ", count: 5000).write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: FileTooLarge(size: 5000)) { try DiskFileSystem().contents(of: path, maximumSize: 4096) }
        #expect(try DiskFileSystem().contents(of: path, maximumSize: 5000).count == 5000)
    }

    @Test func aSaveIntoAFIFOIsRefusedWithoutBlocking() throws {
        let fifo = directory + "/saved.code-snippets"
        #expect(mkfifo(fifo, 0o644) == 0)
        let linked = directory + "/linked.code-snippets"
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: fifo)
        for target in [fifo, linked] {
            let outcome = Mutex<String?>(nil)
            #expect(finishes(within: 120) {
                do {
                    try SnippetFileWriter().update(target) { _ throws(SnippetFileEditError) in Array("{}".utf8) }
                    outcome.withLock { $0 = "written" }
                } catch {
                    outcome.withLock { $0 = "\(error)" }
                }
            })
            #expect(outcome.withLock { $0 }?.contains("FIFO") == true)
        }
    }
}

/// What "Save selection as snippet" may write to, and how.
@Suite struct SaveTargetTests {
    let directory: String
    var path: String { directory + "/saved.code-snippets" }

    init() throws {
        directory = NSTemporaryDirectory() + "snippets-target-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/lib/.hidden", withIntermediateDirectories: true)
    }

    func refusal(_ target: String) -> String? {
        do {
            try SaveSelection.checkDestination(target, layers: [LibraryLayer(path: directory + "/lib")])
            return nil
        } catch {
            return error.message
        }
    }

    @Test func onlySnippetFilesInsideTheLibraryAreAccepted() throws {
        #expect(refusal(directory + "/lib/saved.code-snippets") == nil)
        #expect(refusal(directory + "/lib/../lib/python.json") == nil)
        #expect(refusal(directory + "/lib/package.json")?.contains(".code-snippets") == true)
        #expect(refusal(directory + "/lib/.vscode-settings.json") != nil)
        #expect(refusal(directory + "/lib/notes.txt") != nil)
        #expect(refusal(directory + "/elsewhere.code-snippets")?.contains("not inside your library") == true)
        #expect(refusal(directory + "/lib/../escape.code-snippets")?.contains("not inside your library") == true)
        #expect(refusal(directory + "/lib/.hidden/x.code-snippets") != nil)
        // A link inside the library that leads out of it does not make the outside file a library file.
        try FileManager.default.createSymbolicLink(atPath: directory + "/lib/out", withDestinationPath: directory)
        #expect(refusal(directory + "/lib/out/x.code-snippets") != nil)
    }

    func append(_ text: String) -> ([UInt8]?) throws(SnippetFileEditError) -> [UInt8] {
        { original in (original ?? []) + Array(text.utf8) }
    }

    @Test func aReadOnlyFileIsRefusedAndLeftAsItWas() throws {
        try "{}".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o444)
        #expect(throws: SnippetFileWriteError.notWritable(path: path, reason: "is read-only")) {
            try SnippetFileWriter().update(path, edit: append("x"))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}")
    }

    @Test func aFileWithHardLinksIsRefusedRatherThanSplit() throws {
        try "{}".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(link(path, directory + "/other.code-snippets") == 0)
        #expect(throws: (any Error).self) { try SnippetFileWriter().update(path, edit: append("x")) }
        #expect(try String(contentsOfFile: directory + "/other.code-snippets", encoding: .utf8) == "{}")
    }

    @Test func modeIsKept() throws {
        try "{}".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o640)
        try SnippetFileWriter().update(path, edit: append("x"))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o640)
    }

    @Test func aSavePastTheLoadersLimitIsRefusedWithTheReason() throws {
        try "{}".write(toFile: path, atomically: false, encoding: .utf8)
        let writer = SnippetFileWriter(maximumFileSize: 10)
        #expect(throws: SnippetFileWriteError.tooLarge(size: 11, limit: 10)) { try writer.update(path, edit: append("123456789")) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}")
        #expect(SnippetFileWriteError.tooLarge(size: 11, limit: 10).description.contains("limit"))
    }

    @Test(arguments: ["in place", "replaced"])
    func aWriteInTheLastInstantBeforeTheRenameIsNotLost(how: String) throws {
        try "base".write(toFile: path, atomically: false, encoding: .utf8)
        let target = path
        let writer = SnippetFileWriter(beforeRename: { _, attempt in
            if attempt == 1 { try? "base+theirs".write(toFile: target, atomically: how == "replaced", encoding: .utf8) }
        })
        try writer.update(path, edit: append("+ours"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "base+theirs+ours")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".saved") }
        #expect(leftovers.isEmpty)
    }
}
