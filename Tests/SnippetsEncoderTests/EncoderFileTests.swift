import Foundation
import Testing

@testable import SnippetsEncoder

/// A file that is not a whole, current encoder file is refused with an error that says which problem it has.
struct EncoderFileErrorTests {
    @Test func aMissingFileIsMissing() {
        #expect(throws: EncoderFileError.missing(path: "/nonexistent/snippets-encoder.bin")) {
            try SentenceEncoder(contentsOf: "/nonexistent/snippets-encoder.bin")
        }
    }

    @Test func anotherKindOfFileHasTheWrongMagic() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let path = try folder.write("not-an-encoder.bin", Data("{\"weights\": []}\n".utf8))
        #expect(throws: EncoderFileError.wrongMagic(path: path)) { try SentenceEncoder(contentsOf: path) }
    }

    @Test func anEmptyFileOrABareMagicIsTruncated() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let empty = try folder.write("empty.bin", Data())
        #expect(throws: EncoderFileError.truncated(path: empty, size: 0, needed: 8)) { try SentenceEncoder(contentsOf: empty) }
        let magicOnly = try folder.write("magic.bin", Data("SNIPENC\0".utf8))
        #expect(throws: EncoderFileError.truncated(path: magicOnly, size: 8, needed: 12)) { try SentenceEncoder(contentsOf: magicOnly) }
    }

    @Test func aFolderIsUnreadable() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        #expect(throws: EncoderFileError.unreadable(path: folder.path, reason: "not a regular file")) {
            try SentenceEncoder(contentsOf: folder.path)
        }
    }

    @Test func descriptionsSayHowToRebuild() {
        let error = EncoderFileError.corrupt(path: "/x/snippets-encoder.bin", reason: "checksum mismatch")
        #expect(error.description == "the encoder file /x/snippets-encoder.bin is corrupt (checksum mismatch); rebuild it with `make encoder`")
    }
}

/// Damaged copies of the real file (needs `make encoder`).
@Suite(.enabled(if: EncoderFixture.isRequired, EncoderFixture.skipReason))
struct DamagedEncoderFileTests {
    let original: Data

    init() throws {
        original = try Data(contentsOf: URL(fileURLWithPath: EncoderFixture.path))
    }

    @Test func aCutShortCopyIsTruncated() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let path = try folder.write("cut.bin", original.prefix(1_000_000))
        #expect {
            try SentenceEncoder(contentsOf: path)
        } throws: { error in
            guard case EncoderFileError.truncated(path, 1_000_000, let needed) = error else { return false }
            return needed > 1_000_000
        }
    }

    @Test func anotherFormatVersionIsNamed() throws {
        var data = original
        data[8] = 2
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let path = try folder.write("v2.bin", data)
        #expect(throws: EncoderFileError.unsupportedVersion(path: path, found: 2, supported: 1)) {
            try SentenceEncoder(contentsOf: path)
        }
    }

    @Test func oneFlippedByteInTheWeightsIsCorrupt() throws {
        var data = original
        data[data.count / 2] ^= 0x10
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let path = try folder.write("flipped.bin", data)
        #expect(throws: EncoderFileError.corrupt(path: path, reason: "checksum mismatch")) {
            try SentenceEncoder(contentsOf: path)
        }
    }

    @Test func bytesAfterTheChecksumAreCorrupt() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let path = try folder.write("longer.bin", original + Data(count: 8))
        #expect(throws: EncoderFileError.corrupt(path: path, reason: "8 bytes after the checksum")) {
            try SentenceEncoder(contentsOf: path)
        }
    }

    @Test func theIdentityFollowsTheBytes() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let path = try folder.write("copy.bin", original)
        #expect(try SentenceEncoder(contentsOf: path).identity == (try EncoderFixture.loaded()).identity)
    }
}

/// `EncoderFile.locate`: explicit path, beside the (resolved) executable, the XDG data folder, else nil.
struct EncoderFileLocationTests {
    @Test func theEnvironmentVariableComesFirst() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let explicit = try folder.write("mine.bin", Data("x".utf8))
        _ = try folder.write(EncoderFile.fileName, Data("x".utf8))
        let found = EncoderFile.locate(
            executablePath: folder.path + "/snippets-lsp", environment: ["SNIPPETS_ENCODER": explicit, "HOME": folder.path])
        #expect(found == explicit)
    }

    @Test func besideTheExecutableThroughItsSymbolicLink() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let binFolder = try folder.folder("build")
        let executable = try folder.write("build/snippets-lsp", Data("#!".utf8))
        let beside = try folder.write("build/\(EncoderFile.fileName)", Data("x".utf8))
        let linkFolder = try folder.folder("bin")
        try FileManager.default.createSymbolicLink(atPath: linkFolder + "/snippets-lsp", withDestinationPath: executable)
        let found = EncoderFile.locate(
            executablePath: linkFolder + "/snippets-lsp", environment: ["SNIPPETS_ENCODER": folder.path + "/absent.bin"])
        #expect(found.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
            == URL(fileURLWithPath: beside).resolvingSymlinksInPath().path)
        _ = binFolder
    }

    @Test func theDataFolderLast() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let xdg = try folder.write("xdg/snippets-lsp/\(EncoderFile.fileName)", Data("x".utf8))
        let home = try folder.write("home/.local/share/snippets-lsp/\(EncoderFile.fileName)", Data("x".utf8))
        let executable = folder.path + "/nowhere/snippets-lsp"
        #expect(EncoderFile.locate(executablePath: executable, environment: ["XDG_DATA_HOME": folder.path + "/xdg", "HOME": folder.path + "/home"]) == xdg)
        #expect(EncoderFile.locate(executablePath: executable, environment: ["HOME": folder.path + "/home"]) == home)
        // A relative XDG_DATA_HOME is ignored, as the XDG spec says.
        #expect(EncoderFile.locate(executablePath: executable, environment: ["XDG_DATA_HOME": "xdg", "HOME": folder.path + "/home"]) == home)
    }

    @Test func nilWhenThereIsNone() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        #expect(EncoderFile.locate(executablePath: folder.path + "/snippets-lsp", environment: ["HOME": folder.path]) == nil)
    }
}

/// A fresh folder under the system's temporary folder, removed with everything in it when the test lets go of it
/// (a test copies the 34 MB encoder file into some: left behind, every run would add hundreds of megabytes).
final class TemporaryFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("encoder-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Creates `relativePath` (and its folders) holding `data`; returns its full path.
    func write(_ relativePath: String, _ data: Data) throws -> String {
        let full = path + "/" + relativePath
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: full))
        return full
    }

    func folder(_ relativePath: String) throws -> String {
        let full = path + "/" + relativePath
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        return full
    }
}
