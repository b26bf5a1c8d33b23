#!/usr/bin/env python3
"""The screens' budget under live load (issue 11, item 4), measured from outside: `loupe tui` in a 120x40 tmux
pane on a copy of a large store while `feed-store` records RATE exchanges/s into it through the real recorder.

Run by `Benchmarks/screens-budget.sh`. For each screen (1 exchanges, 2 timeline, 3 circuits, 4 metrics) a key whose
effect shows in the position text is pressed P times. Arrivals redraw the screen too, so "output came" would not
do: the position must change as the key says. Two timings of each press, both from just before `tmux send-keys`:

- control (the figure the budget is judged by): a tmux control-mode client (`tmux -C`) sends the key and, after
  each piece of the program's output it is told of (`%output`), captures the pane; the press ends with the last
  output before the first capture showing the effect. No process is started per command, so a capture takes a
  fraction of a millisecond and the figure is within that of the frame;
- capture: the first `capture-pane`, polled about every millisecond, that shows the effect (each capture is a
  tmux client process, about 4 ms on this machine, included).

On each screen the process's CPU over a few seconds of live load is read too (utime + stime): what it spends keeping
that screen current, per second. The process's peak RSS (VmHWM) is read at the end, and the arrival rate is read
from the store (its newest sequence at the start and at the end).
"""
import argparse
import os
import re
import select
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tui_budget import Pane, now_ms, percentile, summary, vm_hwm_kb, cpu_ticks  # noqa: E402

FLOW_POSITION = re.compile(r"([\d,…]+) / ([\d,]+)")
CIRCUIT_POSITION = FLOW_POSITION
WINDOW = re.compile(r"window (\S+) · sort")


def status_line(text):
    lines = text.rstrip("\n").split("\n")
    return lines[-2] if len(lines) >= 2 else ""


def selected_rank(text):
    found = FLOW_POSITION.search(status_line(text))
    return found.group(1) if found else None


def window_label(text):
    found = WINDOW.search(text)
    return found.group(1) if found else None


CONTROL = None  # the control client, drained while the capture-pane timings run


def timed(pane, key, reading):
    """ms from before send-keys to the first capture whose reading differs from the one before the key."""
    before = reading(pane.capture())
    started = now_ms()
    pane.send(key)
    deadline = time.time() + 30
    while time.time() < deadline:
        now = reading(pane.capture())
        if now is not None and now != before:
            return now_ms() - started
        if CONTROL is not None:
            CONTROL.drain()  # tmux holds the output lines of a client that does not read
        time.sleep(0.001)
    raise SystemExit(f"{key}: the position never changed; the pane showed:\n{pane.capture()}")


class Control:
    """A tmux control-mode client (`tmux -C`) on the pane's session: keys are sent and the screen is captured as
    commands on one pipe, without a tmux process per command, and the pane's output arrives as `%output` lines,
    in order with the commands' replies (an output line before a reply's `%begin` was on screen before it)."""

    def __init__(self, pane):
        self.pane = pane
        pane.tmux("pipe-pane", "-t", pane.target)  # the pipe is not needed here
        self.process = subprocess.Popen(["tmux", "-L", pane.socket, "-C", "attach", "-t", pane.target],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        bufsize=0)
        self.buffer = b""
        self.last_output = None

    def line(self, timeout):
        while b"\n" not in self.buffer:
            if not select.select([self.process.stdout], [], [], timeout)[0]:
                return None
            chunk = os.read(self.process.stdout.fileno(), 1 << 20)
            if not chunk:
                raise SystemExit("the tmux control client ended")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        if line.startswith(b"%output"):
            self.last_output = now_ms()
        return line

    def command(self, text):
        """Runs a tmux command; returns its reply's lines. Output lines met before the reply set last_output."""
        self.process.stdin.write(text.encode() + b"\n")
        reply, inside = [], False
        while True:
            line = self.line(30)
            if line is None:
                raise SystemExit(f"tmux did not answer {text}")
            if line.startswith(b"%begin"):
                inside = True
                reply_started = self.last_output
            elif line.startswith(b"%end") or line.startswith(b"%error"):
                if inside:
                    self.output_before_reply = reply_started
                    return reply
            elif inside:
                reply.append(line.decode("utf-8", "replace"))

    def capture(self):
        return "\n".join(self.command(f"capture-pane -p -t {self.pane.target}")) + "\n"

    def drain(self):
        """Reads the output lines waiting (tmux holds them for a client that does not read)."""
        while self.line(0) is not None:
            pass

    def close(self):
        self.process.kill()
        self.process.wait()


def timed_control(control, key, reading):
    """ms from before the key is sent to the last pane output before the first capture showing the key's effect."""
    before = reading(control.capture())
    started = now_ms()
    control.command(f"send-keys -t {control.pane.target} {key}")
    deadline = time.time() + 30
    while time.time() < deadline:
        # After each piece of output, or 50 ms without any (should tmux hold output back), look at the screen.
        line = control.line(0.05)
        if line is not None and not line.startswith(b"%output"):
            continue
        now = reading(control.capture())
        if now is not None and now != before:
            shown = control.output_before_reply
            return (shown if shown is not None and shown >= started else now_ms()) - started
    raise SystemExit(f"{key}: the position never changed; the pane showed:\n{control.capture()}")


def newest_sequence(store):
    """The store's newest sequence, read by Python's sqlite3 (a reader beside the feeder's writer)."""
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as connection:
        return connection.execute("SELECT MAX(sequence) FROM exchange").fetchone()[0] or 0


def cpu_percent(pid, seconds):
    hz = os.sysconf("SC_CLK_TCK")
    ticks0, t0 = cpu_ticks(pid), time.time()
    time.sleep(seconds)
    return 100.0 * (cpu_ticks(pid) - ticks0) / hz / (time.time() - t0)


def main():
    global CONTROL
    parser = argparse.ArgumentParser()
    parser.add_argument("--loupe", required=True)
    parser.add_argument("--feed", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--rate", type=int, default=5000)
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--cpu-seconds", type=float, default=5.0)
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="screens-budget.")
    os.makedirs(f"{work}/state")
    os.makedirs(f"{work}/config")
    copy = os.path.join(work, "live.sqlite")
    shutil.copyfile(options.store, copy)
    os.chmod(copy, 0o600)
    feed_seconds = 600
    feed = subprocess.Popen([options.feed, copy, str(options.rate), str(feed_seconds)], stdout=subprocess.PIPE)
    pane = Pane(options.loupe, copy, work, "screens")
    try:
        pane.start()
        deadline = time.time() + 60
        while selected_rank(pane.capture()) is None:
            if time.time() > deadline:
                raise SystemExit(f"no position; the pane showed:\n{pane.capture()}")
            time.sleep(0.01)
        pid = pane.loupe_pid()
        control = Control(pane)
        CONTROL = control
        fed_from = (newest_sequence(copy), time.time())
        time.sleep(2.0)  # the feed is running and the breakers have keys
        results, captured, cpu = {}, {}, {}
        n = options.presses
        plans = [
            ("1 exchanges: j / k (not following)", "1", ["k"] + ["j", "k"] * (n // 2), selected_rank),
            ("2 timeline: j / k", "2", ["j", "k"] * (n // 2), selected_rank),
            ("4 metrics: w while reading the store", "4", ["w"] * n, window_label),
            ("4 metrics: w (window)", None, ["w"] * n, window_label),
            ("3 circuits: j / k", "3", ["j", "k"] * (n // 2), selected_rank),
        ]
        catch_up = {}
        for name, screen_key, keys, reading in plans:
            if screen_key is not None:
                pane.send(screen_key)
                time.sleep(0.2)
            if "while reading" not in name:
                started = now_ms()
                while "reading the store" in status_line(pane.capture()):
                    time.sleep(0.05)
                if screen_key in ("3", "4"):
                    catch_up[screen_key] = now_ms() - started
                cpu[name.split(":")[0]] = cpu_percent(pid, options.cpu_seconds)
            results[name] = [timed_control(control, key, reading) for key in keys]
            captured[name] = [timed(pane, key, reading) for key in keys]
            time.sleep(0.2)
        hwm = vm_hwm_kb(pid) / 1024.0
        fed = (newest_sequence(copy) - fed_from[0]) / (time.time() - fed_from[1])
    finally:
        if CONTROL is not None:
            CONTROL.close()
        pane.close()
        feed.terminate()
    feed.communicate(timeout=60)
    print(f"\nloupe tui on a copy of {options.store} with feed-store recording {options.rate}/s, 120x40, "
          f"key → frame in ms, by a control-mode client (the budget's figure) and by capture-pane:\n")
    for name, values in results.items():
        print(f"  {name:38s} control {summary(values)}")
        print(f"  {'':38s} capture {summary(captured[name])}")
    print()
    for name, value in cpu.items():
        print(f"  CPU on screen {name:12s} under the live load: {value:5.1f} % of one core")
    for key, ms in catch_up.items():
        print(f"  screen {key}: read the whole store (catching up, keys answered meanwhile) in {ms / 1000:.1f} s")
    print(f"\n  peak RSS (VmHWM): {hwm:.1f} MB")
    print(f"  arrivals while measuring: {fed:,.0f} exchanges/s (asked: {options.rate:,})")
    print("\nBudgets:")
    for name, values in results.items():
        p99 = percentile(values, 99)
        print(f"  {name} p99 < 16 ms: {p99:.1f} {'ok' if p99 < 16 else 'MISSED'}")
    print(f"  peak RSS < 64 MB: {hwm:.1f} {'ok' if hwm < 64 else 'MISSED'}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
