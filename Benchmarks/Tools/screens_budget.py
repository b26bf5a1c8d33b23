#!/usr/bin/env python3
"""The screens' budget under live load (issue 11, item 4), measured from outside: `loupe tui` in a 120x40 tmux
pane on a copy of a large store while `feed-store` records RATE exchanges/s into it through the real recorder.

Run by `Benchmarks/screens-budget.sh`. For each screen (1 flows, 2 timeline, 3 circuits, 4 metrics) a key whose
effect shows in the position text is pressed P times. Arrivals redraw the screen too, so "output came" would not
do: the position must change as the key says. Two timings of each press, both from just before `tmux send-keys`:

- pipe (the figure the budget is judged by): tmux copies the program's output into a FIFO; each burst read from it
  is followed by one `capture-pane`, and the press ends with the last burst before the first capture showing the
  effect (bytes that came while that capture ran count as later, so the figure is never early);
- capture: the first `capture-pane`, polled about every millisecond, that shows the effect (each capture is a
  tmux client process, about 4 ms on this machine, included). On each screen the process's CPU over a few seconds of live load is
read too (utime + stime): what it spends keeping that screen current, per second. The process's peak RSS (VmHWM)
is read at the end.
"""
import argparse
import os
import re
import select
import shutil
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
        take_output(pane)  # a full pipe would hold up tmux, and the program's output behind it
        time.sleep(0.001)
    raise SystemExit(f"{key}: the position never changed; the pane showed:\n{pane.capture()}")


def take_output(pane):
    """Reads whatever output is waiting, without waiting; returns whether there was any."""
    got = False
    while select.select([pane.reader], [], [], 0)[0]:
        try:
            chunk = os.read(pane.reader, 1 << 20)
        except BlockingIOError:
            break
        if not chunk:
            break
        got = True
    return got


def timed_pipe(pane, key, reading):
    """ms from before send-keys to the output burst after which a capture first shows the key's effect."""
    before = reading(pane.capture())
    take_output(pane)
    started = now_ms()
    pane.send(key)
    deadline = time.time() + 30
    while time.time() < deadline:
        if not select.select([pane.reader], [], [], 1.0)[0]:
            continue
        take_output(pane)
        last = now_ms()
        now = reading(pane.capture())
        if now is not None and now != before:
            if take_output(pane):
                last = now_ms()
            return last - started
    raise SystemExit(f"{key}: the position never changed; the pane showed:\n{pane.capture()}")


def cpu_percent(pid, seconds):
    hz = os.sysconf("SC_CLK_TCK")
    ticks0, t0 = cpu_ticks(pid), time.time()
    time.sleep(seconds)
    return 100.0 * (cpu_ticks(pid) - ticks0) / hz / (time.time() - t0)


def main():
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
        time.sleep(2.0)  # the feed is running and the breakers have keys
        results, captured, cpu = {}, {}, {}
        n = options.presses
        plans = [
            ("1 flows: j / k (not following)", "1", ["k"] + ["j", "k"] * (n // 2), selected_rank),
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
            results[name] = [timed_pipe(pane, key, reading) for key in keys]
            captured[name] = [timed(pane, key, reading) for key in keys]
            time.sleep(0.2)
        hwm = vm_hwm_kb(pid) / 1024.0
    finally:
        pane.close()
        feed.terminate()
    out, _ = feed.communicate(timeout=60)
    print(f"\nloupe tui on a copy of {options.store} with feed-store recording {options.rate}/s, 120x40, "
          f"key → frame in ms, by the pipe (the budget's figure) and by capture-pane:\n")
    for name, values in results.items():
        print(f"  {name:38s} pipe    {summary(values)}")
        print(f"  {'':38s} capture {summary(captured[name])}")
    print()
    for name, value in cpu.items():
        print(f"  CPU on screen {name:12s} under the live load: {value:5.1f} % of one core")
    for key, ms in catch_up.items():
        print(f"  screen {key}: read the whole store (catching up, keys answered meanwhile) in {ms / 1000:.1f} s")
    print(f"\n  peak RSS (VmHWM): {hwm:.1f} MB")
    print(f"  {out.decode().strip()}")
    print("\nBudgets:")
    for name, values in results.items():
        p99 = percentile(values, 99)
        print(f"  {name} p99 < 16 ms: {p99:.1f} {'ok' if p99 < 16 else 'MISSED'}")
    print(f"  peak RSS < 64 MB: {hwm:.1f} {'ok' if hwm < 64 else 'MISSED'}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
