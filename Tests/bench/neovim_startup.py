"""Start-up to the first completion through a real headless Neovim, beside mini.snippets' LSP server (issue 33).

For friendly-snippets, the 13k set (friendly-snippets, vim-snippets, personal: what completion_bench.py serves) and
every folder under ../shared/corpora, Neovim (the one in .venv) opens a python file holding `def`, then sets up
snippets-lsp exactly as editors/neovim/README.md does (`require('snippets_lsp').setup{...}`, libraries as settings)
and sends `textDocument/completion` at the end of the trigger as soon as the client is attached, again on every empty
reply, until one has items (Tests/bench/neovim_startup.lua). Printed: median and min over --runs runs after one
warm-up, from the first `vim.lsp.start` call (the server spawned) to that reply, and the plugin's set-up before it.
mini.snippets is set up the same way (`gen_loader.from_lang()` over friendly-snippets on 'runtimepath', then
`MiniSnippets.start_lsp_server()`); it reads VS Code JSON only, so the sets with SnipMate, UltiSnips, yasnippet or
espanso files are n/a for it. mini.nvim comes from --mini (a git dir or a checkout), $MINI_NVIM or the /work/.mirror
copy, and is copied into .build/bench/mini.nvim (ignored by git), never into the tracked tree.

Beside them, the floor: Tests/bench/floor_server.c, a stand-in server that answers every request at once, built with
the system's C compiler into .build/bench and spawned by the same plugin and set-up (what the client, the pipes and a
process start cost, which no server can go under; mini.snippets runs inside Neovim and pays no process start).

Also printed: the server's peak memory (VmHWM) at the first completion, and in the warm-up run once the load is
announced and the server is quiet (after serving, it embeds every snippet for ask; vectors are cached by content in
.build/bench/cache, the benchmark's own $XDG_CACHE_HOME, so only the first run ever embeds them all), `--version`
wall time (median of 20) for the release and the static binary, and the server's idle CPU over --idle-seconds with
every corpus loaded, quiet, and Neovim attached, as a share of one core. Figures, never assertions: exits 0 when
everything ran.

Run by `make bench`: `.venv/bin/python Tests/bench/neovim_startup.py --bin .build/release/snippets-lsp --shared ../shared`.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH_DIR = REPO_ROOT / ".build" / "bench"
INIT_LUA = pathlib.Path(__file__).resolve().with_name("neovim_startup.lua")
PLUGIN = REPO_ROOT / "editors" / "neovim"
MIRROR = pathlib.Path("/work/.mirror/echasnovski+mini.nvim/repo")
STATIC_BIN = REPO_ROOT / ".build" / "static" / "snippets-lsp"
TRIGGER = "def"  # a python snippet in friendly-snippets (python.json) and vim-snippets (python.snippets)


def find_nvim() -> str | None:
    candidates = [pathlib.Path(sys.prefix) / "bin" / "nvim", REPO_ROOT / ".venv" / "bin" / "nvim"]
    for candidate in candidates:
        if candidate.exists() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("nvim")


def prepare_mini(source: str | None) -> tuple[pathlib.Path | None, str]:
    """Copies mini.nvim into .build/bench/mini.nvim; returns (folder, what it is) or (None, why not)."""
    if not source:
        if not MIRROR.exists():
            return None, f"no --mini, no $MINI_NVIM and no {MIRROR}"
        source = str(MIRROR)
    path = pathlib.Path(source).expanduser().resolve()
    target = BENCH_DIR / "mini.nvim"
    if (path / "lua" / "mini" / "snippets.lua").exists():  # a plain checkout
        if path != target:
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(path, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        return target, f"checkout {path}"
    git = ["git", f"--git-dir={path}"]
    try:
        commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as error:
        return None, f"{path} is neither a mini.nvim checkout nor a git dir ({error})"
    stamp = target / ".bench-commit"
    if not (stamp.exists() and stamp.read_text().strip() == commit):
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        archive = subprocess.Popen(git + ["archive", commit], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", str(target)], stdin=archive.stdout, check=True)
        archive.stdout.close()
        if archive.wait() != 0:
            return None, f"git archive of {path} failed"
        stamp.write_text(commit + "\n")
    if not (target / "lua" / "mini" / "snippets.lua").exists():
        return None, f"{path} at {commit[:12]} has no lua/mini/snippets.lua"
    return target, f"{path} at {commit[:12]}"


def alive(pid: int) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def kill_pid(pid: int | None) -> None:
    if pid and alive(pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def children_of(parent: int) -> list[int]:
    pids = []
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    pids.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return pids


class Runner:
    """Runs one Neovim per measurement and kills Neovim and the server it started on every exit path."""

    def __init__(self, nvim: str, bin_path: str, work: pathlib.Path) -> None:
        self.nvim, self.bin, self.work = nvim, bin_path, work
        self.file = work / "bench.py"
        self.file.write_text(TRIGGER + "\n", encoding="utf-8")
        self.count = 0

    def run(self, config: dict, timeout_s: float) -> dict:
        self.count += 1
        out = self.work / f"result-{self.count}.json"
        config = dict(config, file=str(self.file), out=str(out), timeout_ms=int(timeout_s * 1000), bin=self.bin)
        env = dict(os.environ, BENCH_CONFIG=json.dumps(config), XDG_STATE_HOME=str(self.work / "state"),
                   XDG_DATA_HOME=str(self.work / "data"), XDG_CONFIG_HOME=str(self.work / "config"),
                   XDG_CACHE_HOME=str(BENCH_DIR / "cache"))
        process = subprocess.Popen([self.nvim, "--headless", "--clean", "-u", str(INIT_LUA)], cwd=self.work,
                                   env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, start_new_session=True)
        result: dict = {}
        try:
            try:
                _, stderr = process.communicate(timeout=timeout_s + 15)
            except subprocess.TimeoutExpired:
                stderr = b""
                result["error"] = "Neovim did not exit"
            if out.exists():
                result = json.loads(out.read_text(encoding="utf-8") or "{}") | result
            elif "error" not in result:
                result["error"] = f"no result (Neovim exit {process.returncode}): {stderr.decode(errors='replace')[-300:]}"
        finally:
            children = children_of(process.pid)  # the server, should Neovim still run
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            else:
                try:
                    os.killpg(process.pid, signal.SIGKILL)  # anything left in Neovim's group
                except OSError:
                    pass
            if not result.get("server_pid") and out.exists():
                try:
                    result["server_pid"] = json.loads(out.read_text(encoding="utf-8")).get("server_pid")
                except ValueError:
                    pass
            for pid in children + [result.get("server_pid")]:
                kill_pid(pid)
        return result


def fmt_ms(values: list[float]) -> str:
    return f"{statistics.median(values):7.1f} / {min(values):7.1f} ms"


def measure(runner: Runner, config: dict, runs: int, timeout_s: float,
            warm_up: dict | None = None) -> tuple[dict, list[dict], str | None]:
    """One warm-up (with `warm_up` added to its settings), then `runs` runs; returns the warm-up's result, the
    measured runs' results, or the first error."""
    first = runner.run(dict(config, **(warm_up or {})), timeout_s + (warm_up or {}).get("settle_ms", 0) / 1000
                       + (warm_up or {}).get("idle_ms", 0) / 1000)
    if "error" in first or "from_start_ms" not in first:
        return first, [], "warm-up: " + first.get("error", "no completion")
    results = []
    for _ in range(runs):
        result = runner.run(config, timeout_s)
        if "error" in result or "from_start_ms" not in result:
            return first, results, result.get("error", "no completion")
        results.append(result)
    return first, results, None


def measure_beside(label: str, runner: Runner, config: dict, runs: int, describe) -> float | None:
    """Measures another set-up beside snippets-lsp (no warm-up settling): prints its line, the median and min with
    `describe(results)` after them, and returns the median; on failure prints why and returns None."""
    _, results, error = measure(runner, config, runs, 60)
    if error:
        print(f"    {label:<14} failed: {error}")
        return None
    times = [r["from_start_ms"] for r in results]
    print(f"    {label:<14} {fmt_ms(times)}  ({describe(results)})")
    return statistics.median(times)


def build_floor() -> tuple[pathlib.Path | None, str]:
    """Compiles floor_server.c into .build/bench/floor-server; returns (binary, what it is) or (None, why not)."""
    source = pathlib.Path(__file__).resolve().with_name("floor_server.c")
    target = BENCH_DIR / "floor-server"
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        return None, "no C compiler"
    done = subprocess.run([compiler, "-O2", "-o", str(target), str(source)], capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"{compiler} failed: {done.stderr.strip()[-200:]}"
    return target, str(target)


def version_times(bin_path: pathlib.Path, count: int = 20) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        subprocess.run([str(bin_path), "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=str(REPO_ROOT / ".build/release/snippets-lsp"))
    parser.add_argument("--shared", default=str(REPO_ROOT.parent / "shared"))
    parser.add_argument("--mini", default=os.environ.get("MINI_NVIM"), help="mini.nvim: a git dir or a checkout")
    parser.add_argument("--runs", type=int, default=5, help="measured runs per library (after one warm-up)")
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    parser.add_argument("--settle-seconds", type=float, default=1800.0,
                        help="at most this long for the warm-up's server to be quiet (a cold vector cache: minutes)")
    parser.add_argument("--only", action="append", choices=["friendly", "13k", "all"],
                        help="measure only these libraries (repeatable); default: all three")
    arguments = parser.parse_args()

    bin_path = pathlib.Path(arguments.bin).resolve()
    corpora = pathlib.Path(arguments.shared).resolve() / "corpora"
    nvim = find_nvim()
    if not bin_path.exists():
        print(f"neovim start-up bench: skipped, {bin_path} not built (make release)")
        return 0
    if nvim is None or not corpora.is_dir():
        print(f"neovim start-up bench: skipped, {'no nvim in .venv (make venv)' if nvim is None else f'{corpora} missing'}")
        return 0

    friendly = corpora / "friendly-snippets"
    libraries = {
        "friendly-snippets": [friendly],
        "13k set (friendly, vim-snippets, personal)": [friendly, corpora / "vim-snippets", corpora / "personal"],
        "all corpora": sorted(p for p in corpora.iterdir() if p.is_dir()),
    }
    if arguments.only:
        keys = dict(zip(["friendly", "13k", "all"], list(libraries)))
        libraries = {keys[name]: libraries[keys[name]] for name in keys if name in arguments.only}
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    mini, mini_note = prepare_mini(arguments.mini)
    floor, floor_note = build_floor()
    nvim_version = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"Neovim start-up to the first completion ({nvim_version}, trigger {TRIGGER!r} in a python buffer; "
          f"median / min of {arguments.runs} runs after a warm-up, from vim.lsp.start; setup: the plugin's part before it)")
    load = " / ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"  server: {bin_path}; {os.cpu_count()} CPUs, load average {load}")
    print(f"  mini.snippets: {mini_note if mini else 'skipped (' + mini_note + ')'}")
    print(f"  floor: {floor_note if floor else 'skipped (' + floor_note + ')'}")

    exit_code = 0
    with tempfile.TemporaryDirectory(prefix="snippets-nvim-bench-") as work_dir:
        runner = Runner(nvim, str(bin_path), pathlib.Path(work_dir))
        for label, paths in libraries.items():
            config = {"mode": "ours", "plugin": str(PLUGIN), "libraries": [str(p) for p in paths]}
            warm_up = {"settle_ms": int(arguments.settle_seconds * 1000)}
            if label == "all corpora":
                warm_up["idle_ms"] = int(arguments.idle_seconds * 1000)
            first, results, error = measure(runner, config, arguments.runs, 180, warm_up)
            snippets_count = (first.get("load_message") or "").split(" from ")[0].removeprefix("loaded ")
            print(f"  {label} ({snippets_count or '?'}):")
            if error:
                print(f"    snippets-lsp   failed: {error}")
                exit_code = 1
            else:
                from_start = [r["from_start_ms"] for r in results]
                setup = statistics.median(r["setup_ms"] for r in results)
                loaded = statistics.median(r.get("loaded_ms", float("nan")) for r in results)
                requests = statistics.median(r["requests"] for r in results)
                attached = statistics.median(r["attached_ms"] - r["setup_ms"] for r in results)
                memory = statistics.median((r.get("vm_hwm_kib") or 0) for r in results) / 1024
                print(f"    snippets-lsp   {fmt_ms(from_start)}  (setup +{setup:.1f} ms; attached at {attached:.1f} ms; "
                      f"requests sent: {requests:.0f}; {results[-1]['items']} items; peak memory at the first "
                      f"completion {memory:.1f} MiB)")
                settled = first.get("settled_ms", float("nan")) / 1000
                state = f"quiet at {settled:.1f} s" if first.get("quiet") else f"still busy at {settled:.1f} s"
                print(f"    warm-up run    load announced at {first.get('loaded_ms', float('nan')):.0f} ms, server "
                      f"{state}; peak memory then {(first.get('settled_hwm_kib') or 0) / 1024:.1f} MiB")
            if mini is None:
                print("    mini.snippets  skipped")
            elif paths != [friendly]:
                print("    mini.snippets  n/a (reads VS Code JSON only: not SnipMate, UltiSnips, yasnippet, espanso)")
            else:
                mini_config = {"mode": "mini", "mini": str(mini), "rtp": [str(friendly)]}
                mini_median = measure_beside(
                    "mini.snippets", runner, mini_config, arguments.runs,
                    lambda rs: f"setup +{statistics.median(r['setup_ms'] for r in rs):.1f} ms; attached at "
                               f"{statistics.median(r['attached_ms'] - r['setup_ms'] for r in rs):.1f} ms; "
                               f"{rs[-1]['items']} items")
                if mini_median is None:
                    exit_code = 1
                elif not error:
                    ratio = statistics.median(from_start) / mini_median
                    print(f"    ratio          {ratio:.2f}x mini.snippets (goal: within 1.25x)")
            if paths == [friendly] and floor is not None:
                # The same set-up as snippets-lsp's (`config`), spawning the stand-in, in a folder of its own.
                floor_folder = pathlib.Path(work_dir) / "floor"
                floor_folder.mkdir(exist_ok=True)
                floor_median = measure_beside(
                    "floor", Runner(nvim, str(floor), floor_folder), config, arguments.runs,
                    lambda _: "a stand-in that answers at once, same plugin and set-up")
                if floor_median is None:
                    exit_code = 1
                elif not error:
                    print(f"    above floor    {statistics.median(from_start) - floor_median:.1f} ms "
                          f"(snippets-lsp's median minus the floor's)")
            if "idle_ms" in warm_up:
                if "idle_cpu_s" in first:
                    share = first["idle_cpu_s"] / first["idle_wall_s"] * 100
                    print(f"    idle CPU       {first['idle_cpu_s'] * 1000:.0f} ms over {first['idle_wall_s']:.1f} s "
                          f"after the warm-up's server was {'quiet' if first.get('quiet') else 'still busy'} = "
                          f"{share:.2f}% of a core (goal: under 0.5%)")
                else:
                    print(f"    idle CPU       failed: {first.get('error', 'no figure')}")
                    exit_code = 1

    print("--version (wall, median / min of 20):")
    for name, path in (("release", bin_path), ("static", STATIC_BIN)):
        if path.exists():
            times = version_times(path)
            size = path.stat().st_size / 1024 / 1024
            print(f"  {name:8s} {fmt_ms(times)}  ({path}, {size:.1f} MB)")
        else:
            print(f"  {name:8s} static binary absent: make static")
    return exit_code


def exit_on_signal(signum: int, _frame) -> None:
    raise SystemExit(128 + signum)  # unwinds through the runner's cleanup (Neovim and the server are killed)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, exit_on_signal)
    signal.signal(signal.SIGHUP, exit_on_signal)
    sys.exit(main())
