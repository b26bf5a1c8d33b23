#!/usr/bin/env bash
# End-to-end checks of `loupe compare`: two runs of the unchanged demo report no regression; a copy with one
# operation slowed, one failing and one gone reports exactly those (exit 1); the JSON, markdown and JUnit outputs
# parse; a HAR export compares with its store; one store split by filters and by time (~until/~since); bad input
# (bad times included) is one line and exit 2.
set -euo pipefail
loupe="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { echo "E2E FAILED: $*"; exit 1; }

echo "-- two runs of the unchanged demo"
"$loupe" demo --headless --duration 8 --store "$work/a.sqlite" > /dev/null
"$loupe" demo --headless --duration 8 --store "$work/b.sqlite" > /dev/null
# Loopback latencies on a shared 2-core machine move by tens of milliseconds between two runs (40 calls at once to
# /burst share one fate, so they move together): the default 10 % would call that. With the threshold raised,
# nothing may be called: counts, error rates and response shapes of the unchanged demo are the same. With the
# default, whatever is called must be latency alone.
set +e
"$loupe" compare "$work/a.sqlite" "$work/b.sqlite" --latency 300% > "$work/same.txt"; rc=$?
set -e
cat "$work/same.txt"
[ "$rc" = 0 ] || fail "two runs of the unchanged demo: exit $rc, want 0"
grep -q '^regressed' "$work/same.txt" && fail "a regression reported between two runs of the unchanged demo"
grep -q 'operations:' "$work/same.txt" || fail "no summary line"
"$loupe" compare "$work/a.sqlite" "$work/b.sqlite" --json > "$work/same.json" || true
python3 - "$work/same.json" <<'PY' || fail "two runs of the unchanged demo: something besides latency was called"
import json, re, sys
report = json.load(open(sys.argv[1]))
for group in report["operations"] + report["hosts"]:
    assert group["verdict"] in ("regressed", "improved", "unchanged"), group
    assert group["shape"] == [], group
    for reason in group["reasons"]:
        assert re.match(r"p(50|95|99) ", reason), reason
PY
ok "two demo runs: no regression at 300 %, nothing but latency at the default, exit 0"

echo "-- known differences: one operation slowed, one failing, one gone"
cp "$work/a.sqlite" "$work/c.sqlite"
python3 - "$work/c.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ops = [r[0] for r in db.execute("SELECT operation FROM exchange GROUP BY operation HAVING COUNT(*) >= 6 ORDER BY COUNT(*) DESC")]
assert len(ops) >= 3, ops
slow, failing, gone = ops[0], ops[1], ops[2]
db.execute("UPDATE exchange SET duration = duration * 20 + 0.5, ended_at = started_at + duration * 20 + 0.5 WHERE operation = ?", (slow,))
db.execute("UPDATE exchange SET status = 500, outcome = 'httpError' WHERE operation = ?", (failing,))
db.execute("DELETE FROM exchange WHERE operation = ?", (gone,))
db.commit()
open(sys.argv[1] + ".ops", "w").write(f"{slow} {failing} {gone}\n")
PY
read -r slow failing gone < "$work/c.sqlite.ops"
set +e
"$loupe" compare "$work/a.sqlite" "$work/c.sqlite" --json > "$work/diff.json"; rc=$?
set -e
[ "$rc" = 1 ] || fail "a slowed operation: exit $rc, want 1"
python3 - "$work/diff.json" "$slow" "$failing" "$gone" <<'PY' || fail "the JSON report does not say what changed"
import json, sys
report = json.load(open(sys.argv[1]))
slow, failing, gone = sys.argv[2:5]
verdicts = {g["name"]: g["verdict"] for g in report["operations"]}
assert report["regressed"] is True, report["regressed"]
assert verdicts[slow] == "regressed", (slow, verdicts)
assert verdicts[gone] == "gone", (gone, verdicts)
failing_group = next(g for g in report["operations"] if g["name"] == failing)
assert failing_group["b"]["errorRate"] == 1.0, failing_group["b"]
others = {n: v for n, v in verdicts.items() if n not in (slow, failing, gone)}
assert all(v == "unchanged" for v in others.values()), others
assert report["operations"][0]["verdict"] == "regressed"
PY
ok "slowed $slow is regressed, $gone gone, the rest unchanged; exit 1"

"$loupe" compare "$work/a.sqlite" "$work/c.sqlite" --format markdown > "$work/diff.md" || true
grep -q '^## loupe compare: regressions found' "$work/diff.md" || fail "markdown heading"
grep -q "| \*\*regressed\*\* | $slow |" "$work/diff.md" || fail "markdown row for $slow: $(cat "$work/diff.md")"
"$loupe" compare "$work/a.sqlite" "$work/c.sqlite" --format junit > "$work/diff.xml" || true
python3 - "$work/diff.xml" "$slow" <<'PY' || fail "JUnit XML"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = {c.get("name"): c for c in root.iter("testcase")}
assert cases[sys.argv[2]].find("failure") is not None
assert int(root.get("failures")) >= 1
PY
ok "markdown and JUnit say the same"

echo "-- a HAR export against its store; two filters of one store"
"$loupe" export "$work/a.sqlite" --har "$work/a.har"
"$loupe" compare "$work/a.har" "$work/a.sqlite" > "$work/har.txt" || fail "HAR against its own store: exit $?"
grep -q 'regressed\|improved\|gone' "$work/har.txt" && fail "a HAR export differs from its store: $(cat "$work/har.txt")"
"$loupe" compare "$work/a.sqlite" --a '~m GET' --b '~m GET' > /dev/null || fail "one store, two equal filters: exit $?"
ok "HAR source and filtered sides"

echo "-- two time windows of one store: ~until T and ~since T split it with nothing lost or counted twice"
split=$(python3 - "$work/a.sqlite" <<'PY'
import sqlite3, sys, datetime
db = sqlite3.connect(sys.argv[1])
starts = [r[0] for r in db.execute("SELECT started_at FROM exchange ORDER BY started_at")]
middle = starts[len(starts) // 2]
# Whole milliseconds below the median start, in UTC: what the filter reads.
t = datetime.datetime.fromtimestamp(int(middle * 1000) / 1000, datetime.timezone.utc)
print(t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z", len(starts))
PY
)
read -r instant total <<< "$split"
"$loupe" compare "$work/a.sqlite" --a "~until $instant" --b "~since $instant" --latency 1000% --error-rate 100pt --json \
  > "$work/windows.json" || true
python3 - "$work/windows.json" "$total" <<'PY' || fail "~until/~since windows at $instant do not split the store"
import json, sys
report = json.load(open(sys.argv[1]))
total = int(sys.argv[2])
assert report["totalA"] > 0 and report["totalB"] > 0, report
assert report["totalA"] + report["totalB"] == total, (report["totalA"], report["totalB"], total)
PY
"$loupe" compare "$work/a.sqlite" --a '~until 1h' --b '~since 1h' --json > "$work/recent.json" || true
python3 - "$work/recent.json" "$total" <<'PY' || fail "a relative window: everything was recorded within the hour"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["totalA"] == 0 and report["totalB"] == int(sys.argv[2]), report
PY
ok "~until $instant / ~since $instant split $total exchanges; ~since 1h holds them all"

echo "-- bad input: one line, exit 2"
check2() {
  set +e
  "$loupe" compare "$@" > /dev/null 2> "$work/err.txt"; rc=$?
  set -e
  [ "$rc" = 2 ] || fail "compare $*: exit $rc, want 2"
  [ "$(wc -l < "$work/err.txt")" = 1 ] || fail "compare $*: not one line: $(cat "$work/err.txt")"
  grep -q '^loupe: ' "$work/err.txt" || fail "compare $*: $(cat "$work/err.txt")"
}
check2 "$work/missing.sqlite" "$work/a.sqlite"
check2 "$work/a.sqlite" "$work/b.sqlite" --latency inf
check2 "$work/a.sqlite" "$work/b.sqlite" --latency -5%
check2 "$work/a.sqlite" "$work/b.sqlite" --error-rate 101pt
check2 "$work/a.sqlite" "$work/b.sqlite" --alpha 0
check2 "$work/a.sqlite" "$work/b.sqlite" --format xml
check2 "$work/a.sqlite" "$work/b.sqlite" --baseline "$work/a.sqlite"
check2 "$work/a.sqlite"
check2 "$work/a.sqlite" "$work/b.sqlite" --a '~c 5xx & ('
check2 "$work/a.sqlite" --a '~since soon' --b '~since 1h'
check2 "$work/a.sqlite" --a '~until 1h' --b '~since 2026-02-30'
check2 "$work/a.sqlite" --a '~until 1e12d' --b '~since 1h'
check2 "$work/a.sqlite" --a '~until 1h' --b '~since 2026-12-06T25:00Z'
check2 /dev/zero "$work/b.sqlite"
echo "not sqlite" > "$work/garbage.sqlite"
check2 "$work/garbage.sqlite" "$work/b.sqlite"
ok "missing, garbage and device files, bad thresholds, formats, baselines and filters"

echo "e2e-compare: $passed checks passed"
