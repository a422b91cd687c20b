#!/usr/bin/env bash
# The docs point only at files a user has: every markdown link and every
# backticked repository path in README.md and docs/*.md (and bench/README.md,
# clients/python/README.md)
# must name a file or folder of this repository, and nothing may refer to the
# team's folder beside it (../shared, CONTRACT.md, PHYSICS.md, its numbered
# seed documents: cite a paper by title and authors instead).
#   bash tests/cli_links.sh [FILE.md ...]   (default: the files above)
# Prints one line per broken reference, FILE:LINE: what; exits 1 if any.
set -u
cd "$(dirname "$0")/.."
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(README.md docs/*.md bench/README.md clients/python/README.md)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# One line per reference: FILE<TAB>LINE<TAB>KIND<TAB>TARGET. Fenced code
# blocks are skipped (commands, not references), except for the ban.
for f in "${files[@]}"; do
  awk -v file="$f" '
    function emit(kind, target) { printf "%s\t%d\t%s\t%s\n", file, NR, kind, target }
    /^[[:space:]]*```/ { fence = !fence; next }
    {
      line = $0
      if (line ~ /\.\.\/shared|CONTRACT\.md|PHYSICS\.md|[Ss]eeds? 00[0-9]/) emit("outside", line)
      if (fence) next
      # [text](target): local targets only
      s = line
      while (match(s, /\]\([^) ]+\)/)) {
        t = substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH)
        if (t !~ /^(https?|mailto|ws|wss):/ && t !~ /^#/) emit("link", t)
      }
      # `dir/path`: backticked paths under the repository folders
      s = line
      while (match(s, /`[^`]+`/)) {
        t = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH)
        if (t ~ /^(core|docs|bench|examples|tests|tools|web|server|api|cli|scripts|migrations|clients)\/[A-Za-z0-9_.\/*-]*$/)
          emit("path", t)
      }
    }' "$f"
done > "$tmp"

fails=0
while IFS=$'\t' read -r file line kind target; do
  case "$kind" in
    outside)
      echo "$file:$line: refers outside the repository: $target"
      fails=$((fails + 1)); continue ;;
    link)
      path=${target%%#*}
      [ -n "$path" ] || continue
      resolved="$(dirname "$file")/$path" ;;
    path) # NNN stands for digits (migrations/NNN_*.sql)
      resolved=$(sed -E 's/N{2,}/*/g' <<< "$target") ;;
  esac
  # a path with a glob (bench/*.json) must match at least one file
  if [[ "$resolved" == *'*'* ]]; then
    compgen -G "$resolved" > /dev/null && continue
  elif [ -e "$resolved" ]; then
    continue
  fi
  echo "$file:$line: $kind to a missing file: $target"
  fails=$((fails + 1))
done < "$tmp"

echo "links: $(wc -l < "$tmp") references in ${#files[@]} files, $fails broken"
[ "$fails" -eq 0 ]
