import Foundation
import SnippetsCore

extension BenchCommand {
    /// The first load as the server goes through it (`LibraryService.scheduleReload`, generation 1): read and parse
    /// the snippet files, index them, and answer a first search, which is when the library is in service; then
    /// annotate the library (layer revisions, conflicts) and keep the same index for it (`TokenIndex.serving`).
    /// Project snippets, last-good files and learned words are left out.
    struct StartUp {
        var library: SnippetLibrary
        var index: TokenIndex
        var figures: Figures

        /// Wall-clock and CPU nanoseconds from the start to the end of each step.
        struct Figures {
            var read: (wall: UInt64, cpu: UInt64)
            var indexed: (wall: UInt64, cpu: UInt64)
            var firstSearch: (wall: UInt64, cpu: UInt64)
            var annotated: (wall: UInt64, cpu: UInt64)

            var lines: [String] {
                func timing(_ step: (wall: UInt64, cpu: UInt64)) -> String { "\(milliseconds(step.wall)) ms (CPU \(milliseconds(step.cpu)) ms)" }
                func difference(_ to: (wall: UInt64, cpu: UInt64), _ from: (wall: UInt64, cpu: UInt64)) -> (wall: UInt64, cpu: UInt64) {
                    (to.wall - from.wall, to.cpu - from.cpu)
                }
                return [
                    "start-up:        \(timing(firstSearch)) to a first search: read and parse \(timing(read)), "
                        + "index \(timing(difference(indexed, read)))",
                    "then annotation: \(timing(difference(annotated, firstSearch))) (layer revisions and conflicts, while the library serves)",
                ]
            }
        }

        static func measure(_ paths: LibraryPaths) -> StartUp {
            let wallStart = DispatchTime.now().uptimeNanoseconds
            let cpuStart = processCPUNanoseconds()
            func now() -> (wall: UInt64, cpu: UInt64) {
                (DispatchTime.now().uptimeNanoseconds - wallStart, processCPUNanoseconds() - cpuStart)
            }
            let snippets = LibraryLoader(fileSystem: DiskFileSystem()).load(layers: paths.layers)
            let read = now()
            let firstIndex = TokenIndex(library: snippets)
            let indexed = now()
            let query = snippets.snippets.first?.triggers.first ?? snippets.snippets.first?.title ?? ""
            _ = firstIndex.search(query)
            let firstSearch = now()
            let library = LayerLoading.annotating(snippets)
            let index = firstIndex.serving(library) ?? TokenIndex(library: library)
            let annotated = now()
            return StartUp(
                library: library, index: index,
                figures: Figures(read: read, indexed: indexed, firstSearch: firstSearch, annotated: annotated))
        }

        /// Start-up measured `count` times (each library let go before the next is read), and the lines to print:
        /// the run with the median time to a first search, and the range over all runs. The last run is returned.
        static func repeated(_ count: Int, _ paths: LibraryPaths) -> (StartUp, [String]) {
            var runs: [Figures] = []
            var last: StartUp?
            for _ in 0..<count {
                last = nil
                last = StartUp.measure(paths)
                runs.append(last!.figures)
            }
            let sorted = runs.sorted { $0.firstSearch.wall < $1.firstSearch.wall }
            var lines = sorted[(sorted.count - 1) / 2].lines
            if count > 1 {
                lines[0] += "; median of \(count), range \(milliseconds(sorted.first!.firstSearch.wall))–\(milliseconds(sorted.last!.firstSearch.wall)) ms"
            }
            return (last!, lines)
        }
    }
}
