#!/usr/bin/env python3
"""The floor of issue 49's full-text index, measured on SQLite alone (the system library Loupe links).

Builds N exchanges' response bodies (JSON, 1 KB to 64 KB, log-uniform, from a word list, ids, numbers and dates),
stores them as a Loupe store holds bodies (a BLOB column), then indexes the same text in FTS5 trigram tables of each
`detail` level, with and without a cap per body, and prints: bytes of the bodies, bytes of each index (dbstat), the
seconds to build each index, and the time of a word's MATCH (first 50 rows, and the count).

    python3 Benchmarks/Tools/search_floor.py N [CAP ...]
"""
import math, os, random, sqlite3, sys, time

WORDS = ("order customer payment invoice shipping address status pending complete refund account balance "
         "product item quantity price currency discount coupon session token user profile email phone city "
         "country region warehouse carrier tracking delivery return review rating comment message thread reply "
         "attachment image thumbnail category tag label metric event trace span service endpoint latency error "
         "retry timeout circuit breaker cache hit miss stale fresh region zone cluster node pod container").split()


def body(rng, size):
    parts, n = [], 0
    while n < size:
        obj = ('{"id":"%08x-%04x-%04x","name":"%s %s","status":"%s","amount":%d.%02d,"created":"2026-%02d-%02dT%02d:%02d:%02dZ",'
               '"email":"%s.%s%d@example.com","tags":["%s","%s"],"note":"%s %s %s %s"}' % (
                   rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.choice(WORDS), rng.choice(WORDS),
                   rng.choice(WORDS), rng.randrange(100000), rng.randrange(100), rng.randrange(1, 13), rng.randrange(1, 29),
                   rng.randrange(24), rng.randrange(60), rng.randrange(60), rng.choice(WORDS), rng.choice(WORDS),
                   rng.randrange(1000), rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS),
                   rng.choice(WORDS), rng.choice(WORDS)))
        parts.append(obj)
        n += len(obj) + 1
    return ("[" + ",".join(parts) + "]")[:size]


def main():
    count = int(sys.argv[1])
    caps = [int(c) for c in sys.argv[2:]] or [0]
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "search-floor.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE exchange (sequence INTEGER PRIMARY KEY, response_body BLOB)")
    rng = random.Random(49)
    t = time.time()
    with db:
        for i in range(1, count + 1):
            size = int(math.exp(rng.uniform(math.log(1024), math.log(65536))))
            db.execute("INSERT INTO exchange VALUES (?, ?)", (i, body(rng, size).encode()))
    print(f"bodies: {count} rows in {time.time() - t:.1f} s (python)")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    body_bytes = db.execute("SELECT SUM(length(response_body)) FROM exchange").fetchone()[0]
    table_bytes = db.execute("SELECT SUM(pgsize) FROM dbstat WHERE name = 'exchange'").fetchone()[0]
    print(f"body bytes {body_bytes:,}  exchange table pages {table_bytes:,}")
    for detail in ("none", "column", "full"):
        for cap in caps:
            if detail == "full" and count > 20000:
                continue
            name = f"fts_{detail}_{cap}"
            db.execute(f"CREATE VIRTUAL TABLE {name} USING fts5(text, content='', tokenize='trigram', detail={detail})")
            source = "CAST(response_body AS TEXT)" if cap == 0 else f"substr(CAST(response_body AS TEXT), 1, {cap})"
            t = time.time()
            with db:
                db.execute(f"INSERT INTO {name}(rowid, text) SELECT sequence, {source} FROM exchange")
                db.execute(f"INSERT INTO {name}({name}) VALUES ('optimize')")
            build = time.time() - t
            size = db.execute("SELECT SUM(pgsize) FROM dbstat WHERE name LIKE ?", (name + "%",)).fetchone()[0]
            # A word in some bodies: "warehouse" as the trigrams it needs (detail=none has no phrases).
            query = " AND ".join(f'"{"warehouse"[k:k + 3]}"' for k in range(len("warehouse") - 2))
            t = time.time()
            first = db.execute(f"SELECT rowid FROM {name} WHERE {name} MATCH ? ORDER BY rowid DESC LIMIT 50", (query,)).fetchall()
            first_s = time.time() - t
            t = time.time()
            total = db.execute(f"SELECT COUNT(*) FROM {name} WHERE {name} MATCH ?", (query,)).fetchone()[0]
            count_s = time.time() - t
            rare = "5f3a9c"
            rq = " AND ".join(f'"{rare[k:k + 3]}"' for k in range(len(rare) - 2))
            t = time.time()
            rare_total = db.execute(f"SELECT COUNT(*) FROM {name} WHERE {name} MATCH ?", (rq,)).fetchone()[0]
            rare_s = time.time() - t
            print(f"detail={detail:6} cap={cap or 'none':>6}  index {size:>14,} B = {100 * size / table_bytes:5.1f} % of bodies' pages"
                  f"  build {build:6.1f} s ({count / build:8.0f} rows/s, {body_bytes / build / 1e6:5.1f} MB/s of text)"
                  f"  first 50: {first_s * 1000:6.1f} ms  count {total} in {count_s * 1000:6.1f} ms"
                  f"  rare count {rare_total} in {rare_s * 1000:6.1f} ms", flush=True)


main()
