#!/usr/bin/env python3
"""The TUI's budgets (issue 10, item 7) measured from outside: `loupe tui STORE` in a tmux pane of 120x40.

Run by `Benchmarks/tui-budget.sh`, which builds the binary and the store first. Two ways of seeing a frame:

- capture-pane: after `tmux send-keys`, run `tmux capture-pane -p` in a loop (about 1 ms apart) until the text
  differs. Each capture is a tmux client process, so the figure includes up to one capture's time: the floor
  (a capture of an unchanging screen) is measured and printed next to it.
- pipe-pane: tmux copies everything the program writes to its terminal into a FIFO, read here with select(): a
  frame ends with its last byte (no more output for QUIET_MS). No polling, so sub-millisecond resolution. A sort
  change draws its rows with the position `… / N` and counts the rank in the background; when that count's own
  frame follows within QUIET_MS it is not the key's frame, so for `o` the frame ends with the `…` (press_pipe).

Both time from just before `tmux send-keys` starts: the key reaches the program somewhere inside that client's
run, whose own duration (the send floor) is printed too.

Other figures: launch to first frame (the position `n / TOTAL` appears), an indexed filter change, peak RSS
(VmHWM) and idle CPU (utime + stime, and the on-CPU nanoseconds of every thread from /proc/PID/task/*/schedstat).
"""
import argparse
import os
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time

QUIET_MS = 15  # A frame's bytes come in one burst; this much silence ends it.
WIDTH, HEIGHT = 120, 40


def now_ms():
    return time.perf_counter() * 1000.0


def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, int(round(p / 100.0 * len(ordered) + 0.5)) - 1))
    return ordered[index]


def grouped(n):
    return f"{n:,}"


class Pane:
    """A tmux server of our own (its own socket), one session running loupe behind a start gate."""

    def __init__(self, loupe, store, work, name):
        self.socket = f"tuibench-{os.getpid()}-{name}"
        self.target = "bench"
        self.work = work
        self.gate = os.path.join(work, f"gate-{name}")
        self.fifo = os.path.join(work, f"out-{name}")
        for path in (self.gate, self.fifo):
            if os.path.exists(path):
                os.unlink(path)
            os.mkfifo(path)
        env_prefix = (f"env XDG_STATE_HOME={work}/state XDG_CONFIG_HOME={work}/config LOUPE_STORE= "
                      f"TERM=tmux-256color")
        # The shell waits on the gate, so the output pipe is in place before loupe starts; then loupe replaces it.
        command = f"read _ < {self.gate}; exec {env_prefix} {loupe} tui {store}"
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT),
                  "-s", self.target, command)
        self.tmux("set-option", "-g", "escape-time", "0")
        self.reader = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)
        self.tmux("pipe-pane", "-O", "-t", self.target, f"exec cat > {self.fifo}")
        self.pid = None
        self.output = bytearray()

    def tmux(self, *arguments, capture=False):
        result = subprocess.run(["tmux", "-L", self.socket, *arguments], check=True,
                                stdout=subprocess.PIPE if capture else subprocess.DEVNULL)
        return result.stdout.decode("utf-8", "replace") if capture else None

    def start(self):
        """Opens the gate; returns the time just before."""
        started = now_ms()
        with open(self.gate, "w") as gate:
            gate.write("go\n")
        return started

    def capture(self):
        return self.tmux("capture-pane", "-p", "-t", self.target, capture=True)

    def send(self, *keys, literal=False):
        arguments = ["send-keys", "-t", self.target] + (["-l"] if literal else []) + list(keys)
        self.tmux(*arguments)

    def loupe_pid(self):
        if self.pid is None:
            self.pid = int(self.tmux("display-message", "-p", "-t", self.target, "#{pane_pid}", capture=True))
        return self.pid

    def drain(self, wait_ms=0):
        """Reads what is in the pipe (waiting up to wait_ms for the first bytes); returns (bytes, last arrival).
        Each chunk read and its arrival time are kept in self.chunks."""
        got, last = bytearray(), None
        self.chunks = []
        deadline = now_ms() + wait_ms
        while True:
            timeout = max(0.0, deadline - now_ms()) / 1000.0 if not got else QUIET_MS / 1000.0
            ready, _, _ = select.select([self.reader], [], [], timeout)
            if not ready:
                break
            try:
                chunk = os.read(self.reader, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                time.sleep(0.001)
                if not got and now_ms() < deadline:
                    continue
                break
            got += chunk
            last = now_ms()
            self.chunks.append((last, chunk))
        self.output += got
        return bytes(got), last

    def close(self):
        try:
            self.tmux("kill-server")
        except subprocess.CalledProcessError:
            pass
        os.close(self.reader)


POSITION = None  # set in main: r"([\d,]+) / TOTAL"
COUNT = 0


def wait_for(pane, predicate, timeout_s=60.0):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        text = pane.capture()
        if predicate(text):
            return text, now_ms()
        time.sleep(0.001)
    raise SystemExit(f"timed out; the pane showed:\n{pane.capture()}")


def position(text):
    found = POSITION.search(text)
    return int(found.group(1).replace(",", "")) if found else None


def press_capture(pane, keys, literal=False, settle_ms=20):
    """One press timed by capture-pane polling; returns ms from before send-keys to the first changed capture."""
    before = pane.capture()
    started = now_ms()
    pane.send(*keys, literal=literal)
    deadline = time.time() + 30
    while time.time() < deadline:
        text = pane.capture()
        if text != before:
            elapsed = now_ms() - started
            time.sleep(settle_ms / 1000.0)
            pane.drain()
            return elapsed, text
        time.sleep(0.001)
    raise SystemExit(f"no change after {keys}; the pane showed:\n{pane.capture()}")


ELLIPSIS = "\u2026".encode()


def press_pipe(pane, keys, literal=False, pending_position=False):
    """One press timed by the pipe: ms from before send-keys to the frame's last byte, and send-keys' own ms.

    With pending_position (a sort change), the key's frame is the one whose position reads `… / N` (the rows in the
    new order, drawn before the rank is counted in the background); the count's own frame, which replaces the `…`
    with digits some milliseconds later, is not the key's. The frame ends with the last chunk holding the `…` (the
    position is on the bottom line, written last). Without a `…` the whole burst counts."""
    pane.drain()
    started = now_ms()
    pane.send(*keys, literal=literal)
    sent = now_ms()
    got, last = pane.drain(wait_ms=30000)
    if last is None:
        raise SystemExit(f"no output after {keys}; the pane showed:\n{pane.capture()}")
    if pending_position:
        marked = [at for at, chunk in pane.chunks if ELLIPSIS in chunk]
        if marked:
            last = marked[-1]
    return last - started, sent - started


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def cpu_ns(pid):
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as schedstat:
                total += int(schedstat.read().split()[0])
        except FileNotFoundError:
            pass
    return total


def vm_hwm_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def idle_cpu(pid, seconds):
    ticks0, ns0, t0 = cpu_ticks(pid), cpu_ns(pid), time.time()
    time.sleep(seconds)
    ticks1, ns1, t1 = cpu_ticks(pid), cpu_ns(pid), time.time()
    hz = os.sysconf("SC_CLK_TCK")
    return 100.0 * (ticks1 - ticks0) / hz / (t1 - t0), 100.0 * (ns1 - ns0) / 1e9 / (t1 - t0)


def go_to_middle(pane, count):
    """`:search /N?` selects exchange N = count / 2 (its URL ends in /N?page=…)."""
    middle = count // 2
    pane.send(":")
    time.sleep(0.05)
    pane.send(f"search /{middle}?", literal=True)
    time.sleep(0.05)
    pane.send("Enter")
    wait_for(pane, lambda text: position(text) == middle)
    time.sleep(0.05)
    pane.drain()


def launch(loupe, store, work, name, by_pipe=False):
    """Starts loupe; returns (pane, ms from opening the gate to the first frame showing a position).

    By capture-pane: the first capture showing `n / TOTAL`. By the pipe: the last byte of the burst in which
    `/ TOTAL` went out (curses writes the position as one run of text on a fresh screen).
    """
    pane = Pane(loupe, store, work, name)
    started = pane.start()
    if not by_pipe:
        _, seen = wait_for(pane, lambda text: position(text) is not None)
        pane.drain()
        return pane, seen - started
    marker = f"/ {grouped(COUNT)}".encode()
    stream, deadline = bytearray(), time.time() + 60
    while marker not in stream:
        if time.time() > deadline:
            raise SystemExit(f"no position in the output; the pane showed:\n{pane.capture()}")
        got, last = pane.drain(wait_ms=1000)
        stream += got
    return pane, last - started


def summary(values):
    return (f"p50 {percentile(values, 50):7.2f}  p90 {percentile(values, 90):7.2f}  "
            f"p99 {percentile(values, 99):7.2f}  max {max(values):7.2f}  (n={len(values)})")


def main():
    global POSITION, COUNT
    parser = argparse.ArgumentParser()
    parser.add_argument("--loupe", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--presses", type=int, default=50)
    parser.add_argument("--launches", type=int, default=5)
    parser.add_argument("--idle", type=float, default=10.0)
    options = parser.parse_args()
    COUNT = options.count
    POSITION = re.compile(r"([\d,]+) / " + re.escape(grouped(options.count)) + r"\b")
    work = tempfile.mkdtemp(prefix="tui-budget.")
    os.makedirs(f"{work}/state")
    os.makedirs(f"{work}/config")
    results = {}

    # 1. Launch → first frame, several launches each way.
    for by_pipe in (False, True):
        firsts = []
        for run in range(options.launches):
            pane, first = launch(options.loupe, options.store, work, f"launch{run}{'p' if by_pipe else 'c'}", by_pipe)
            firsts.append(first)
            pane.close()
        results[f"first frame (launch → position shown), {'pipe-pane' if by_pipe else 'capture-pane'}"] = firsts

    pane, _ = launch(options.loupe, options.store, work, "keys")
    pid = pane.loupe_pid()
    time.sleep(1.0)
    pane.drain()

    # 2. The measuring floors: a capture of an unchanging screen, and send-keys of a key loupe ignores.
    floor = []
    for _ in range(200):
        started = now_ms()
        pane.capture()
        floor.append(now_ms() - started)
    results["floor: one capture-pane of an unchanging screen"] = floor

    # 3. Idle CPU, following the newest (the state after launch).
    idle_ticks, idle_sched = idle_cpu(pid, options.idle)

    # 4. Keys, first by capture-pane, then by the pipe; each run from the middle of the store.
    n = options.presses
    plans = [
        ("j", ["j"] * n, None),
        ("k", ["k"] * n, None),
        ("PgDn", ["NPage"] * n, None),
        ("PgUp", ["PPage"] * n, None),
        ("g / G (alternating)", ["g", "G"] * (n // 2), None),
        ("o (sort change, cycling the 6 keys)", ["o"] * (6 * max(1, n // 6)), None),
        ("v (reverse)", ["v"] * (2 * max(1, n // 4)), None),
        ("Enter (open the detail)", ["Enter"] * max(1, n // 2), "Escape"),
        ("Escape (back to the list)", ["Escape"] * max(1, n // 2), "Enter"),
    ]
    send_floor = []
    for method in ("capture-pane", "pipe-pane"):
        go_to_middle(pane, options.count)
        for name, keys, between in plans:
            times = []
            for key in keys:
                if between and name.startswith("Escape"):
                    press_capture(pane, [between])  # open a detail to close (not measured)
                if method == "capture-pane":
                    elapsed, _ = press_capture(pane, [key])
                else:
                    elapsed, send = press_pipe(pane, [key], pending_position=name.startswith("o "))
                    send_floor.append(send)
                times.append(elapsed)
                if name.startswith("o "):
                    # Each press from a settled list: the background count of the last one has answered (else the
                    # position already reads `…` and the next frame has no `…` to end with).
                    wait_for(pane, lambda text: position(text) is not None)
                    pane.drain()
                if between and name.startswith("Enter"):
                    press_capture(pane, [between])  # back to the list (not measured)
            # o cycles back to time order, v runs an even number of times: the next plan starts in time order.
            results[f"{name}, {method}"] = times
        go_to_middle(pane, options.count)
        # 5. An indexed filter change: f, ~c 503 typed, Enter (measured); then f, Ctrl-U, Enter clears it.
        applied, cleared = [], []
        for _ in range(max(3, n // 5)):
            press_capture(pane, ["f"])
            pane.send("~c 503", literal=True)
            wait_for(pane, lambda text: "~c 503" in text)
            time.sleep(0.02)
            pane.drain()
            if method == "capture-pane":
                elapsed, text = press_capture(pane, ["Enter"])
            else:
                elapsed, _ = press_pipe(pane, ["Enter"])
            applied.append(elapsed)
            press_capture(pane, ["f"])
            press_capture(pane, ["C-u"])
            if method == "capture-pane":
                elapsed, _ = press_capture(pane, ["Enter"])
            else:
                elapsed, _ = press_pipe(pane, ["Enter"])
            cleared.append(elapsed)
            go_to_middle(pane, options.count)
        results[f"filter ~c 503 applied (Enter), {method}"] = applied
        results[f"filter cleared (Enter), {method}"] = cleared
    results["floor: send-keys' own run (the key lands inside it)"] = send_floor

    # 6. Idle again after all that (the caches warm, the list in the middle), and the peak RSS of the session.
    time.sleep(1.0)
    idle_ticks_after, idle_sched_after = idle_cpu(pid, options.idle)
    peak_kb = vm_hwm_kb(pid)
    pane.send("q")
    time.sleep(0.2)
    pane.close()

    print(f"\nloupe tui on {grouped(options.count)} exchanges, {WIDTH}x{HEIGHT}, times in ms "
          f"(from just before tmux send-keys / the launch gate):\n")
    width = max(len(name) for name in results)
    for name, values in results.items():
        print(f"  {name:<{width}}  {summary(values)}")
    print(f"\n  peak RSS (VmHWM) after the whole session: {peak_kb / 1024:.1f} MB")
    print(f"  idle CPU over {options.idle:.0f} s after launch (following the newest): "
          f"{idle_ticks:.2f} % (utime+stime), {idle_sched:.3f} % (schedstat, all threads)")
    print(f"  idle CPU over {options.idle:.0f} s after the keys: "
          f"{idle_ticks_after:.2f} % (utime+stime), {idle_sched_after:.3f} % (schedstat, all threads)")

    print("\nBudgets (pipe-pane figures, which need no polling; capture-pane in brackets):")
    def verdict(ok):
        return "ok" if ok else "MISSED"
    def both(name, p):
        return percentile(results[f"{name}, pipe-pane"], p), percentile(results[f"{name}, capture-pane"], p)
    first = both("first frame (launch → position shown)", 50)
    print(f"  first frame p50 < 150 ms: {first[0]:.1f} ({first[1]:.1f}) {verdict(first[0] < 150)}")
    for name, _, _ in plans:
        p99 = both(name, 99)
        print(f"  {name} p99 < 16 ms: {p99[0]:.1f} ({p99[1]:.1f}) {verdict(p99[0] < 16)}")
    worst = max(results["filter ~c 503 applied (Enter), pipe-pane"])
    worst_capture = max(results["filter ~c 503 applied (Enter), capture-pane"])
    print(f"  indexed filter change (worst) < 100 ms: {worst:.1f} ({worst_capture:.1f}) {verdict(worst < 100)}")
    print(f"  peak RSS < 64 MB: {peak_kb / 1024:.1f} {verdict(peak_kb < 64 * 1024)}")
    idle = max(idle_ticks, idle_ticks_after)
    print(f"  idle CPU < 1 %: {idle:.2f} {verdict(idle < 1)}")


if __name__ == "__main__":
    main()
