// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "snippets-lsp",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "snippets-lsp", targets: ["snippets-lsp"]),
        .library(name: "SnippetsCore", targets: ["SnippetsCore"]),
        .library(name: "SnippetsServer", targets: ["SnippetsServer"]),
        .library(name: "SnippetsEncoder", targets: ["SnippetsEncoder"]),
    ],
    targets: [
        // Pure: snippet model, formats, body grammar, token index, retrieval, asking, audit. No I/O.
        // ICU's C API (bundled with Foundation on Linux as `_FoundationICU`) runs transforms under a step budget.
        .target(
            name: "SnippetsCore",
            linkerSettings: [.linkedLibrary("_FoundationICU", .when(platforms: [.linux]))]),
        // JSON-RPC, LSP, handlers, the real file system, command-line commands.
        // The OpenAI-compatible HTTP client behind the core's AskModel protocol (llama-server, Ollama, vLLM, LM Studio).
        // libcurl's C API, which the model client speaks, opened with dlopen on the first model request and never
        // linked: a process without a model maps none of libcurl's ~30 libraries. Building needs curl/curl.h only
        // (Debian: libcurl4-openssl-dev, installed by scripts/build-deps.sh; macOS ships it); a model needs libcurl4.
        .target(name: "CCurlLoader"),
        .target(name: "SnippetsModelClient", dependencies: ["SnippetsCore", "CCurlLoader"]),
        .target(name: "SnippetsServer", dependencies: ["SnippetsCore", "SnippetsModelClient", "SnippetsEncoder"]),
        // The sentence encoder (all-MiniLM-L6-v2 in Swift): Foundation only; BLAS through dlopen when present.
        .target(
            name: "SnippetsEncoder",
            // Optimised in every configuration: a debug build's encoder took about 0.5 s a token, so the tests and
            // the debug binary the editor tests drive would embed a library in minutes.
            swiftSettings: [.unsafeFlags(["-O"])]),
        // Prints the encoder's speed and memory (`make encoder-bench`); asserts nothing.
        .executableTarget(name: "snippets-encoder-bench", dependencies: ["SnippetsEncoder"]),
        // Thin executable: picks a command and wires stdio.
        .executableTarget(name: "snippets-lsp", dependencies: ["SnippetsServer", "SnippetsCore"]),
        // What both test targets share: running long synchronous work off Swift's cooperative pool, an encoder stand-in.
        .target(name: "TestSupport", dependencies: ["SnippetsCore"], path: "Tests/TestSupport"),
        .testTarget(name: "SnippetsCoreTests", dependencies: ["SnippetsCore", "TestSupport"]),
        // Server and model client tests (Model/: the client against a misbehaving loopback server, and a real one).
        .testTarget(name: "SnippetsServerTests", dependencies: ["SnippetsServer", "SnippetsModelClient", "SnippetsCore", "TestSupport"]),
        // The encoder against Tests/Fixtures/encoder/reference.json (needs `make encoder`'s file).
        .testTarget(name: "SnippetsEncoderTests", dependencies: ["SnippetsEncoder"]),
    ],
    swiftLanguageModes: [.v6]
)
