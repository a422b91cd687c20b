#!/usr/bin/env bash
# The docs point only at files a user has: every markdown link and every
# backticked repository path in README.md and docs/*.md (and bench/README.md,
# clients/python/README.md, web/README.md)
# must name a file or folder of this repository, and nothing may refer to the
# team's folder beside it (its shared folder, its contract and physics notes,
# its numbered seed documents: cite a paper by title and authors instead).
# Source files (C, JavaScript, shell, Python, SQL, HTML, CSS, the Makefile)
# must not cite that folder either: a comment names the paper and equation,
# or a docs/ page (the patterns below are spelt so that this file passes).
#   bash tests/cli_links.sh [FILE ...]   (default: the files above and every
#   source file; a FILE not ending in .md is checked as a source file)
# Prints one line per broken reference, FILE:LINE: what; exits 1 if any.
set -u
cd "$(dirname "$0")/.."
# what refers to the team's folder (written so as not to match itself)
outside='\.\./shared|(^|[^A-Za-z_])(CONTRAC[T]|PHYSIC[S])([^A-Za-z_]|$)|[Ss]eeds? 00[0-9]'
files=() sources=()
for f in "$@"; do case $f in *.md) files+=("$f") ;; *) sources+=("$f") ;; esac; done
if [ $# -eq 0 ]; then
  files=(README.md docs/*.md bench/README.md clients/python/README.md web/README.md)
  # web/: only the client's own files (not node_modules, vendor, examples)
  mapfile -t sources < <(find core api server cli tests tools scripts bench clients migrations \
    web/js web/index.html web/style.css web/build.mjs Makefile Dockerfile -type f \
    \( -name '*.[ch]' -o -name '*.js' -o -name '*.mjs' -o -name '*.sh' -o -name '*.py' \
       -o -name '*.sql' -o -name '*.html' -o -name '*.css' -o -name Makefile -o -name Dockerfile \) \
    -not -path '*/node_modules/*' -not -path '*/__pycache__/*' 2>/dev/null | sort)
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# One line per reference: FILE<TAB>LINE<TAB>KIND<TAB>TARGET. Fenced code
# blocks are skipped (commands, not references), except for the ban.
for f in "${files[@]}"; do
  outside=$outside awk -v file="$f" '
    function emit(kind, target) { printf "%s\t%d\t%s\t%s\n", file, NR, kind, target }
    /^[[:space:]]*```/ { fence = !fence; next }
    {
      line = $0
      if (line ~ ENVIRON["outside"]) emit("outside", line)
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
# source files: only the ban
for f in "${sources[@]}"; do
  grep -nE "$outside" "$f" | while IFS= read -r hit; do
    printf '%s\t%s\toutside\t%s\n' "$f" "${hit%%:*}" "${hit#*:}"
  done
done >> "$tmp"

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

echo "links: $(wc -l < "$tmp") references in ${#files[@]} docs and ${#sources[@]} source files, $fails broken"
[ "$fails" -eq 0 ]
