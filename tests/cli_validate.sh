#!/usr/bin/env bash
# `validate.py --only STUDY` (docs/validation.md "One study at a time"): a tiny
# column grid run with NDEM_BIN regenerates the column's section, its saved
# record and CSVs, and leaves every other study's section of the page as its
# saved record has it. Runs on copies of docs/ in a temporary folder.
set -u
cd "$(dirname "$0")/.."
bin=${NDEM_BIN:?NDEM_BIN must point at the ndem binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

mkdir -p "$tmp/docs/data" "$tmp/docs/images"
cp docs/validation.md "$tmp/docs/"
cp -r docs/data/validation "$tmp/docs/data/"
cp -r docs/data/validation "$tmp/saved"
plots=--no-plots; command -v gnuplot > /dev/null && plots=  # gnuplot: `scripts/deps.sh validate`
# 5 spheres, 5 and 50 iterations, 0.5 s: 6 runs of 100 steps
python3 tools/validate/validate.py --only column --jobs 2 --ndem "$bin" --probe /nonexistent \
  --work "$tmp/work" --docs "$tmp/docs" $plots --set 'column_counts=[5]' \
  --set 'column_iterations=[5,50]' --set column_duration=0.5 > "$tmp/log.txt" 2>&1
check "validate.py --only column exits 0" test $? -eq 0
check "the column's 6 runs ran" test "$(ls -d "$tmp"/work/runs/column-5-*/result.json 2> /dev/null | wc -l)" -eq 6

python3 - "$tmp" > "$tmp/check.txt" 2>&1 << 'PY'
import csv, json, os, sys
tmp = sys.argv[1]
page = open(os.path.join(tmp, "docs", "validation.md"), encoding="utf-8").read()
ok = True
def expect(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and cond
# every other study: its saved record unchanged and each of its blocks on the page
for name in sorted(os.listdir(os.path.join(tmp, "saved"))):
    if not name.endswith(".json") or name == "column.json":
        continue
    old = open(os.path.join(tmp, "saved", name), encoding="utf-8").read()
    new = open(os.path.join(tmp, "docs", "data", "validation", name), encoding="utf-8").read()
    expect(old == new, "%s unchanged" % name)
    blocks = json.loads(old)["blocks"]
    expect(all(v in page for v in blocks.values()), "%s: its %d blocks on the page" % (name, len(blocks)))
    expect(json.loads(old)["provenance"] in page, "%s: its provenance line on the page" % name)
# the column: regenerated from the runs of this pass
col = json.load(open(os.path.join(tmp, "docs", "data", "validation", "column.json"), encoding="utf-8"))
expect(col["pass"] == "full" and col["settings"]["column_counts"] == [5], "column.json: full pass, 5 spheres")
expect("- column: full pass, 6 of 6 runs done" in page, "the column's provenance line counts 6 runs")
rows = list(csv.reader(open(os.path.join(tmp, "docs", "data", "validation", "column_runs.csv"), encoding="utf-8")))
expect(len(rows) == 7 and {r[0] for r in rows[1:]} == {"5"}, "column_runs.csv copied: 6 runs of 5 spheres")
table = col["blocks"]["column_table"]
expect(table in page and "\n| 5 |" in table and "\n| 10 |" not in table, "the column table: one row, 5 spheres")
# the heights in the CSV are the runs' own
for r in rows[1:]:
    res = json.load(open(os.path.join(tmp, "work", "runs", "column-5-%s-%s" % (r[1], r[2]),
                                      "result.json"), encoding="utf-8"))
    expect(abs(float(r[3]) - res["height"]) <= 1e-6 * res["height"], "column-5-%s-%s height from its run" % (r[1], r[2]))
sys.exit(0 if ok else 1)
PY
rc=$?
cat "$tmp/check.txt"
check "the checks above (the other sections kept, the column's from its runs)" test $rc -eq 0
# a study named with no runs at hand anywhere keeps its saved section
cp "$tmp/docs/validation.md" "$tmp/before.md"
python3 tools/validate/validate.py --only drum --report-only --ndem "$bin" --probe /nonexistent \
  --work "$tmp/work" --docs "$tmp/docs" --no-plots > "$tmp/log2.txt" 2>&1
check "--only drum --report-only exits 0" test $? -eq 0
check "it says the drum's section is kept" grep -q "drum: no runs at hand, its full pass section is kept" "$tmp/log2.txt"
check "the page differs only in its first provenance line" \
  test "$(diff "$tmp/before.md" "$tmp/docs/validation.md" | grep -c '^[<>]')" -eq 2
check "drum.json unchanged" cmp -s "$tmp/saved/drum.json" "$tmp/docs/data/validation/drum.json"
# on a machine without the pile's runs, restore_pile.py rebuilds them from the
# carried CSVs and --report-only gives back the carried section
python3 tools/validate/restore_pile.py --work "$tmp/work2" > "$tmp/log4.txt" 2>&1
check "restore_pile.py writes the pile's runs" \
  test "$(ls -d "$tmp"/work2/runs/pile-*/result.json 2> /dev/null | wc -l)" -eq "$(wc -l < docs/data/validation/pile_height.csv)"  # its rows and the h = 1 ms reference
python3 tools/validate/validate.py --only pile --report-only --ndem "$bin" --probe /nonexistent \
  --work "$tmp/work2" --docs "$tmp/docs" --no-plots >> "$tmp/log4.txt" 2>&1
check "--only pile --report-only exits 0" test $? -eq 0
check "the restored pile section equals the carried one" python3 -c '
import json, sys
a, b = (json.load(open(p))["blocks"] for p in sys.argv[1:])
sys.exit(0 if a == b else 1)' "$tmp/saved/pile.json" "$tmp/docs/data/validation/pile.json"
# a smaller pass does not replace a larger pass's section (MEDIUM=1 or QUICK=1 runs beside a full page)
cp "$tmp/docs/data/validation/column.json" "$tmp/column-full.json"
python3 tools/validate/validate.py --quick --only column --jobs 2 --ndem "$bin" --probe /nonexistent \
  --work "$tmp/work" --docs "$tmp/docs" --no-plots --set 'column_counts=[5]' \
  --set 'column_iterations=[5]' --set column_duration=0.5 > "$tmp/log3.txt" 2>&1
check "--quick --only column exits 0" test $? -eq 0
check "the quick pass's 3 runs ran" test "$(ls -d "$tmp"/work/quick/runs/column-5-*/result.json 2> /dev/null | wc -l)" -eq 3
check "it says the full pass's column section is kept" \
  grep -q "column: the quick pass is smaller, its full pass section is kept" "$tmp/log3.txt"
check "column.json still the full pass's" cmp -s "$tmp/column-full.json" "$tmp/docs/data/validation/column.json"
[ "$fails" -eq 0 ] || { echo "--- validate.py's output:"; cat "$tmp/log.txt" "$tmp/log2.txt" "$tmp/log3.txt" "$tmp/log4.txt"; }
exit $((fails > 0))
