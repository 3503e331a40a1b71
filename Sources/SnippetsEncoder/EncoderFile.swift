import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the encoder's weights file lives, and what went wrong reading one.
///
/// The file is built by `make encoder` (scripts/encoder.sh, scripts/encoder/convert.py, whose doc comment is the
/// format's specification) and copied beside each built binary. It is never fetched at run time.
public enum EncoderFile {
    /// The file's name, beside the executable and in the data folder.
    public static let fileName = "snippets-encoder.bin"

    /// The environment variable that names the file explicitly.
    public static let environmentVariable = "SNIPPETS_ENCODER"

    /// The first of these that exists: `$SNIPPETS_ENCODER`, the file beside the executable (symbolic links of the
    /// executable resolved), `$XDG_DATA_HOME/snippets-lsp/snippets-encoder.bin` (`~/.local/share/…` when unset).
    ///
    /// Returns nil when none exists: the server then works without meaning search.
    public static func locate(
        executablePath: String = CommandLine.arguments.first ?? "",
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        candidates(executablePath: executablePath, environment: environment).first { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    /// Every place `locate` looks, in order.
    static func candidates(executablePath: String, environment: [String: String]) -> [String] {
        var paths: [String] = []
        if let explicit = environment[environmentVariable], !explicit.isEmpty {
            paths.append(explicit)
        }
        if !executablePath.isEmpty {
            let executable = resolvedPath(executablePath)
            let folder = (executable as NSString).deletingLastPathComponent
            paths.append((folder as NSString).appendingPathComponent(fileName))
        }
        // The XDG spec ignores a relative XDG_DATA_HOME.
        let dataHome: String?
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else if let home = environment["HOME"], !home.isEmpty {
            dataHome = (home as NSString).appendingPathComponent(".local/share")
        } else {
            dataHome = nil
        }
        if let dataHome {
            paths.append(((dataHome as NSString).appendingPathComponent("snippets-lsp") as NSString).appendingPathComponent(fileName))
        }
        return paths
    }

    /// `path` with every symbolic link resolved (a binary linked into ~/bin finds the file beside its real self);
    /// `path` itself when it cannot be resolved.
    private static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Why an encoder file could not be loaded. The description is meant for a person (a log line, `doctor`).
public enum EncoderFileError: Error, Equatable, CustomStringConvertible {
    /// No file at the path.
    case missing(path: String)
    /// The file exists but could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The file does not start with the encoder file's magic bytes: it is something else.
    case wrongMagic(path: String)
    /// An encoder file of a format version this build does not read.
    case unsupportedVersion(path: String, found: UInt32, supported: UInt32)
    /// The file ends before its last section does (an interrupted copy or download).
    case truncated(path: String, size: Int, needed: Int)
    /// The file is complete but its contents are inconsistent (a flipped byte, a checksum that does not match).
    case corrupt(path: String, reason: String)

    public var description: String {
        let rebuild = "rebuild it with `make encoder`"
        switch self {
        case .missing(let path):
            return "no encoder file at \(path)"
        case .unreadable(let path, let reason):
            return "cannot read the encoder file \(path): \(reason)"
        case .wrongMagic(let path):
            return "\(path) is not a snippets-lsp encoder file (wrong magic bytes); \(rebuild)"
        case .unsupportedVersion(let path, let found, let supported):
            return "the encoder file \(path) has format version \(found), this build reads version \(supported); \(rebuild)"
        case .truncated(let path, let size, let needed):
            return "the encoder file \(path) is truncated (\(size) bytes, at least \(needed) needed); \(rebuild)"
        case .corrupt(let path, let reason):
            return "the encoder file \(path) is corrupt (\(reason)); \(rebuild)"
        }
    }
}
