"""Prints each problem's best candidates of a tuning database: final and screening medians,
cuBLAS in the same rounds, registers and spills. Usage: top.py DB [COUNT]"""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 25
print(db.execute("SELECT outcome, count(*) FROM candidates GROUP BY 1").fetchall())
fmt = lambda v: f"{v:8.2f}" if v is not None else f"{'-':>8}"
for pid, m, n, k in db.execute("SELECT id, m, n, k FROM problems ORDER BY id").fetchall():
    print(f"\n{m}x{n}x{k}")
    print(f"{'final':>8} {'screen':>8} {'cuBLAS':>8} regs spill config")
    rows = db.execute("""SELECT final_median_us, screen_median_us, cublas_us, registers, spill_bytes, config
                         FROM candidates WHERE problem_id = ? AND screen_median_us IS NOT NULL
                         ORDER BY screen_median_us LIMIT ?""", (pid, count)).fetchall()
    for final, screen, cublas, regs, spill, config in rows:
        print(f"{fmt(final)} {fmt(screen)} {fmt(cublas)} {regs:4} {spill:5} {config}")
