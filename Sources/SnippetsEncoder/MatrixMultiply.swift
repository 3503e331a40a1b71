import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// C = alpha · A · Bᵀ (or A · B), row-major: through BLAS's `cblas_sgemm` when a BLAS library can be loaded, else a
/// portable Swift kernel that gives the same results to float rounding.
enum MatrixMultiply: Sendable {
    /// OpenBLAS (or any CBLAS) loaded at first use.
    case blas(BLASLibrary)
    /// Cache-blocked SIMD in Swift.
    case portable

    /// BLAS when it loads, else the portable kernel.
    static var automatic: MatrixMultiply {
        BLASLibrary.shared.map { .blas($0) } ?? .portable
    }

    /// `c[i·ldc + j] = alpha · Σₚ a[i·lda + p] · b[j·ldb + p]` for i < m, j < n (B is n×k, as a Linear layer's
    /// weight is stored), or with `b[p·ldb + j]` when `transposesB` is false (B is k×n).
    func multiply(
        m: Int, n: Int, k: Int, alpha: Float = 1,
        a: UnsafePointer<Float>, lda: Int,
        b: UnsafePointer<Float>, ldb: Int, transposesB: Bool = true,
        c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        guard m > 0, n > 0 else { return }
        switch self {
        case .blas(let library):
            library.sgemm(
                BLASLibrary.rowMajor, BLASLibrary.noTranspose, transposesB ? BLASLibrary.transpose : BLASLibrary.noTranspose,
                Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), 0, c, Int32(ldc))
        case .portable:
            if transposesB {
                PortableKernel.multiplyTransposed(m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc)
            } else {
                // Bᵀ made once (attention's P·V: a few kilobytes), so one kernel serves both forms.
                let transposed = UnsafeMutablePointer<Float>.allocate(capacity: n * k)
                defer { transposed.deallocate() }
                for p in 0..<k {
                    for j in 0..<n { transposed[j * k + p] = b[p * ldb + j] }
                }
                PortableKernel.multiplyTransposed(m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: transposed, ldb: k, c: c, ldc: ldc)
            }
        }
    }
}

/// `cblas_sgemm` from a BLAS library opened with `dlopen`, so the binary has no link-time dependency on one and
/// starts as fast without it. OpenBLAS is told to use one thread: the server embeds in the background, at low
/// priority, on machines with two cores.
struct BLASLibrary: @unchecked Sendable {
    // @unchecked: two C function pointers into a library that is never closed; calling them is thread-safe
    // (OpenBLAS serialises its buffer pool; a single-threaded BLAS keeps no state between calls).
    typealias SGEMM = @convention(c) (
        Int32, Int32, Int32, Int32, Int32, Int32, Float, UnsafePointer<Float>?, Int32, UnsafePointer<Float>?, Int32,
        Float, UnsafeMutablePointer<Float>?, Int32
    ) -> Void
    typealias SetThreadCount = @convention(c) (Int32) -> Void

    static let rowMajor: Int32 = 101
    static let noTranspose: Int32 = 111
    static let transpose: Int32 = 112

    /// Tried in order; the first that has `cblas_sgemm` wins.
    static let candidates = [
        "libopenblas.so.0", "libblas.so.3", "libopenblas.so", "libcblas.so.3",
        "/System/Library/Frameworks/Accelerate.framework/Accelerate",
    ]

    let path: String
    let sgemm: SGEMM

    /// The library, loaded once per process; nil when none of `candidates` loads.
    static let shared: BLASLibrary? = load()

    private static func load() -> BLASLibrary? {
        hintOpenBLASCore()
        for path in candidates {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else { continue }
            guard let symbol = dlsym(handle, "cblas_sgemm") else {
                dlclose(handle)
                continue
            }
            if let setThreads = dlsym(handle, "openblas_set_num_threads") {
                unsafeBitCast(setThreads, to: SetThreadCount.self)(1)
            }
            return BLASLibrary(path: path, sgemm: unsafeBitCast(symbol, to: SGEMM.self))
        }
        return nil
    }
}

extension BLASLibrary {
    /// Tells OpenBLAS which kernels to use when the user has not (`OPENBLAS_CORETYPE`), from the CPU's features.
    ///
    /// Debian's OpenBLAS 0.3.21 picks its kernels by CPU model number and falls back to the SSE3 "Prescott" ones for
    /// a model it does not know: on the project's machines (KVM, Xeon model 207) that made every multiply 2-3× slower
    /// than the AVX-512 kernels. Set before the first dlopen, once (BLASLibrary.shared), without overwriting.
    /// (`setenv` is not safe against a `getenv` on another thread at the same instant; this runs once per process,
    /// at the first encoder load, which is a small, accepted risk for a 2-3× faster encoder.)
    fileprivate static func hintOpenBLASCore() {
        #if os(Linux)
        guard getenv("OPENBLAS_CORETYPE") == nil,
            let cpuInfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let flagLine = cpuInfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return }
        let flags = Set(flagLine.split(separator: " ").map(String.init))
        let core: String
        if flags.isSuperset(of: ["avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"]) {
            core = "SkylakeX"
        } else if flags.isSuperset(of: ["avx2", "fma"]) {
            core = "Haswell"
        } else {
            return
        }
        setenv("OPENBLAS_CORETYPE", core, 0)
        #endif
    }
}

/// The fallback when no BLAS loads: C = alpha · A · Bᵀ in 4×4 tiles of dot products, each accumulated in SIMD
/// lanes across k, over blocks of B's rows sized to stay in the L2 cache.
enum PortableKernel {
    static func multiplyTransposed(
        m: Int, n: Int, k: Int, alpha: Float,
        a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        // About 128 KB of B per block.
        let blockRows = max(4, (32768 / max(k, 1)) & ~3)
        var blockStart = 0
        while blockStart < n {
            let blockEnd = min(n, blockStart + blockRows)
            var i = 0
            while i < m {
                // Rows past the end repeat the last one; their results are not stored.
                let a0 = a + min(i, m - 1) * lda, a1 = a + min(i + 1, m - 1) * lda
                let a2 = a + min(i + 2, m - 1) * lda, a3 = a + min(i + 3, m - 1) * lda
                var j = blockStart
                while j < blockEnd {
                    let b0 = b + min(j, n - 1) * ldb, b1 = b + min(j + 1, n - 1) * ldb
                    let b2 = b + min(j + 2, n - 1) * ldb, b3 = b + min(j + 3, n - 1) * ldb
                    let tile = dotTile(a0, a1, a2, a3, b0, b1, b2, b3, k: k)
                    for r in 0..<min(4, m - i) {
                        for s in 0..<min(4, blockEnd - j) {
                            c[(i + r) * ldc + j + s] = alpha * tile[r * 4 + s]
                        }
                    }
                    j += 4
                }
                i += 4
            }
            blockStart = blockEnd
        }
    }

    /// The 16 dot products of rows a0…a3 with rows b0…b3, row-major.
    @inline(__always)
    private static func dotTile(
        _ a0: UnsafePointer<Float>, _ a1: UnsafePointer<Float>, _ a2: UnsafePointer<Float>, _ a3: UnsafePointer<Float>,
        _ b0: UnsafePointer<Float>, _ b1: UnsafePointer<Float>, _ b2: UnsafePointer<Float>, _ b3: UnsafePointer<Float>,
        k: Int
    ) -> SIMD16<Float> {
        var s00 = SIMD4<Float>(), s01 = SIMD4<Float>(), s02 = SIMD4<Float>(), s03 = SIMD4<Float>()
        var s10 = SIMD4<Float>(), s11 = SIMD4<Float>(), s12 = SIMD4<Float>(), s13 = SIMD4<Float>()
        var s20 = SIMD4<Float>(), s21 = SIMD4<Float>(), s22 = SIMD4<Float>(), s23 = SIMD4<Float>()
        var s30 = SIMD4<Float>(), s31 = SIMD4<Float>(), s32 = SIMD4<Float>(), s33 = SIMD4<Float>()
        var p = 0
        while p + 4 <= k {
            let x0 = load4(a0 + p), x1 = load4(a1 + p), x2 = load4(a2 + p), x3 = load4(a3 + p)
            let y0 = load4(b0 + p), y1 = load4(b1 + p), y2 = load4(b2 + p), y3 = load4(b3 + p)
            s00 += x0 * y0; s01 += x0 * y1; s02 += x0 * y2; s03 += x0 * y3
            s10 += x1 * y0; s11 += x1 * y1; s12 += x1 * y2; s13 += x1 * y3
            s20 += x2 * y0; s21 += x2 * y1; s22 += x2 * y2; s23 += x2 * y3
            s30 += x3 * y0; s31 += x3 * y1; s32 += x3 * y2; s33 += x3 * y3
            p += 4
        }
        var tile = SIMD16<Float>(
            s00.sum(), s01.sum(), s02.sum(), s03.sum(), s10.sum(), s11.sum(), s12.sum(), s13.sum(),
            s20.sum(), s21.sum(), s22.sum(), s23.sum(), s30.sum(), s31.sum(), s32.sum(), s33.sum())
        while p < k {
            let x = SIMD4<Float>(a0[p], a1[p], a2[p], a3[p])
            let y = SIMD4<Float>(b0[p], b1[p], b2[p], b3[p])
            tile += SIMD16<Float>(
                x[0] * y[0], x[0] * y[1], x[0] * y[2], x[0] * y[3], x[1] * y[0], x[1] * y[1], x[1] * y[2], x[1] * y[3],
                x[2] * y[0], x[2] * y[1], x[2] * y[2], x[2] * y[3], x[3] * y[0], x[3] * y[1], x[3] * y[2], x[3] * y[3])
            p += 1
        }
        return tile
    }

    @inline(__always)
    private static func load4(_ pointer: UnsafePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Float>.self)
    }
}
